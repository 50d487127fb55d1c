/** Aligned columns for people line up in terminal columns, CJK text (two columns a character) included. */
import { describe, expect, it } from 'vitest';
import { alignedColumns } from '../../../src/output/aligned-columns.js';
import { textWidth } from '../../../src/output/terminal-text.js';

describe('alignedColumns', () => {
  it('pads by display width, so the column after CJK text starts where the others do', () => {
    const out = alignedColumns(
      ['name', 'title'],
      [
        ['山田太郎', 'CEO'],
        ['Ada', 'CTO'],
      ],
    );
    const lines = out.trimEnd().split('\n');
    const starts = lines.map((l) => textWidth(l.slice(0, l.search(/(CEO|CTO|TITLE)$/))));
    expect(new Set(starts).size).toBe(1);
    expect(lines[0]).toBe('NAME      TITLE');
  });

  it('escapes control characters in cells before measuring them', () => {
    const out = alignedColumns(['a', 'b'], [['x\u001b[31m', 'y']]);
    expect(out).not.toContain('\u001b');
  });
});
