/**
 * Paging through a collection (README.md, "Pagination"): pages of up to 1,000, `links.next` followed
 * as given but pinned to the API's origin, never `page[offset]` above 10,000, and past that cap an
 * id keyset (`sort=id`, `filter[id]=<last+1>..inf`) so that `--all` has no ceiling.
 *
 * The next page is requested as soon as the current one has arrived, while the caller writes the
 * current one: a long listing costs the larger of the two, not their sum.
 *
 * A server whose paging goes round in circles (a `links.next` back to a page already fetched, a
 * page of records already seen) ends the listing with an error rather than never ending it.
 */
import { ApiError } from '../errors.js';
import type { ApiClient, ApiResponse } from './client.js';
import type { JsonApiDocument, ResourceObject } from './jsonapi.js';
import { parseCollection } from './page-parse.js';
import type { PageBuffers } from './page-buffers.js';
import { PagingGuard } from './paging-guard.js';
import { encodeQuery, queryPairs, type ListQuery } from './query.js';

/** The service's caps. */
export const MAX_PAGE_SIZE = 1000;
const MAX_OFFSET = 10_000;
export const DEFAULT_PAGE_SIZE = 50;

/** What paging needs of a client: an ApiClient, or a wrapper that paces its requests (bulk runs). */
export type PageClient = Pick<ApiClient, 'request' | 'resolve' | 'baseUrl'>;

/** Options of {@link paginate}. */
interface PaginateOptions {
  /** Filters, sort, include, fields; page parameters are set here. */
  query: ListQuery;
  /** Records wanted. @default 50 unless `all` */
  limit?: number;
  /** Every record. */
  all?: boolean;
  /** Page size asked for; else chosen from the limit, up to 1,000. */
  pageSize?: number;
  /** Told about truncations and fallbacks. */
  warn?: (message: string) => void;
  signal?: AbortSignal;
  /**
   * Where pages are read, used over and over (page-buffers.ts): for a caller that calls each
   * page's `release` once done with its records, and keeps none of them.
   */
  buffers?: PageBuffers;
  /**
   * Lists in id order from this id (inclusive, digits) by keyset on every page (`sort=id`,
   * `filter[id]=<from>..inf`, no offsets): a listing that can stop after any page and resume
   * after the largest id it has (`svc sync`). Not with a filter or sort of the caller's on id.
   */
  keysetFrom?: string;
}

/** One page as received, with its records trimmed to the limit. */
export interface Page {
  doc: JsonApiDocument;
  records: ResourceObject[];
  /**
   * With `buffers`: the page's memory is handed to a later page. Its records (and the document's
   * resources) must not be read after it; `doc.links` and `doc.meta` are plain values and may.
   */
  release(): void;
}

/** A request on its way: the page it asks for and its (already guarded) outcome. */
interface InFlight {
  want: number;
  url: URL;
  /** Status and document only: the response text (5 MB for a page of big records) is let go at once. */
  result: Promise<Pick<ApiResponse, 'status' | 'doc' | 'release'>>;
  abort: AbortController;
}

// Performance machinery (src/README.md, Build): next page requested as soon as the current one arrives.
/**
 * Yields pages until the limit is reached or the collection ends.
 * Requests: ⌈records / page size⌉, plus one when the last page is exactly full and the server
 * still links a next page.
 */
export async function* paginate(client: PageClient, path: string, opts: PaginateOptions): AsyncGenerator<Page> {
  const max = opts.all ? Infinity : (opts.limit ?? DEFAULT_PAGE_SIZE);
  let size = Math.max(1, Math.min(opts.pageSize ?? (Number.isFinite(max) ? max : MAX_PAGE_SIZE), MAX_PAGE_SIZE));
  const userSort = opts.query.sort ?? [];
  const userFiltersId = (opts.query.filters ?? []).some((f) => f.path.length === 1 && f.path[0] === 'id');
  // Going past the offset cap needs id order from the very first page.
  const keysetOnly = opts.keysetFrom !== undefined;
  const mayPassCap = max > MAX_OFFSET + size || keysetOnly;
  const keysetable = !userFiltersId && (userSort.length === 0 || (userSort.length === 1 && userSort[0] === 'id'));
  const baseQuery: ListQuery = { ...opts.query };
  if (mayPassCap && keysetable && userSort.length === 0) baseQuery.sort = ['id'];

  // Where the next page starts: records handed out, offset, keyset start, or the server's link.
  let fetched = 0;
  let offset = 0;
  /** The id listing continues from, as digits (ids may be past 2^53: counted with BigInt). */
  let keysetFrom: string | undefined = keysetOnly && keysetable ? opts.keysetFrom : undefined;
  let next: URL | undefined;
  let first = true;
  const guard = new PagingGuard();
  const buffers = opts.buffers;

  const send = (): InFlight => {
    const want = Math.min(size, max - fetched);
    let url: URL;
    if (next) {
      url = new URL(next);
      setPageLimit(url, want);
    } else {
      const q: ListQuery = { ...baseQuery, pageLimit: want, pageOffset: offset };
      if (!first) delete q.count;
      if (keysetFrom !== undefined) {
        q.filters = [...(q.filters ?? []), { path: ['id'], kind: 'range', values: [], from: keysetFrom, escaped: false }];
      }
      url = client.resolve(path);
      url.search = encodeQuery(queryPairs(q));
    }
    guard.requested(url);
    const abort = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, abort.signal]) : abort.signal;
    const result = client
      .request({ method: 'GET', path: url.toString(), signal, retryServerErrors: want === 1, parse: parseCollection, buffers })
      .then((r) => ({ status: r.status, doc: r.doc, release: r.release }));
    // A prefetch the caller never collects (it stopped early, or failed writing) must not end
    // the process with an unhandled rejection; its error is seen when it is awaited.
    result.catch(() => {});
    return { want, url, result, abort };
  };

  let pending: InFlight | undefined;
  try {
    while (fetched < max) {
      const inflight = pending ?? send();
      pending = undefined;
      let res: Pick<ApiResponse, 'status' | 'doc' | 'release'>;
      try {
        res = await inflight.result;
      } catch (err) {
        // Big pages (long mailing bodies) can make a gateway give up — a 502, or a 504 when it
        // timed out waiting: halve and ask again.
        if (err instanceof ApiError && (err.status === 502 || err.status === 504) && inflight.want > 1) {
          size = Math.max(1, Math.floor(inflight.want / 2));
          opts.warn?.(`page of ${inflight.want} answered ${err.status}; retrying with pages of ${size}`);
          next = undefined;
          continue;
        }
        throw err;
      }
      first = false;
      const data = res.doc.data;
      if (!Array.isArray(data)) {
        throw new ApiError(res.status, [{ title: 'bad response', detail: 'collection response has no data array' }]);
      }
      guard.arrived(inflight.url, data);
      const page: Page = {
        doc: res.doc,
        records: data.length > max - fetched ? data.slice(0, max - fetched) : data,
        release: res.release ?? noRelease,
      };
      fetched += page.records.length;
      offset += data.length;
      let more = false;
      // A next link that cannot be followed ends the listing with an error, after the records
      // that did arrive.
      let stop: unknown;
      try {
        more = data.length > 0 && fetched < max && advance(res.doc, data, inflight.want);
      } catch (err) {
        stop = err;
      }
      if (!more) {
        yield page;
        if (stop) throw stop;
        return;
      }
      pending = send();
      yield page;
    }
  } finally {
    pending?.abort.abort();
  }

  /** Moves the start of the next page past `data`; false when the collection has ended. */
  function advance(doc: JsonApiDocument, data: ResourceObject[], want: number): boolean {
    const link = doc.links?.next;
    if (!link) {
      // A server that sends no links at all gets the next offset computed; one that sends links
      // without `next` has said this was the last page.
      if (doc.links || data.length < want) return false;
      next = undefined;
    } else {
      next = pinToOrigin(client, link);
      guard.follow(next);
      const linkOffset = Number(next.searchParams.get('page[offset]') ?? offset);
      if (Number.isFinite(linkOffset)) offset = linkOffset;
    }
    if (keysetFrom !== undefined && keysetOnly) {
      // Past the largest id of the page, whatever order the server sent it in.
      keysetFrom = nextIdAfter(data) ?? keysetFrom;
      offset = 0;
      next = undefined;
      return true;
    }
    if (offset > MAX_OFFSET) {
      if (!keysetable) {
        opts.warn?.(`stopped at the service's offset cap (${MAX_OFFSET + size} records): sort by id, or narrow the filter, to list more`);
        return false;
      }
      const lastId = String(data[data.length - 1]!.id);
      if (!/^\d+$/.test(lastId)) {
        opts.warn?.('stopped at the offset cap: record ids are not integers, so listing cannot continue by id');
        return false;
      }
      keysetFrom = String(BigInt(lastId) + 1n);
      offset = 0;
      next = undefined;
    }
    return true;
  }
}

function noRelease(): void {}

/** One past the largest integer id of a page, as digits; undefined when an id is not an integer. */
export function nextIdAfter(data: readonly ResourceObject[]): string | undefined {
  let max = -1n;
  for (const r of data) {
    const id = String(r.id);
    if (!/^\d+$/.test(id)) return undefined;
    const n = BigInt(id);
    if (n > max) max = n;
  }
  return max < 0n ? undefined : String(max + 1n);
}

function setPageLimit(url: URL, n: number): void {
  if (url.searchParams.has('page[size]')) url.searchParams.set('page[size]', String(n));
  else url.searchParams.set('page[limit]', String(n));
}

/** A `links.next` from the server, refused when it points anywhere but the API's own origin. */
function pinToOrigin(client: PageClient, link: string): URL {
  const url = new URL(link, client.baseUrl);
  if (url.origin !== client.baseUrl.origin) {
    throw new ApiError(200, [
      { title: 'unsafe next link', detail: `server's links.next points to ${url.origin}, not ${client.baseUrl.origin}; not followed` },
    ]);
  }
  return url;
}
