/**
 * Query strings for collection and single-resource requests, built from a structure so that
 * pagination can rewrite page and keyset parameters without string surgery.
 */
import { filterParams, type Filter } from './filter.js';

/** Everything a `list` or `get` may send. */
export interface ListQuery {
  filters?: Filter[];
  /** `newFilterSyntax=true` and bracket forms. */
  newFilterSyntax?: boolean;
  /** Sort keys, `-` prefix for descending. */
  sort?: string[];
  /** Relationship paths, `a.b` nested. */
  include?: string[];
  /** Sparse fieldsets by type; an empty list asks for no attributes. */
  fields?: Record<string, string[]>;
  /** `page[limit]`. */
  pageLimit?: number;
  /** `page[offset]`. */
  pageOffset?: number;
  /** `count=true`; undefined sends nothing (the service default is false). */
  count?: boolean;
  /** Other parameters passed as given (`provideAuthorizationMeta`). */
  extra?: [string, string][];
}

/** Ordered key/value pairs of a query. */
export function queryPairs(q: ListQuery): [string, string][] {
  const pairs: [string, string][] = [];
  const nfs = q.newFilterSyntax === true;
  if (nfs) pairs.push(['newFilterSyntax', 'true']);
  for (const f of q.filters ?? []) pairs.push(...filterParams(f, nfs));
  if (q.sort?.length) pairs.push(['sort', q.sort.join(',')]);
  if (q.include?.length) pairs.push(['include', q.include.join(',')]);
  for (const [type, list] of Object.entries(q.fields ?? {})) pairs.push([`fields[${type}]`, list.join(',')]);
  if (q.pageLimit !== undefined) pairs.push(['page[limit]', String(q.pageLimit)]);
  if (q.pageOffset !== undefined && q.pageOffset > 0) pairs.push(['page[offset]', String(q.pageOffset)]);
  if (q.count !== undefined) pairs.push(['count', String(q.count)]);
  pairs.push(...(q.extra ?? []));
  return pairs;
}

/**
 * Encodes pairs the way JSON:API servers expect to read them: brackets kept literal for
 * readability in traces, everything else percent-encoded.
 */
export function encodeQuery(pairs: [string, string][]): string {
  return pairs.map(([k, v]) => `${encodeKey(k)}=${encodeValue(v)}`).join('&');
}

function encodeKey(k: string): string {
  return encodeURIComponent(wellFormed(k)).replace(/%5B/g, '[').replace(/%5D/g, ']');
}

function encodeValue(v: string): string {
  // Commas separate list values and dots form ranges: both are safe to leave readable.
  return encodeURIComponent(wellFormed(v)).replace(/%2C/g, ',');
}

/**
 * The text with lone UTF-16 surrogates replaced by U+FFFD. A JSON input can carry one
 * (`"\ud800"`), and encodeURIComponent throws on it ("URI malformed"): replaced, it is sent as
 * UTF-8 like any other character.
 */
export function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** `?…` for a query, or '' when empty. */
export function buildQuery(q: ListQuery): string {
  const s = encodeQuery(queryPairs(q));
  return s ? `?${s}` : '';
}
