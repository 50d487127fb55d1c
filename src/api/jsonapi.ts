/**
 * JSON:API 1.0 document shapes and the parsing of error documents and rate-limit headers.
 */
import { apiTime } from '../api-time.js';
import { ApiError, type ApiErrorObject } from '../errors.js';
import { parseJson } from '../lossless-json.js';
import { bodyText } from './body-text.js';

/** A resource identifier object. */
export interface ResourceIdentifier {
  type: string;
  id: number | string;
}

/** A relationship object. */
export interface RelationshipObject {
  data?: ResourceIdentifier | ResourceIdentifier[] | null;
  links?: { related?: string; self?: string };
  meta?: Record<string, unknown>;
}

/** A resource object as the service returns it. */
export interface ResourceObject {
  type: string;
  id: number | string;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, RelationshipObject>;
  links?: Record<string, string>;
  meta?: Record<string, unknown>;
}

/** A top-level document (collection, single resource, or errors). */
export interface JsonApiDocument {
  data?: ResourceObject | ResourceObject[] | null;
  included?: ResourceObject[];
  links?: { first?: string; prev?: string; next?: string; last?: string; self?: string };
  meta?: Record<string, unknown> & { count?: number | null; count_truncated?: boolean };
  errors?: ApiErrorObject[];
}

/** Rate-limit headers of one response. */
export interface RateLimitInfo {
  limit?: number;
  remaining?: number;
  /** Reset time as the server sent it (epoch seconds, or an ISO time). */
  reset?: string;
}

/** First number of a header that may hold a comma list (`9999, 19988`). */
function firstNumber(value: string | string[] | undefined): number | undefined {
  const s = Array.isArray(value) ? value[0] : value;
  if (s === undefined) return undefined;
  const n = Number.parseFloat(String(s).split(',')[0]!.trim());
  return Number.isFinite(n) ? n : undefined;
}

/** `X-RateLimit-*` headers, tolerant of lists and garbage. */
export function parseRateLimit(headers: Record<string, string | string[] | undefined>): RateLimitInfo {
  const reset = headers['x-ratelimit-reset'];
  const info: RateLimitInfo = {};
  const limit = firstNumber(headers['x-ratelimit-limit']);
  const remaining = firstNumber(headers['x-ratelimit-remaining']);
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = remaining;
  if (reset !== undefined)
    info.reset = String(Array.isArray(reset) ? reset[0] : reset)
      .split(',')[0]!
      .trim();
  return info;
}

/**
 * Milliseconds to wait for a `Retry-After` (or reset) value: seconds, an HTTP date, an ISO time,
 * or epoch seconds. Undefined when it cannot be read.
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) {
    const n = Number(v);
    // Large numbers are epoch seconds (a reset time), small ones are a delay.
    if (n > 1e9) return Math.max(0, n * 1000 - now);
    return n * 1000;
  }
  const t = apiTime(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, t - now);
}

/** Turns a non-2xx response into an {@link ApiError}, whatever its body. */
export function errorFromResponse(status: number, body: string, contentType: string | undefined, retryAfter?: string): ApiError {
  const trimmed = body.trim();
  if (trimmed.startsWith('{')) {
    try {
      const doc = JSON.parse(trimmed) as JsonApiDocument & { error?: string; error_description?: string };
      if (Array.isArray(doc.errors) && doc.errors.length > 0) {
        const errors = doc.errors.map(normalizeError);
        return new ApiError(status, errors, undefined, retryAfter);
      }
      if (typeof doc.error === 'string') {
        // OAuth error shape from the token endpoint.
        return new ApiError(status, [{ id: doc.error, title: doc.error, detail: doc.error_description }], undefined, retryAfter);
      }
    } catch {
      // fall through to the generic message
    }
  }
  // A request line or URL too long (Node answers 431 with no body, others 414): a filter listing
  // thousands of ids gave "HTTP 431: server sent empty body" (a trial).
  if (status === 414 || status === 431) {
    const detail =
      'the request is too long for the server (its URL, most likely): filter on fewer values, or on a range instead of a long list';
    return new ApiError(status, [{ status: String(status), title: `HTTP ${status}`, detail }], undefined, retryAfter);
  }
  const what = !trimmed
    ? 'empty body'
    : contentType?.includes('html') || trimmed.startsWith('<')
      ? 'an HTML page (a proxy or gateway answered, not the API)'
      : 'a body that is not JSON:API';
  return new ApiError(status, [{ status: String(status), title: `HTTP ${status}`, detail: `server sent ${what}` }], undefined, retryAfter);
}

function normalizeError(e: unknown): ApiErrorObject {
  if (typeof e !== 'object' || e === null) return { title: String(e) };
  const o = e as Record<string, unknown>;
  const out: ApiErrorObject = {};
  if (o.id !== undefined) out.id = String(o.id);
  if (o.status !== undefined) out.status = String(o.status);
  if (typeof o.title === 'string') out.title = o.title;
  // One documented 415 example spells the key `details`.
  const detail = o.detail ?? o.details;
  if (detail !== undefined) out.detail = typeof detail === 'string' ? detail : JSON.stringify(detail);
  if (typeof o.source === 'object' && o.source !== null) out.source = o.source as ApiErrorObject['source'];
  return out;
}

/** Parses a success body; a non-JSON body is an error, never a crash. */
export function parseDocument(
  status: number,
  body: Buffer,
  contentType: string | undefined,
  parse: (body: Buffer) => unknown = (b) => parseJson(bodyText(b)),
): JsonApiDocument {
  if (blank(body)) return {};
  try {
    const doc = parse(body);
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw new Error('not an object');
    }
    return doc as JsonApiDocument;
  } catch {
    const what = contentType?.includes('html') || bodyText(body).trimStart().startsWith('<') ? 'an HTML page' : 'invalid JSON';
    throw new ApiError(status, [{ title: 'bad response', detail: `server answered ${status} with ${what}` }]);
  }
}

/** True for a body of white space only (as String#trim sees it) without decoding a big one. */
function blank(body: Buffer): boolean {
  let i = 0;
  while (i < body.length && (body[i] === 32 || (body[i]! >= 9 && body[i]! <= 13))) i++;
  if (i === body.length) return true;
  // Other white space (a no-break space, a byte-order mark) is not ASCII.
  return body[i]! > 127 && bodyText(body).trim() === '';
}

/**
 * The resource of a single-resource answer (`get`): a clear error, never `null` printed with
 * exit 0, when the document has no `data` object (an empty body, `{"meta":…}`, a string).
 */
export function singleResource(status: number, doc: JsonApiDocument): ResourceObject {
  const d = doc.data as unknown;
  if (typeof d !== 'object' || d === null || Array.isArray(d) || typeof (d as ResourceObject).type !== 'string') {
    throw new ApiError(status, [{ title: 'bad response', detail: `server answered ${status} with no data (expected one resource)` }]);
  }
  return d as ResourceObject;
}
