/**
 * The HTML page of a report: pure, one self-contained document (inline CSS and SVG, no script,
 * no font or image from the network), readable offline and printable. It draws the same report
 * structure as the terminal, so the numbers are the same. Every data bar is an SVG `rect` with
 * class `bar` and its number in `data-value`, sized in proportion to it.
 */
import type { Series } from './chart.js';
import type { ReportView, Section, Stage } from './model.js';
import { wallTime, zoneText, type Zone } from '../../time-zone.js';

/** Width in px of the longest bar of a table or funnel. */
const BAR_PX = 240;
const COL_PX = 14;
const CHART_PX = 160;

/** Escapes text for HTML content and attribute values. */
export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Length in px of `value` out of `max` for a bar of at most `px`, two decimals. */
export function scale(value: number, max: number, px: number): number {
  return max > 0 && value > 0 ? Math.round((Math.min(value, max) / max) * px * 100) / 100 : 0;
}

const CSS = `
:root{--fg:#1d2330;--dim:#667085;--bar:#2a7ab8;--s0:#2a7ab8;--s1:#d9822b;--s2:#3f9c5a;--s3:#b8433f;--s4:#7a5bb8;--line:#d0d5dd}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);margin:2rem auto;max-width:60rem;padding:0 1rem}
h1{font-size:1.5rem;margin:0 0 .25rem}
h2{font-size:1.1rem;margin:1.75rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
.sub,.notes,footer{color:var(--dim)}
p.text{margin:.25rem 0}
table{border-collapse:collapse;margin:.5rem 0;font-variant-numeric:tabular-nums}
th,td{padding:.2rem .6rem;text-align:left;border-bottom:1px solid var(--line);vertical-align:middle}
th{font-weight:600;color:var(--dim)}
td.r,th.r{text-align:right}
svg{display:block;overflow:visible}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;fill:var(--fg)}
.bar{fill:var(--bar)}
.series0{fill:var(--s0)}.series1{fill:var(--s1)}.series2{fill:var(--s2)}.series3{fill:var(--s3)}.series4{fill:var(--s4)}
.axis{stroke:var(--dim);stroke-width:1}
.notes{font-size:.85rem;margin-top:2rem}
@media print{body{margin:0;max-width:none}h2{break-after:avoid}table,svg{break-inside:avoid}.bar,.series0,.series1,.series2,.series3,.series4{print-color-adjust:exact;-webkit-print-color-adjust:exact}}
`;

/** The whole page. `at` is when the report was made, shown in the footer in the report's zone. */
export function renderHtml(view: ReportView, at: number, zone: Zone): string {
  const made = `${wallTime(zone, at)} ${zoneText(zone, at)}`;
  const body = view.sections.map(section).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(view.title)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>${esc(view.title)}</h1>
${
  view.subtitle
    ? view.subtitle
        .split('\n')
        .map((l) => `<p class="sub">${esc(l)}</p>`)
        .join('')
    : ''
}
${body}
<div class="notes">${view.notes.map((n) => `<p>${esc(n)}</p>`).join('')}</div>
<footer><p>Made by svc on ${esc(made)}.</p></footer>
</body>
</html>
`;
}

function section(s: Section): string {
  switch (s.kind) {
    case 'heading':
      return `<h2>${esc(s.text)}</h2>`;
    case 'text':
      return s.lines.map((l) => `<p class="text">${esc(l)}</p>`).join('\n');
    case 'table':
      return table(s);
    case 'funnel':
      return funnel(s.stages, s.max);
    case 'columns':
      return columns(s.series, s.labels);
  }
}

function barSvg(value: number | null | undefined, max: number, title: string): string {
  const w = scale(value ?? 0, max, BAR_PX);
  const rect =
    w > 0 ? `<rect class="bar" x="0" y="2" width="${w}" height="12" data-value="${esc(value)}"><title>${esc(title)}</title></rect>` : '';
  return `<svg width="${BAR_PX}" height="16" viewBox="0 0 ${BAR_PX} 16" role="img" aria-label="${esc(title)}">${rect}</svg>`;
}

function table(s: Extract<Section, { kind: 'table' }>): string {
  const head =
    s.columns.map((c) => `<th${c.align === 'right' ? ' class="r"' : ''}>${esc(c.title)}</th>`).join('') +
    (s.bar ? `<th>${esc(s.bar.title)}</th>` : '');
  const rows = s.rows.map((r, i) => {
    const cells = r.map((c, k) => `<td${s.columns[k]?.align === 'right' ? ' class="r"' : ''}>${esc(c)}</td>`).join('');
    const bar = s.bar ? `<td>${barSvg(s.bar.values[i], s.bar.max, `${r[0] ?? ''}: ${s.bar.values[i] ?? '–'}`)}</td>` : '';
    return `<tr>${cells}${bar}</tr>`;
  });
  return `<table class="${s.bar ? 'chart' : 'plain'}"><thead><tr>${head}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
}

function funnel(stages: Stage[], max: number): string {
  const labelW = 80;
  const h = 22;
  const width = labelW + BAR_PX + 110;
  const rows = stages.map((st, i) => {
    const y = i * h;
    const w = scale(st.count, max, BAR_PX);
    const rect =
      w > 0
        ? `<rect class="bar" x="${labelW}" y="${y + 4}" width="${w}" height="14" data-value="${st.count}"><title>${esc(`${st.label}: ${st.count}`)}</title></rect>`
        : '';
    return `<text x="0" y="${y + 15}">${esc(st.label)}</text>${rect}<text x="${labelW + w + 6}" y="${y + 15}">${st.count}${st.rate ? ` · ${esc(st.rate)}` : ''}</text>`;
  });
  return `<svg class="funnel" width="${width}" height="${stages.length * h}" viewBox="0 0 ${width} ${stages.length * h}" role="img" aria-label="funnel">${rows.join('')}</svg>`;
}

function columns(series: Series[], labels: string[]): string {
  const max = Math.max(0, ...series.flatMap((s) => s.values));
  const groupW = series.length * COL_PX + 10;
  const left = 36;
  const top = 10;
  const width = left + labels.length * groupW + 10;
  const height = top + CHART_PX + 44;
  const parts: string[] = [];
  parts.push(`<line class="axis" x1="${left}" y1="${top + CHART_PX}" x2="${width}" y2="${top + CHART_PX}"/>`);
  parts.push(
    `<text x="${left - 6}" y="${top + 4}" text-anchor="end">${max}</text><text x="${left - 6}" y="${top + CHART_PX}" text-anchor="end">0</text>`,
  );
  labels.forEach((label, i) => {
    const gx = left + i * groupW + 5;
    series.forEach((s, k) => {
      const v = s.values[i] ?? 0;
      const hpx = scale(v, max, CHART_PX);
      if (hpx > 0)
        parts.push(
          `<rect class="bar series${k}" x="${gx + k * COL_PX}" y="${Math.round((top + CHART_PX - hpx) * 100) / 100}" width="${COL_PX - 2}" height="${hpx}" data-value="${v}" data-series="${esc(s.name)}"><title>${esc(`${label} ${s.name}: ${v}`)}</title></rect>`,
        );
    });
    parts.push(`<text x="${gx + (series.length * COL_PX) / 2}" y="${top + CHART_PX + 16}" text-anchor="middle">${esc(label)}</text>`);
  });
  let lx = left;
  series.forEach((s, k) => {
    parts.push(
      `<rect class="series${k}" x="${lx}" y="${top + CHART_PX + 28}" width="10" height="10"/><text x="${lx + 14}" y="${top + CHART_PX + 37}">${esc(s.name)}</text>`,
    );
    lx += 24 + s.name.length * 8;
  });
  return `<svg class="columns" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="column chart">${parts.join('')}</svg>`;
}
