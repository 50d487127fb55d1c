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

  it('fit: a line wider than the terminal has its flex column cut with … (CJK by its width)', () => {
    // A new-user trial: `svc runs list` at 80 columns was 191 wide (the command lines, paths and all).
    const cmd = `svc --sandbox prospects create --input /home/花子/Documents/リード 一覧 2026.csv --match email`;
    const rows = [
      ['20261129-203358-d64284', '2026-11-29T20:33:58.211Z', cmd, 'created 1,500', 'done'],
      ['20261129-203358-484010', '2026-11-29T20:33:58.556Z', 'svc prospects delete --input ids.csv --yes', 'deleted 3', 'cut short'],
    ];
    const cols = ['id', 'when', 'command', 'rows', 'state'];
    for (const width of [100, 120]) {
      const out = alignedColumns(cols, rows, { width, flex: 2 });
      for (const l of out.trimEnd().split('\n')) expect(textWidth(l), `${width}: ${l}`).toBeLessThanOrEqual(width);
      expect(out).toContain('…');
      expect(out).toContain('20261129-203358-d64284');
    }
    // Narrower than the other columns leave room for: the command keeps 12 columns, no fewer.
    const narrow = alignedColumns(cols, rows, { width: 60, flex: 2 }).split('\n');
    expect(narrow[1]).toContain('  svc --sandb…  ');
    // Wide enough: nothing cut, the same as without fit.
    expect(alignedColumns(cols, rows, { width: 400, flex: 2 })).toBe(alignedColumns(cols, rows));
  });

  it('fit with several flex columns: the widest is cut first, so a long count of rows does not leave the command 12 columns', () => {
    const cols = ['id', 'command', 'rows', 'state'];
    const rows = [
      [
        '20261129-203358-d64284',
        'svc enroll --sequence 3 --mailbox 1 --input people.ndjson --by email',
        'created 1, cut short 37, skipped 2 (of 41)',
        'done',
      ],
    ];
    const out = alignedColumns(cols, rows, { width: 80, flex: [1, 2] })
      .trimEnd()
      .split('\n');
    // 80 - 22 - 5 (STATE) - 3 * 2 = 47 for the two: 23 and 24.
    expect(out[1]).toBe('20261129-203358-d64284  svc enroll --sequence…   created 1, cut short 37…  done');
  });

  it('escapes control characters in cells before measuring them', () => {
    const out = alignedColumns(['a', 'b'], [['x\u001b[31m', 'y']]);
    expect(out).not.toContain('\u001b');
  });

  it('fit: a cell runs on over the empty cells after it, so a column of long cells with nothing beside them gives its room, none cut', () => {
    // schema show at 80 columns: MARKS (long on the spec's fields, empty beside the labels of
    // custom ones) kept its width and the labels were cut: `Lead Sourc…` (a trial).
    const cols = ['name', 'marks', 'label', 'kind'];
    const rows = [
      ['proNetSlug', 'RO F S max 255', '', ''],
      ['title', 'F S max 255', '', ''],
      ['custom1', '', 'Lead Source Detail', 'inclusion'],
      ['custom3', 'required', '見込み客の獲得経路', 'string'],
    ];
    const out = alignedColumns(cols, rows, { width: 51, flex: [2, 1], min: 8 });
    expect(out).toBe(
      [
        'NAME        MARKS     LABEL               KIND',
        'proNetSlug  RO F S max 255',
        'title       F S max 255',
        'custom1               Lead Source Detail  inclusion',
        'custom3     required  見込み客の獲得経路  string',
        '',
      ].join('\n'),
    );
    for (const l of out.split('\n')) expect(textWidth(l), l).toBeLessThanOrEqual(51);
    // A cell that cannot run on (a label beside it) is cut, and only then.
    const tight = alignedColumns(cols, [...rows, ['custom9', 'F S max 255', 'Owner', 'string']], { width: 51, flex: [2, 1], min: 8 });
    expect(tight).toContain('\ncustom9     F S max…  Owner               string\n');
    expect(tight).toContain('\nproNetSlug  RO F S max 255\n');
  });

  it('fit with a stack column: a cell with no room beside it goes on a line under its row, indented to the second column', () => {
    const cols = ['id', 'command', 'rows', 'state'];
    const rows = [
      ['20261130-113253-756640', 'prospects create leads.csv', '1,755 created, 45 cut short (of 3,000)', 'interrupted'],
      ['20261130-113613-c7d340', 'prospects update 12', '1 updated', 'done'],
    ];
    // Room for the short counts beside their run, not for the long ones: those go under it.
    expect(alignedColumns(cols, rows, { width: 90, flex: [1], stack: [2] })).toBe(
      [
        'ID                      COMMAND                     ROWS       STATE',
        '20261130-113253-756640  prospects create leads.csv             interrupted',
        '                        1,755 created, 45 cut short (of 3,000)',
        '20261130-113613-c7d340  prospects update 12         1 updated  done',
        '',
      ].join('\n'),
    );
    // Room for none beside their run: the column goes under every row, its header under the header.
    const narrow = alignedColumns(cols, rows, { width: 66, flex: [1], stack: [2] });
    expect(narrow).toBe(
      [
        'ID                      COMMAND                     STATE',
        '                        ROWS',
        '20261130-113253-756640  prospects create leads.csv  interrupted',
        '                        1,755 created, 45 cut short (of 3,000)',
        '20261130-113613-c7d340  prospects update 12         done',
        '                        1 updated',
        '',
      ].join('\n'),
    );
    // Narrower than a cell under its row: broken between words, never cut.
    const tiny = alignedColumns(cols, rows, { width: 50, flex: [1], stack: [2] });
    for (const l of tiny.trimEnd().split('\n')) expect(textWidth(l), l).toBeLessThanOrEqual(50);
    const under = tiny.split('\n').filter((l) => /^ {24}\d/.test(l) || /^ {26}\S/.test(l));
    expect(under.join(' ').replace(/ +/g, ' ').trim()).toBe('1,755 created, 45 cut short (of 3,000) 1 updated');
    // Without fit (a pipe), as ever: one line a row.
    expect(alignedColumns(cols, rows).split('\n')[1]).toBe(
      '20261130-113253-756640  prospects create leads.csv  1,755 created, 45 cut short (of 3,000)  interrupted',
    );
  });
});
