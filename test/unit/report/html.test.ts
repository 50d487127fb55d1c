import { describe, expect, it } from 'vitest';
import { esc, renderHtml, scale } from '../../../src/commands/report/view-html.js';
import type { ReportView } from '../../../src/commands/report/model.js';
import { zoneNamed } from '../../../src/time-zone.js';

const view: ReportView = {
  title: 'Report <x> & "y"',
  sections: [
    {
      kind: 'table',
      columns: [{ title: 'name' }],
      rows: [['a'], ['b'], ['c']],
      bar: { title: 'rate', values: [0.5, 0.25, null], max: 0.5 },
    },
    {
      kind: 'funnel',
      max: 10,
      stages: [
        { label: 'delivered', count: 10, rate: '' },
        { label: 'opened', count: 0, rate: '0%' },
      ],
    },
    {
      kind: 'columns',
      labels: ['Jan', 'Feb'],
      series: [
        { name: 'in', values: [1, 2] },
        { name: 'out', values: [0, 4] },
      ],
    },
  ],
  notes: ['n'],
};

describe('HTML page', () => {
  const html = renderHtml(view, Date.parse('2026-01-02T03:04:05Z'), zoneNamed('UTC'));

  it('is self-contained: no script, no external resource', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(src|href)=/i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).toMatch(/^<!doctype html>/);
  });

  it('escapes text', () => {
    expect(html).toContain('<title>Report &lt;x&gt; &amp; &quot;y&quot;</title>');
    expect(esc(`<'&>`)).toBe('&lt;&#39;&amp;&gt;');
  });

  it('draws one rect.bar per non-zero value, sized in proportion', () => {
    const bars = [...html.matchAll(/<rect class="bar[^"]*"[^>]*?(width|height)="([\d.]+)"[^>]*data-value="([\d.]+)"/g)];
    // table: 2 (null skipped), funnel: 1 (0 skipped), columns: 3 (0 skipped)
    expect(bars).toHaveLength(6);
    const widths = [...html.matchAll(/<rect class="bar" x="0" y="2" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths[1]! / widths[0]!).toBeCloseTo(0.5, 3);
  });

  it('scale is proportional and clamps', () => {
    expect(scale(5, 10, 200)).toBe(100);
    expect(scale(20, 10, 200)).toBe(200);
    expect(scale(0, 10, 200)).toBe(0);
    expect(scale(3, 0, 200)).toBe(0);
  });
});
