/**
 * `svc dedupe apply FILE --plan` as a person reads it: a cluster a paragraph, its requests one a
 * line with what each does, paths from the API root. `-o ndjson` keeps a line per cluster and
 * `-o json` one document, for scripts (apply.ts writes those).
 */
import { terminalSafe } from '../../output/terminal-text.js';

/** One request of a cluster's preview (apply.ts `preview`). */
interface PreviewRequest {
  step: string;
  method: string;
  url: string;
  body?: { data?: { attributes?: Record<string, unknown> } };
  note?: string;
}

/** A cluster's preview: its survivor, duplicates and the requests the run would send. */
export interface ClusterPreview {
  cluster: number;
  survivor: number;
  duplicates: number[];
  requests: PreviewRequest[];
}

/** What a step does, in words: the fields a fill sets, where a move points, a finish's condition. */
function what(r: PreviewRequest, survivor: number): string {
  if (r.step === 'fill') return `fill ${Object.keys(r.body?.data?.attributes ?? {}).join(', ')}`;
  if (r.step.startsWith('move:')) return `move to ${survivor}`;
  if (r.step.startsWith('finish:')) return 'finish the enrolment, if still active';
  if (r.step.startsWith('tag:')) return `tag duplicate-of-${survivor}`;
  return r.step.startsWith('delete:') ? 'delete' : (r.note ?? '');
}

/**
 * The lines of the human preview.
 * @param root the API root (`…/api/v2`): request paths are shown after it
 */
export function previewLines(type: string, previews: readonly ClusterPreview[], root: string): string[] {
  const rootPath = new URL(root).pathname.replace(/\/$/, '');
  const short = (url: string) => {
    const p = new URL(url).pathname;
    return p.startsWith(`${rootPath}/`) ? p.slice(rootPath.length) : p;
  };
  const out: string[] = [];
  for (const c of previews) {
    out.push(`cluster ${c.cluster}: keep ${type} ${c.survivor}, merge ${c.duplicates.join(', ')} (${c.requests.length} write(s))`);
    const rows = c.requests.map((r) => [r.method, short(r.url), what(r, c.survivor)] as const);
    const mw = Math.max(...rows.map((r) => r[0].length));
    const pw = Math.max(...rows.map((r) => r[1].length));
    for (const [m, p, w] of rows) out.push(`  ${m.padEnd(mw)} ${p.padEnd(pw)}  ${w}`.trimEnd());
  }
  // Each line made safe on its own: a value's newline is shown escaped, the lines stay lines.
  return out.map(terminalSafe);
}
