/** Handler of `svc api`. */
import { STATUS_CODES } from 'node:http';
import type { Context } from '../../runtime/context.js';
import { printDryRun } from '../shared/dry-run.js';
import { ApiError, SvcError, UsageError } from '../../errors.js';
import { PagingGuard } from '../../api/paging-guard.js';
import { endsAtOffsetCap, keysetFilter, largestId } from '../../api/paginate.js';
import { filterParams, parseFilter, type Filter } from '../../api/filter.js';
import type { ApiRequest, ApiResponse } from '../../api/client.js';
import type { ResourceObject } from '../../api/jsonapi.js';
import { grouped } from '../../grouped.js';
import { findResource, resourceByType } from '../../registry/index.js';
import { flattenDocument } from '../../listing/record-text.js';
import { writeOut } from '../../output/io.js';
import { formatResult } from '../../output/shape.js';
import { readDataArgument } from '../shared/read-data.js';
import { recordWriter } from '../shared/output.js';

const METHODS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD']);

/** The options of `svc api`; the last four are gh's and curl's, refused with svc's way. */
export interface ApiFlags {
  method?: string;
  data?: string;
  paginate?: boolean;
  include?: boolean;
  jq?: string;
  header?: string;
  field?: string;
  rawField?: string;
}

/** gh's and curl's flags that svc api has another way for, and the way. */
const OTHER_WAYS: [keyof ApiFlags, string, string][] = [
  ['jq', '--jq', "svc reads JMESPath with --query: --query 'data[].attributes.title' -o raw"],
  ['header', '-H', "svc api sends the headers the API needs itself (token, JSON:API types); -i shows the answer's"],
  ['field', '-f', "put parameters in the path's query (/prospects?filter[title]=CEO) or a body in -d JSON"],
  ['rawField', '-F', "put parameters in the path's query (/prospects?filter[title]=CEO) or a body in -d JSON"],
];

/**
 * The method and path from `[method] <path>` and `-X`: a lone argument that reads as a path is
 * the path, its method GET, or POST with -d (as `gh api`). Usage errors name the way to write it.
 */
function methodAndPath(first: string | undefined, second: string | undefined, flags: ApiFlags): { method: string; path: string } {
  if (first === undefined) throw new UsageError('missing path').hint('svc api GET /prospects (svc api --help)');
  if (second === undefined) {
    // A lone method is a path left out; anything else is the path (`prospects` as `/prospects`).
    if (METHODS.has(first.toUpperCase()))
      throw new UsageError(`missing path after ${first}`).hint(`svc api ${first.toUpperCase()} /prospects`);
    return { method: flags.method ?? (flags.data !== undefined ? 'POST' : 'GET'), path: first };
  }
  if (flags.method !== undefined)
    throw new UsageError(`the method is given twice: ${first} and -X ${flags.method}`).hint(
      `svc api -X ${flags.method} ${second}, or svc api ${first} ${second}`,
    );
  return { method: first, path: second };
}

export async function apiHandler(ctx: Context, first: string | undefined, second: string | undefined, opts: ApiFlags): Promise<void> {
  for (const [key, flag, way] of OTHER_WAYS) if (opts[key] !== undefined) throw new UsageError(`svc api has no ${flag}`).hint(way);
  const { method: methodArg, path: pathArg } = methodAndPath(first, second, opts);
  const method = methodArg.toUpperCase();
  if (!METHODS.has(method)) throw new UsageError(`unknown method "${methodArg}" (use GET, POST, PATCH, PUT, DELETE or HEAD)`);
  if (opts.paginate && method !== 'GET') throw new UsageError('--paginate works with GET only');
  // A body on a GET or HEAD is sent by HTTP clients but read by no server (curl switches to POST,
  // gh to query fields): it was sent, and ignored, without a word (a trial).
  if (opts.data !== undefined && (method === 'GET' || method === 'HEAD'))
    throw new UsageError(`-d sends a body, which a ${method} does not have`).hint(
      "put parameters in the path's query (/prospects?filter[title]=CEO), or use POST, PATCH or PUT",
    );
  // Fields name a record's; `svc api` prints documents: they were ignored without a word (a trial).
  if (ctx.globals.jsonFields)
    throw new UsageError('--json FIELDS picks fields of records; svc api prints the documents as sent').hint(
      "pick with --query (JMESPath), e.g. --query 'data[].{id: id, title: attributes.title}'",
    );
  const body = opts.data !== undefined ? await readDataArgument(ctx, opts.data) : undefined;
  // Documents as sent by default (`-o raw`), a query applying to the document; any other -o
  // prints the records, in that format.
  const query = ctx.shape?.query;
  const format = ctx.globals.output ?? 'raw';
  // An -o of its own: `--query` alone implies -o json, and meant the document (it printed null, a review).
  const records = ctx.globals.outputAsked === true && format !== 'raw';
  // Each page's header block between the records of one array or table would break it.
  if (opts.include && opts.paginate && records)
    throw new UsageError(`--include with --paginate prints each page as sent, not -o ${format}`).hint(
      'drop -o to see every page with its headers, or drop --include',
    );
  const api = await ctx.api();
  const url = api.resolve(pathArg);
  // An error's answer is what the request got, as gh api prints it: its body on stdout (as
  // received, or what --query picks of it; not with -o FORMAT, whose records it has none of),
  // then the error on stderr with its exit code. The body went to stderr only, so `svc api … |
  // jq .errors` read nothing (a trial).
  /** An answer's body as sent, or what --query picks of its document. */
  const printAnswer = (text: string, doc: unknown) =>
    writeOut(
      ctx.io.stdout,
      query ? formatResult(query.search(doc), ctx.globals.output === 'raw') : text.endsWith('\n') ? text : `${text}\n`,
    );
  const printErrorAnswer = async (err: ApiError) => {
    if (opts.include && err.headers) await writeOut(ctx.io.stdout, headerBlock(err.status, err.headers));
    const text = err.body;
    if (records || text === undefined || !text.trim()) return;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      if (query) return;
    }
    await printAnswer(text, doc);
  };
  // With -i, each answer's status line and headers go first, an error's too (its message then
  // goes to stderr as without -i): the rate budget's headers, a create's Location, a 404's.
  const send = async (req: ApiRequest): Promise<ApiResponse> => {
    let res: ApiResponse;
    try {
      res = await api.request(req);
    } catch (err) {
      if (err instanceof ApiError) await printErrorAnswer(err);
      throw err;
    }
    if (opts.include) await writeOut(ctx.io.stdout, headerBlock(res.status, res.headers));
    return res;
  };
  // A GET too: the request printed, nothing sent (it was sent and answered, a trial). With
  // --paginate, its first page.
  if (ctx.globals.dryRun) {
    return printDryRun(ctx, [{ method, url, body }], opts.paginate ? ['the first page; links.next would be followed'] : undefined);
  }
  // Records nest along the request's include paths, as `list` and `get` print them (a review).
  const included = url.searchParams.get('include')?.split(',');
  if (!opts.paginate) {
    const res = await send({ method, path: url.toString(), body });
    if (res.status >= 300) {
      const where = typeof res.headers['location'] === 'string' ? ` to ${res.headers['location']}` : '';
      throw new ApiError(res.status, [
        { title: 'bad response', detail: `server answered ${res.status} (a redirect${where}, not followed)` },
      ]);
    }
    // Nothing on stdout, but a script's author should know it was an empty answer, not a lost one.
    // (With -i the status line says it.)
    if (!res.text.trim()) {
      if (!opts.include) ctx.info(`HTTP ${res.status}: empty answer${res.status === 204 ? ' (no content)' : ''}`);
    } else if (records && res.doc.data !== undefined) {
      // One page of records, as --paginate prints each: `-o ndjson --query` gave a pretty
      // document of nulls and `-o csv` the JSON as sent (a trial). One resource prints as `get`
      // prints it (an object, not a list of one), and a table has the type's columns (it had
      // only `id`), as `list` and `get` print them (a trial).
      const single = !Array.isArray(res.doc.data);
      const writer = recordWriter(ctx, { format, io: ctx.io, single, ...columnsOf(res.doc.data) });
      await writer.page(res.doc, flattenDocument(res.doc, included));
      await writer.end();
    } else await printAnswer(res.text, res.doc);
    return;
  }
  // Paginated: raw documents (one per line) by default, a query applying to each as the server
  // sent it (one result per page), as without --paginate; or records in the chosen format,
  // shaped as `list` shapes them (a query over all of them with -o json, each with -o ndjson: it
  // ran on each page's document under -o json, `length(@)` giving 3, 3, 3, a trial).
  const writer =
    query && !records
      ? {
          page: async (doc: unknown) => writeOut(ctx.io.stdout, formatResult(query.search(doc), ctx.globals.output === 'raw')),
          end: async () => {},
        }
      : recordWriter(ctx, { format, io: ctx.io, ...columnsOf(undefined, url) });
  const guard = new PagingGuard();
  let next: URL | undefined = url;
  let total = 0;
  while (next) {
    guard.requested(next);
    const res = await send({ method: 'GET', path: next.toString() });
    const data = Array.isArray(res.doc.data) ? res.doc.data : undefined;
    if (data) guard.arrived(next, data);
    await writer.page(res.doc, flattenDocument(res.doc, included));
    total += data?.length ?? 0;
    // The service links no page past its offset cap (and refuses one): raw paging ends there,
    // with records left, as an error after what arrived (a 422 for the link it followed, a trial).
    if (data && endsAtOffsetCap(next, res.doc, data.length)) {
      await writer.end();
      throw new SvcError(offsetCapMessage(api.baseUrl, next, data, total), 1);
    }
    const link = res.doc.links?.next;
    next = link ? new URL(link, api.baseUrl) : undefined;
    if (next && next.origin !== api.baseUrl.origin) {
      ctx.warn(`not following links.next to another host (${next.origin})`);
      break;
    }
    if (next) guard.follow(next);
  }
  await writer.end();
}

/**
 * The table columns of the records' type, from the document's data or, before any page, the
 * path (`/prospects?...`): the type's default columns, as `list` shows them.
 */
function columnsOf(data: unknown, url?: URL): { defaultColumns?: readonly string[] } {
  const first = Array.isArray(data) ? data[0] : data;
  const type =
    first && typeof first === 'object' && typeof (first as { type?: unknown }).type === 'string'
      ? (first as { type: string }).type
      : undefined;
  const rt =
    type !== undefined ? resourceByType(type) : url ? findResource(url.pathname.split('/').filter(Boolean).at(-1) ?? '') : undefined;
  return rt ? { defaultColumns: rt.defaultColumns } : {};
}

/** An answer's status line and headers as received, then a blank line (as `gh api -i` and `curl -i` print them). */
function headerBlock(status: number, headers: ApiResponse['headers']): string {
  let out = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd() + '\n';
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) out += `${name}: ${one}\n`;
  }
  return out + '\n';
}

/** The request's own filter on id, in either filter syntax; undefined when it has none (or one not read here). */
function userIdFilter(q: URLSearchParams): Filter | undefined {
  const plain = q.get('filter[id]');
  if (plain !== null) {
    try {
      return parseFilter(`id=${plain}`);
    } catch {
      return undefined;
    }
  }
  const list = q.getAll('filter[id][]');
  if (list.length) return { path: ['id'], kind: 'list', values: list, escaped: false };
  const from = q.get('filter[id][gte]') ?? undefined;
  const to = q.get('filter[id][lte]') ?? undefined;
  return from !== undefined || to !== undefined ? { path: ['id'], kind: 'range', values: [], from, to, escaped: false } : undefined;
}

/**
 * What `list --all` says at the cap, for raw paging: it follows the server's links and cannot
 * reorder or go on by id itself, so the request that would (or the resource command that does).
 */
function offsetCapMessage(base: URL, at: URL, data: readonly ResourceObject[], total: number): string {
  const q = at.searchParams;
  const last = largestId(data);
  let onward = 'narrow the filter to list more';
  if (q.get('sort') !== 'id') onward = 'ask with sort=id and page on by filter[id] past the last id, or narrow the filter, to list more';
  else if (last !== undefined) {
    // The way on within the user's own filter on id, as list --all's keyset pages (`5..11500`
    // went on as `11005..inf`, a review).
    const next = keysetFilter(String(BigInt(last) + 1n), userIdFilter(q));
    const ask = filterParams(next, q.get('newFilterSyntax') === 'true')
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    onward = `page on from ${ask}, or narrow the filter, to list more`;
  }
  const rt = findResource(at.pathname.slice(base.pathname.length).replace(/^\/+|\/+$/g, ''));
  const command = rt && last !== undefined ? ` (svc ${rt.command} list --all goes on by id itself)` : '';
  return `stopped at the service's offset cap (${grouped(total)} records): svc api follows links.next, which cannot go past it; ${onward}${command}`;
}
