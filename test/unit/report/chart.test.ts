import { describe, expect, it } from 'vitest';
import { barText, columnChart, fit, legend } from '../../../src/commands/report/chart.js';
import { renderText } from '../../../src/commands/report/view-text.js';
import type { ReportView } from '../../../src/commands/report/model.js';
import { countersOf } from '../../../src/commands/report/rates.js';
import { countsAndRates, view as sequencesView } from '../../../src/commands/report/sequences.js';
import { textWidth } from '../../../src/output/terminal-text.js';

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

describe('report sequences at 80 columns', () => {
  const row = (id: number, name: string, deliverCount: number, replyCount: number) => ({
    id,
    name,
    enabled: true,
    emailSteps: 2,
    ...countsAndRates(countersOf({ deliverCount, openCount: deliverCount, replyCount, bounceCount: 1 })),
  });
  const short = [row(1, 'Inbound Follow-up', 12, 1), row(2, 'Outbound Enterprise', 1234, 617)];

  it('cuts a long name (accents, CJK) with … and keeps ids, numbers, the bar title and the bars whole', () => {
    const rows = [
      ...short,
      row(31337, "José's very long Q1 re-engagement campaign for EMEA enterprise accounts", 99, 9),
      row(4, '山田チーム・アウトバウンド 2026 第一四半期 エンタープライズ向け再エンゲージメント', 7, 7),
    ];
    const text = renderText(sequencesView(rows, 'reply', 80), 80, { ascii: true });
    const lines = text.split('\n');
    for (const l of lines) expect(textWidth(l), l).toBeLessThan(80);
    expect(lines[1]).toMatch(/ reply rate$/);
    expect(lines.find((l) => l.includes('31337'))).toMatch(
      /^ {2}31337 {2}José's very long Q1 r… {2}yes {5}99 {2}100\.0% {4}9\.1% {4}1\.0% {2}#$/,
    );
    expect(lines.find((l) => l.includes('山田'))).toMatch(
      /^ {6}4 {2}山田チーム・アウトバ… {3}yes {6}7 {2}100\.0% {2}100\.0% {3}14\.3% {2}#{10}$/,
    );
    expect(lines.find((l) => l.includes('1234'))).toMatch(/^ {6}2 {2}Outbound Enterprise {5}yes {3}1234 .* #{5}$/);
  });

  it('is unchanged when it fits', () => {
    expect(renderText(sequencesView(short, 'reply', 80), 80, { ascii: true })).toBe(
      [
        'Sequences: 2',
        '  id  sequence             on   deliv    open  reply  bounce  reply rate',
        '   1  Inbound Follow-up    yes     12  100.0%   8.3%    8.3%  ###',
        '   2  Outbound Enterprise  yes   1234  100.0%  50.0%    0.1%  #################',
        '',
        'reply rate = replyCount ÷ deliverCount; a rate over 0 deliveries shows –',
        '',
      ].join('\n'),
    );
  });

  it('cuts a long name in a table without bars too, numbers whole', () => {
    const v: ReportView = {
      title: 'T',
      sections: [
        {
          kind: 'table',
          columns: [{ title: 'state id', align: 'right' }, { title: 'sequence' }, { title: 'state' }, { title: 'deliv', align: 'right' }],
          rows: [['123456', `${'Отдел продаж EMEA '.repeat(6)}(4)`, 'active', '987654']],
        },
      ],
      notes: [],
    };
    const lines = renderText(v, 80, { ascii: true }).split('\n');
    for (const l of lines) expect(textWidth(l), l).toBeLessThan(80);
    expect(lines[2]).toMatch(/^ {4}123456 {2}Отдел продаж EMEA .*… {2}active {2}987654$/);
  });
});

describe('wrap', () => {
  it('breaks notes at spaces to the width', async () => {
    const { wrap } = await import('../../../src/commands/report/view-text.js');
    expect(wrap('aa bb cc dd', 5)).toEqual(['aa bb', 'cc dd']);
    expect(wrap('averyveryverylongword x', 5)).toEqual(['averyveryverylongword', 'x']);
  });
});
