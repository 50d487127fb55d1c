/**
 * What every report shares: its flags, a client that counts the requests it makes, paging with
 * sparse fieldsets, and the output: numbers through the output layer (`-o json|csv|ndjson`), the
 * drawing on the terminal (`table`, the default on a TTY), or a self-contained HTML page.
 */
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ApiRequest } from '../../api/client.js';
import type { ResourceObject } from '../../api/jsonapi.js';
import { paginate, MAX_PAGE_SIZE } from '../../api/paginate.js';
import { buildQuery, type ListQuery } from '../../api/query.js';
import type { Context } from '../../runtime/context.js';
import { LocalIoError, UsageError } from '../../errors.js';
import { notAFile, writeFileAtomic } from '../../private-file.js';
import { writeOut } from '../../output/io.js';
import { checkBom, printValue, writeBom } from '../shared/output.js';
import { parseWholeNumber } from '../../runtime/option-parsers.js';
import type { ChartStyle, Role } from './chart.js';
import type { ReportView } from './model.js';
import { resolveZone, type Zone } from '../../time-zone.js';

/** Options every report takes. */
export interface ReportFlags {
  filter?: string[];
  sort?: string;
  limit?: string;
  by?: string;
  html?: string;
  open?: boolean;
  ascii?: boolean;
  /** `--tz`: the zone of days and dates (src/time-zone.ts). */
  tz?: string;
  /** `--bom`: CSV output starts with a UTF-8 byte order mark (Excel). */
  bom?: boolean;
}

/** A client for one report: GETs that are counted (the report says how many it made). */
export interface Fetcher {
  /** Requests made so far. */
  readonly count: number;
  /** One resource. */
  get(path: string, query: ListQuery): Promise<{ data: ResourceObject; included: ResourceObject[] }>;
  /** One page of a collection as the service sent it (for `meta.count`). */
  page(path: string, query: ListQuery): Promise<{ data: ResourceObject[]; meta: Record<string, unknown> }>;
  /** Records of a collection (pages of up to 1,000), with what they include. */
  list(path: string, query: ListQuery, opts?: { limit?: number }): Promise<{ data: ResourceObject[]; included: ResourceObject[] }>;
}

/** A counting fetcher over the context's API client. */
export async function fetcher(ctx: Context): Promise<Fetcher> {
  const api = await ctx.api();
  let count = 0;
  const counted = {
    baseUrl: api.baseUrl,
    resolve: (p: string) => api.resolve(p),
    request: (r: ApiRequest) => {
      count++;
      return api.request(r);
    },
  };
  return {
    get count() {
      return count;
    },
    async get(p, query) {
      const res = await counted.request({ method: 'GET', path: p, query: buildQuery(query).slice(1) });
      const data = res.doc.data;
      if (!data || Array.isArray(data)) throw new Error(`GET ${p}: expected one resource`);
      return { data, included: res.doc.included ?? [] };
    },
    async page(p, query) {
      const res = await counted.request({ method: 'GET', path: p, query: buildQuery(query).slice(1) });
      const data = res.doc.data;
      return { data: Array.isArray(data) ? data : [], meta: (res.doc.meta ?? {}) as Record<string, unknown> };
    },
    async list(p, query, opts = {}) {
      const data: ResourceObject[] = [];
      const included: ResourceObject[] = [];
      const all = opts.limit === undefined;
      for await (const page of paginate(counted, p, {
        query,
        all,
        limit: opts.limit,
        pageSize: Math.min(opts.limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE),
        warn: (m) => ctx.warn(m),
        signal: ctx.signal,
      })) {
        data.push(...page.records);
        included.push(...(page.doc.included ?? []));
      }
      return { data, included };
    },
  };
}

/** Included records by `type:id`. */
export function byKey(list: readonly ResourceObject[]): Map<string, ResourceObject> {
  return new Map(list.map((r) => [`${r.type}:${r.id}`, r]));
}

/** The id a to-one relationship points at, as a string. */
export function relId(r: ResourceObject | undefined, name: string): string | undefined {
  const d = r?.relationships?.[name]?.data;
  return d && !Array.isArray(d) ? String(d.id) : undefined;
}

/** The ids of a to-many relationship's data. */
export function relIds(r: ResourceObject | undefined, name: string): string[] {
  const d = r?.relationships?.[name]?.data;
  return Array.isArray(d) ? d.map((x) => String(x.id)) : [];
}

/** `--limit N` (a positive integer). */
export function parseLimit(v: string | undefined): number | undefined {
  return v === undefined ? undefined : parseWholeNumber(v, '--limit', 1);
}

/** `--by` among `allowed` (the first is the default). */
export function parseBy<T extends string>(v: string | undefined, allowed: readonly T[]): T {
  if (v === undefined) return allowed[0]!;
  const k = v.trim().toLowerCase().replace(/[-_]/g, '') as T;
  if (!allowed.includes(k)) throw new UsageError(`--by ${v}: expected one of ${allowed.join(', ')}`);
  return k;
}

/**
 * Whether the report is drawn on stdout: `-o table` (the default on a terminal), or `--ascii`
 * without `-o` (the drawing in a pipe too: `report sequences --ascii | less`).
 * @throws UsageError for `--ascii` with a machine format (`-o json|csv|ndjson|raw`, `--query`):
 *   they print numbers, not bars; checked before the first request
 */
function drawsChart(ctx: Context, flags: ReportFlags): boolean {
  if (ctx.output === 'table') return true;
  if (flags.ascii !== true) return false;
  if (ctx.globals.output !== undefined)
    throw new UsageError(`--ascii draws the chart; -o ${ctx.output} prints the numbers it is drawn from: leave out one of them`);
  return true;
}

/**
 * Checks the report's output flags before the first request: `--ascii` against `-o` (see
 * {@link drawsChart}), `--bom` against it, and where `--html` writes. `-` is stdout, as everywhere (it wrote a file
 * named `-`), so nothing else may print there and `--open` has no file to open; a name with
 * another extension is refused (`--html s.csv` wrote a page into a .csv without a word).
 * @throws UsageError naming the fix
 */
export function checkReportOutput(ctx: Context, flags: ReportFlags): void {
  drawsChart(ctx, flags);
  checkBom(ctx, flags.bom);
  const file = flags.html;
  if (file === undefined) return;
  if (file === '-') {
    if (flags.open)
      throw new UsageError('--html - writes the page to stdout, which --open cannot open').hint('give --html a file name ending in .html');
    const other =
      flags.ascii === true
        ? '--ascii draws the chart'
        : ctx.globals.output !== undefined
          ? `-o ${ctx.output} prints the numbers`
          : undefined;
    if (other)
      throw new UsageError(`--html - writes the page to stdout, where ${other}: leave out one of them`).hint(
        'or give --html a file name ending in .html',
      );
    return;
  }
  const ext = /\.([^./\\]+)$/.exec(path.basename(file))?.[1];
  if (ext !== undefined && !/^html?$/i.test(ext)) {
    const numbers = ['csv', 'json', 'ndjson'].includes(ext.toLowerCase())
      ? `; the numbers as .${ext}: -o ${ext.toLowerCase()} > ${file}`
      : '';
    throw new UsageError(`--html ${file}: --html writes an HTML page, not .${ext}`).hint(`name the file .html (or .htm)${numbers}`);
  }
  const what = notAFile(file);
  if (what)
    throw new UsageError(`--html ${file}: is ${what}, not a file: the page is written beside it and renamed into place`).hint(
      'give a file path, e.g. --html report.html (or --html - for stdout)',
    );
  // Where it goes, before the report's requests: a missing folder failed after them, exit 1 (a trial).
  const dir = path.dirname(path.resolve(file));
  let folder: Stats | undefined;
  try {
    folder = statSync(dir);
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`--html ${file}: ${folder ? `cannot write in ${dir}` : `no folder ${dir}`}`).hint(
      folder ? 'give a path in a folder you can write' : 'make the folder first, or give another path',
    );
  }
  if (!folder.isDirectory()) throw new UsageError(`--html ${file}: ${dir} is not a folder`).hint('give another path');
}

/**
 * The zone of the report's days and dates: `--tz`, else the machine's (src/time-zone.ts).
 * @throws UsageError for an unknown zone, before the first request
 */
export function reportZone(ctx: Context, flags: ReportFlags): Zone {
  return resolveZone(flags.tz, ctx.env, (m) => ctx.warn(m));
}

/** Bars in ASCII with `--ascii`, NO_COLOR or a dumb terminal; colour only where the IO allows it. */
async function chartStyle(ctx: Context, flags: ReportFlags): Promise<ChartStyle> {
  const ascii = flags.ascii === true || (ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '') || ctx.env.TERM === 'dumb';
  if (ascii || !ctx.io.color) return { ascii };
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  const colours: Record<string, (s: string) => string> = {
    bar: c.cyan,
    dim: c.dim,
    good: c.green,
    bad: c.red,
    head: c.bold,
    series0: c.cyan,
    series1: c.magenta,
    series2: c.yellow,
    series3: c.green,
    series4: c.red,
  };
  return { ascii, paint: (s: string, role: Role) => (colours[role] ?? ((x: string) => x))(s) };
}

/**
 * Writes a report: `rows` through the output layer for json, csv and ndjson (the numbers the
 * chart is drawn from), the drawing for `table`; `--html` writes the page (then stdout gets the
 * numbers or the drawing only when `-o` was given; `--html -` is the page on stdout), `--open`
 * opens it. The page's footer says when it was made in `zone` (else the machine's zone, looked
 * up only for a page: a report without dates needs no zone data, ~25 ms of CPU to load).
 * `csvRows`, when given, are the rows `-o csv` writes instead: a cell that joins a name and its id
 * (`Outbound Enterprise (2)`, the drawing's label) left out for the two columns beside it, which
 * a spreadsheet sorts and looks up by.
 */
export async function emit(
  ctx: Context,
  flags: ReportFlags,
  what: string,
  view: ReportView,
  rows: Record<string, unknown>[],
  f: Fetcher,
  zone?: Zone,
  csvRows?: Record<string, unknown>[],
): Promise<void> {
  const requests = `${f.count} request${f.count === 1 ? '' : 's'}`;
  view.notes.push(`${requests} to the API`);
  let htmlFile = flags.html;
  if (flags.open && !htmlFile) {
    const dir = await fs.mkdtemp(path.join((await import('node:os')).tmpdir(), 'svc-report-'));
    htmlFile = path.join(dir, 'report.html');
  }
  if (htmlFile === '-') {
    const { renderHtml } = await import('./view-html.js');
    await writeOut(ctx.io.stdout, renderHtml(view, ctx.clock.now(), zone ?? reportZone(ctx, flags)));
  } else if (htmlFile) {
    const { renderHtml } = await import('./view-html.js');
    // Owner-only, as every file of svc's that holds the org's data (a prospect's report names them),
    // and renamed into place: writing in place followed a symlink planted at the name, kept an
    // existing file's mode (0644: readable by all) and left half a page on a kill.
    try {
      await writeFileAtomic(htmlFile, renderHtml(view, ctx.clock.now(), zone ?? reportZone(ctx, flags)), 0o600);
    } catch (err) {
      throw new LocalIoError(`cannot write ${htmlFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    ctx.info(`wrote ${htmlFile}`);
    if (flags.open) await openFile(ctx, htmlFile);
  }
  const drawing = drawsChart(ctx, flags);
  const toStdout = !htmlFile || ctx.globals.output !== undefined || flags.ascii === true;
  if (toStdout) {
    if (drawing) {
      const { renderText } = await import('./view-text.js');
      await writeOut(ctx.io.stdout, renderText(view, ctx.io.columns, await chartStyle(ctx, flags)));
    } else {
      await writeBom(ctx, flags.bom);
      const out = ctx.output === 'csv' && csvRows ? csvRows : rows;
      await printValue(ctx, ctx.output === 'raw' && !ctx.shape?.query ? 'json' : ctx.output, out, () => '');
    }
  }
  if (!drawing || !toStdout) ctx.info(`${what}: ${requests}${ctx.globals.verbose ? '' : ' (--verbose shows them)'}`);
}

/** Opens the page in `$BROWSER` when it is set, else in the desktop's default browser. */
async function openFile(ctx: Context, file: string): Promise<void> {
  const { openBrowser } = await import('../shared/open-browser.js');
  if (!(await openBrowser(file, ctx.env))) ctx.warn(`could not start a browser; open ${file} yourself`);
}
