import { describe, expect, it } from 'vitest';
import { barText, columnChart, fit, legend } from '../../../src/commands/report/chart.js';
import { renderText } from '../../../src/commands/report/view-text.js';
import type { ReportView } from '../../../src/commands/report/model.js';

const cells = (s: string) => [...s].length;

describe('bars', () => {
  it('are sized in eighths of a cell, the maximum filling the width', () => {
    expect(barText(10, 10, 20, false)).toBe('█'.repeat(20));
    expect(barText(5, 10, 20, false)).toBe('█'.repeat(10));
    expect(barText(1, 16, 2, false)).toBe('▏'); // 1/16 of 16 eighths = 1 eighth
    expect(barText(3, 8, 1, false)).toBe('▍');
  });

  it('in ASCII are whole # cells', () => {
    expect(barText(5, 10, 20, true)).toBe('#'.repeat(10));
    expect(barText(10, 10, 7, true)).toBe('#######');
  });

  it('show a sliver for a small non-zero value and nothing for zero, null-like or a zero maximum', () => {
    expect(barText(1, 1000, 10, false)).toBe('▏');
    expect(barText(1, 1000, 10, true)).toBe('#');
    expect(barText(0, 10, 10, false)).toBe('');
    expect(barText(5, 0, 10, false)).toBe('');
    expect(barText(Number.NaN, 10, 10, false)).toBe('');
  });

  it('never exceed the width, even above the maximum', () => {
    for (let v = 0; v <= 40; v++) expect(cells(barText(v, 37, 13, false))).toBeLessThanOrEqual(13);
    expect(barText(50, 10, 5, true)).toBe('#####');
  });
});

describe('fit', () => {
  it('pads, right-aligns and cuts with …', () => {
    expect(fit('ab', 4)).toBe('ab  ');
    expect(fit('ab', 4, 'right')).toBe('  ab');
    expect(fit('abcdef', 4)).toBe('abc…');
  });
});

describe('column chart', () => {
  const series = [
    { name: 'inbound', values: [0, 2, 4, 8] },
    { name: 'outbound', values: [8, 0, 1, 4] },
  ];
  it('draws the maximum as a full column, zero as nothing, labels and a legend', () => {
    const lines = columnChart(series, ['Jan', 'Feb', 'Mar', 'Apr'], { height: 4, colWidth: 1, style: { ascii: true } });
    expect(lines).toHaveLength(4 + 3);
    expect(lines[0]).toMatch(/^8 \|/);
    // Column of outbound in Jan is full height: every chart row has '=' in that cell.
    const col = lines[0]!.indexOf('|') + 2;
    for (let r = 0; r < 4; r++) expect(lines[r]![col]).toBe('=');
    expect(lines[0]![col - 1]).toBe(' '); // inbound Jan = 0
    expect(lines.at(-2)).toMatch(/J… F… M… A…/); // labels cut to their group, a space between
    expect(lines.at(-1)).toBe('   # inbound   = outbound');
    // 0 is the axis line, not the bottom row (which holds the columns of the smallest values).
    expect(lines[3]).toMatch(/^ {2}\|/);
    expect(lines[4]).toMatch(/^0 \+-+$/);
  });

  it('a column of 1 stands on a row not labelled 0', () => {
    const lines = columnChart([{ name: 'n', values: [1, 0, 3] }], ['a', 'b', 'c'], { height: 8, colWidth: 1, style: { ascii: true } });
    const bottom = lines[7]!;
    expect(bottom.startsWith('0')).toBe(false);
    expect(bottom).toMatch(/^ {2}\| ?#/); // the column of 1 shows, on an unlabelled row
    expect(lines[0]).toMatch(/^3 \|/);
    expect(lines[8]).toMatch(/^0 \+/);
  });

  it('tells series apart without colour: shades in Unicode, characters in ASCII', () => {
    expect(legend(['a', 'b'], { ascii: false })).toBe('█ a   ▒ b');
    expect(legend(['a', 'b'], { ascii: true })).toBe('# a   = b');
    const painted = legend(['a'], { ascii: false, paint: (s) => `<${s}>` });
    expect(painted).toBe('<■> a');
  });
});

describe('terminal view', () => {
  const view: ReportView = {
    title: 'T',
    sections: [
      {
        kind: 'table',
        columns: [{ title: 'name' }, { title: 'n', align: 'right' }],
        rows: [
          ['a very long sequence name that will not fit in eighty columns at all', '10'],
          ['b', '5'],
        ],
        bar: { title: 'rate', values: [0.5, 0.25], max: 0.5 },
      },
      {
        kind: 'funnel',
        max: 100,
        stages: [
          { label: 'delivered', count: 100, rate: '' },
          { label: 'opened', count: 50, rate: '50.0%' },
        ],
      },
    ],
    notes: ['note'],
  };
  for (const cols of [80, 200]) {
    it(`fits ${cols} columns, bars follow the numbers`, () => {
      const text = renderText(view, cols, { ascii: true });
      for (const l of text.split('\n')) expect(cells(l)).toBeLessThanOrEqual(cols);
      const bars = text
        .split('\n')
        .filter((l) => /#/.test(l))
        .map((l) => (l.match(/#+/) ?? [''])[0].length);
      expect(bars).toHaveLength(4);
      expect(bars[1]! / bars[0]!).toBeCloseTo(0.5, 1);
      expect(bars[3]! / bars[2]!).toBeCloseTo(0.5, 1);
    });
  }
});

describe('wrap', () => {
  it('breaks notes at spaces to the width', async () => {
    const { wrap } = await import('../../../src/commands/report/view-text.js');
    expect(wrap('aa bb cc dd', 5)).toEqual(['aa bb', 'cc dd']);
    expect(wrap('averyveryverylongword x', 5)).toEqual(['averyveryverylongword', 'x']);
  });
});
