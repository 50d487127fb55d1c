/**
 * Paging through a collection (README.md, "Pagination"): pages of up to 1,000, `links.next` followed
 * as given but pinned to the API's origin, never `page[offset]` above 10,000, and past that cap an
 * id keyset (`sort=id`, `filter[id]=<last+1>..inf`, within the caller's own filter on id) so that
 * `--all` has no ceiling.
 *
 * The next page is requested as soon as the current one has arrived, while the caller writes the
 * current one: a long listing costs the larger of the two, not their sum.
 *
 * In keyset mode (`export`) every page goes by id from the start, after a known id if given.
 * With a page reader (a listing's: listing/pages.ts), paging owns each page's memory: it hands a
 * page back to the reader when the caller asks for the next one, so no caller releases anything.
 *
 * A server whose paging goes round in circles (a `links.next` back to a page already fetched, a
 * page of records already seen) ends the listing with an error rather than never ending it.
 */
import { ApiError } from '../errors.js';
import { grouped } from '../grouped.js';
import type { Filter } from './filter.js';
import type { ApiClient, ApiResponse, BodyReader } from './client.js';
import type { JsonApiDocument, ResourceObject } from './jsonapi.js';
import { PagingGuard } from './paging-guard.js';
import { encodeQuery, queryPairs, type ListQuery } from './query.js';

/** The service's caps. */
export const MAX_PAGE_SIZE = 1000;
const MAX_OFFSET = 10_000;
export const DEFAULT_PAGE_SIZE = 50;

/** What paging needs of a client: an ApiClient, or a wrapper that paces its requests (bulk runs). */
export type PageClient = Pick<ApiClient, 'request' | 'resolve' | 'baseUrl'>;

/** Options of {@link paginate}. */
export interface PaginateOptions {
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
  /**
   * Told, instead of `warn`, that the listing stopped at the service's offset cap with records
   * left (a sort other than id, or ids that are not integers): a listing asked for them all fails.
   */
  capped?: (message: string) => void;
  signal?: AbortSignal;
  /**
   * Page by id from the first page (`sort=id`, `filter[id]` from the id after the last one
   * received), never by offset or by the server's links: no ceiling, and a listing can continue
   * after a known id (`after`, its digits). A filter on id in the query bounds the pages.
   */
  keyset?: { after?: string | undefined };
  /**
   * How pages are read and parsed (a listing's: listing/pages.ts); else JSON.parse. Its
   * `release` gets a page's body back when the caller asks for the next page (or stops).
   */
  reader?: PageReader;
}

/** A {@link BodyReader} whose memory paging hands back once the caller is done with a page. */
export interface PageReader extends BodyReader {
  /** The body of a page the caller is done with: its records are not read again. */
  release?(body: Buffer): void;
}

/** One page as received, with its records trimmed to the limit. */
export interface Page {
  doc: JsonApiDocument;
  /**
   * With a `reader` that releases pages: valid until the caller asks for the next page (its
   * memory then goes to a later page); `doc.links` and `doc.meta` are plain values and stay.
   */
  records: ResourceObject[];
}

/** A request on its way: the page it asks for and its (already guarded) outcome. */
interface InFlight {
  want: number;
  url: URL;
  /** Status and document only: the response text (5 MB for a page of big records) is let go at once. */
  result: Promise<Pick<ApiResponse, 'status' | 'doc' | 'body'>>;
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
  // Going past the offset cap needs id order from the very first page.
  const mayPassCap = max > MAX_OFFSET + size;
  const keysetable = userSort.length === 0 || (userSort.length === 1 && userSort[0] === 'id');
  const baseQuery: ListQuery = { ...opts.query };
  if (mayPassCap && keysetable && userSort.length === 0) baseQuery.sort = ['id'];
  // The caller's filter on id, once paging goes by id, is sent within the keyset's own
  // (keysetFilter): two filters on id in one request cannot be sent, and a listing filtered on
  // id stopped at the cap, told to sort by id when it did (a trial).
  const byId = opts.keyset !== undefined;
  const userIdFilter = opts.query.filters?.find(isIdFilter);
  const otherFilters = (opts.query.filters ?? []).filter((f) => f !== userIdFilter);
  if (byId) {
    baseQuery.sort = ['id'];
    baseQuery.filters = otherFilters;
  }

  // Where the next page starts: records handed out, offset, keyset start, or the server's link.
  let fetched = 0;
  let offset = 0;
  /** The id listing continues from, as digits (ids may be past 2^53: counted with BigInt). */
  let keysetFrom: string | undefined = opts.keyset?.after !== undefined ? String(BigInt(opts.keyset.after) + 1n) : undefined;
  let next: URL | undefined;
  let first = true;
  const guard = new PagingGuard();
  const reader = opts.reader;
  /** The body of the page last handed out: released when the caller comes back for more. */
  let held: Buffer | undefined;
  const release = () => {
    if (held) reader?.release?.(held);
    held = undefined;
  };

  const send = (): InFlight => {
    const want = Math.min(size, max - fetched);
    let url: URL;
    if (next) {
      url = new URL(next);
      setPageLimit(url, want);
    } else {
      const q: ListQuery = { ...baseQuery, pageLimit: want, pageOffset: offset };
      if (!first) delete q.count;
      if (byId || keysetFrom !== undefined) q.filters = [...otherFilters, keysetFilter(keysetFrom, userIdFilter)];
      url = client.resolve(path);
      url.search = encodeQuery(queryPairs(q));
    }
    guard.requested(url);
    const abort = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, abort.signal]) : abort.signal;
    const result = client
      .request({ method: 'GET', path: url.toString(), signal, retryServerErrors: want === 1, reader })
      .then((r) => ({ status: r.status, doc: r.doc, body: r.body }));
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
      let res: Pick<ApiResponse, 'status' | 'doc' | 'body'>;
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
      };
      held = res.body;
      fetched += page.records.length;
      offset += data.length;
      let more = false;
      // A next link that cannot be followed ends the listing with an error, after the records
      // that did arrive.
      let stop: unknown;
      try {
        more = data.length > 0 && fetched < max && advance(res.doc, data, inflight.want, inflight.url);
      } catch (err) {
        stop = err;
      }
      if (!more) {
        yield page;
        release();
        if (stop) throw stop;
        return;
      }
      pending = send();
      yield page;
      release();
    }
  } finally {
    pending?.abort.abort();
    release();
  }

  /** Moves the start of the next page past `data`; false when the collection has ended. */
  function advance(doc: JsonApiDocument, data: ResourceObject[], want: number, url: URL): boolean {
    const link = doc.links?.next;
    if (!link) {
      // A server that sends no links at all gets the next offset computed; one that sends links
      // without `next` has said this was the last page, unless the next would start past the cap.
      if (data.length < want || (doc.links && !endsAtOffsetCap(url, doc, data.length))) return false;
      next = undefined;
    } else if (!byId) {
      next = pinToOrigin(client, link);
      guard.follow(next);
      const linkOffset = Number(next.searchParams.get('page[offset]') ?? offset);
      if (Number.isFinite(linkOffset)) offset = linkOffset;
    }
    if (byId || offset > MAX_OFFSET) {
      if (!keysetable && !byId) {
        (opts.capped ?? opts.warn)?.(
          `stopped at the service's offset cap (${grouped(MAX_OFFSET + size)} records): sort by id, or narrow the filter, to list more`,
        );
        return false;
      }
      // The largest id of the page, not its last: a page that comes back unsorted must not send
      // the listing back over records it has had.
      const lastId = largestId(data);
      if (lastId === undefined) {
        ((byId ? undefined : opts.capped) ?? opts.warn)?.(
          `stopped${byId ? '' : ' at the offset cap'}: record ids are not integers, so listing cannot continue by id`,
        );
        return false;
      }
      keysetFrom = String(BigInt(lastId) + 1n);
      offset = 0;
      next = undefined;
    }
    return true;
  }
}

/**
 * Whether paging by offset from the page at `url`, which brought `received` records, stops at the
 * service's offset cap rather than at the end of the collection: its `links.next` asks for an
 * offset above 10,000, which the service refuses, or it has none though the page was full and the
 * next would start past 10,000 (links are given "where applicable": the service links no page it
 * would refuse), unless its `links.last` is this very page.
 */
export function endsAtOffsetCap(url: URL, doc: JsonApiDocument, received: number): boolean {
  const offsetOf = (u: string | URL) => Number(new URL(u, url).searchParams.get('page[offset]') ?? 0);
  const link = doc.links?.next;
  if (link) return offsetOf(link) > MAX_OFFSET;
  const size = Number(url.searchParams.get('page[limit]') ?? url.searchParams.get('page[size]') ?? DEFAULT_PAGE_SIZE);
  const at = offsetOf(url);
  const last = doc.links?.last;
  return received >= size && at + received > MAX_OFFSET && !(last !== undefined && offsetOf(last) === at);
}

/** The largest id of a page as digits; undefined when one is not an integer. */
export function largestId(data: readonly ResourceObject[]): string | undefined {
  let max = -1n;
  for (const r of data) {
    const id = String(r.id);
    if (!/^\d+$/.test(id)) return undefined;
    const n = BigInt(id);
    if (n > max) max = n;
  }
  return String(max);
}

const isIdFilter = (f: Filter) => f.path.length === 1 && f.path[0] === 'id';

/**
 * The keyset's filter on id: from `from` (digits; the start when undefined) on, within the
 * caller's own filter on id (a range's bounds, or a list of ids). Ids stay digit strings, compared
 * as BigInt: ids past 2^53 keep their digits.
 */
export function keysetFilter(from: string | undefined, user: Filter | undefined): Filter {
  const digits = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? v : undefined);
  const max = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined || BigInt(a) >= BigInt(b) ? a : b);
  if (user && user.kind !== 'range') {
    const ids = user.values
      .filter((v) => digits(v) !== undefined && (from === undefined || BigInt(v) >= BigInt(from)))
      .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
    // No id left: an id no record has, so that the listing ends with an empty page.
    return { path: ['id'], kind: ids.length > 1 ? 'list' : 'eq', values: ids.length ? ids : ['0'], escaped: false };
  }
  const to = digits(user?.to);
  return {
    path: ['id'],
    kind: 'range',
    values: [],
    from: max(from, digits(user?.from)) ?? '1',
    ...(to !== undefined ? { to } : {}),
    escaped: false,
  };
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
