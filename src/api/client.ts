/**
 * The API client: one undici keep-alive agent, JSON:API headers, the bearer token only for the
 * profile's own origins, retries for idempotent requests, a redacted trace.
 */
import type { Dispatcher } from 'undici';
import { ApiError, InterruptedError, NetworkError, SvcError, UsageError } from '../errors.js';
import { boundedRequest, ResponseTooLarge, type BoundedResponse } from './bounded-response.js';
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeepMessage } from '../json-depth.js';
import { addScopeHint } from './scope-hint.js';
import { errorFromResponse, parseDocument, parseRateLimit, type JsonApiDocument, type RateLimitInfo } from './jsonapi.js';
import { refusalWait, ServerWaitError } from './server-wait.js';
import { describeNetworkError, isNeverSentError, isRetryableNetworkError } from './network-errors.js';
import { redactUrl } from './redact.js';
import { createAgent } from './undici-lite.js';

const JSONAPI_MEDIA_TYPE = 'application/vnd.api+json';

/** How the client gets and renews its access token (the auth layer implements it). */
export interface TokenProvider {
  /** A token to send now (may refresh first when it expires soon). */
  getToken(): Promise<string>;
  /** Called once after an unexpected 401; resolves true when a new token is ready. */
  onUnauthorized?(): Promise<boolean>;
  /** The hint of a 401 the provider cannot mend: where the token came from and what to do. */
  refusedHint?: string;
}

/** Decides when a request may be sent: the rate budget every svc process of a user shares (budget/gate.ts). */
export interface RequestGate {
  /** Resolves when one request may be sent; throws to refuse it (nothing is sent). */
  admit(signal?: AbortSignal): Promise<void>;
  /** Told every response's rate-limit reading. */
  observe(info: RateLimitInfo, status: number): void;
  /** Told of a request that had no answer (a reset, a timeout): a reading waited for will not come. */
  unanswered?(): void;
  /** How long a refusal (429, 503) may be waited out: longer for a long command. */
  patienceMs(): number;
}

/** Options of {@link ApiClient}. */
export interface ApiClientOptions {
  /** The version-2 root, e.g. `https://api.example.com/api/v2`. */
  baseUrl: string;
  /** Other origins the token may be sent to (the auth URL). */
  trustedOrigins?: string[];
  tokens: TokenProvider;
  /**
   * Time allowed for one whole exchange — headers and the complete body — and for each pause in
   * it: a server that trickles its answer cannot hold a command past it. @default 30000
   */
  timeoutMs?: number;
  /** Largest answer read (one document: list pages count one by one). @default 64 MiB */
  maxResponseBytes?: number;
  /** Retries for idempotent requests on network failures and 502/503/504. @default 3 */
  retries?: number;
  /** Longest `Retry-After` wait accepted without giving up. @default 10000 */
  maxRetryWaitMs?: number;
  /** Receives one line per exchange (already redacted). */
  trace?: (line: string) => void;
  /** Asked before every request is sent (the rate budget shared by the user's processes). */
  gate?: RequestGate;
  /** The scopes the token holds, where known: a 403's login hint asks for them too (scope-hint.ts). */
  heldScopes?: string;
  /** Told every rate-limit reading, for pacing. */
  onRateLimit?: (info: RateLimitInfo, status: number) => void;
  /** Told of every wait before a retry (for progress displays). */
  onWait?: (ms: number, reason: string) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  dispatcher?: Dispatcher;
  userAgent?: string;
  /** Aborts requests that do not pass their own signal (Ctrl-C). */
  signal?: AbortSignal;
}

/** One request. `path` is relative to the base URL, or an absolute URL on a trusted origin. */
export interface ApiRequest {
  method: string;
  path: string;
  /** Already encoded, without `?`. */
  query?: string;
  body?: unknown;
  /** Retry on network failures even though the method is not idempotent. */
  idempotent?: boolean;
  /**
   * Do not retry anything the server may have received (the caller handles it, e.g. creates). A
   * refused connection, which sent nothing, is still tried again unless `retryNeverSent` is false.
   */
  noRetry?: boolean;
  /** Retry a connection that was refused (nothing sent). @default true */
  retryNeverSent?: boolean;
  /**
   * Retry idempotent requests on 502/504 (a gateway that gave up). @default true — paging passes
   * false and halves the page instead. A 500 is retried either way.
   */
  retryServerErrors?: boolean;
  signal?: AbortSignal;
  /** Reads and parses a success body instead of JSON.parse (a listing's pages: listing/pages.ts). */
  reader?: BodyReader;
}

/**
 * How a body is read and parsed when JSON.parse of a fresh buffer will not do (a listing's pages,
 * listing/pages.ts): the client knows no more of it than this.
 */
export interface BodyReader {
  /** Memory for a body of `size` bytes (the client copies the body into it). */
  take?(size: number): Buffer;
  /** The body's value. */
  parse(body: Buffer): unknown;
  /**
   * The members of an object in the value that the parse left unparsed, their depth already
   * checked by the reader: the depth check does not read them.
   */
  unparsed?(value: object): readonly string[] | undefined;
}

/** One response, body parsed. */
export interface ApiResponse {
  status: number;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  doc: JsonApiDocument;
  /** The body as text (decoded when first read). */
  readonly text: string;
  rateLimit: RateLimitInfo;
  /** The body's bytes (in the memory of the request's `reader`, when it has one). */
  body?: Buffer;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** JSON:API client over undici. */
export class ApiClient {
  readonly baseUrl: URL;
  private readonly opts: ApiClientOptions;
  private readonly dispatcher: Dispatcher;
  private readonly origins: Set<string>;

  constructor(opts: ApiClientOptions) {
    this.opts = opts;
    this.baseUrl = new URL(opts.baseUrl.replace(/\/+$/, '') + '/');
    this.origins = new Set([this.baseUrl.origin, ...(opts.trustedOrigins ?? []).map((o) => new URL(o).origin)]);
    this.dispatcher =
      opts.dispatcher ??
      createAgent({ keepAliveTimeout: 10_000, connections: 32, headersTimeout: this.timeout, bodyTimeout: this.timeout });
  }

  private get timeout(): number {
    return this.opts.timeoutMs ?? 30_000;
  }

  /** Resolves a path or link to an absolute URL, refusing origins the token must not reach. */
  resolve(pathOrUrl: string): URL {
    const isAbsolute = /^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl);
    const url = isAbsolute ? new URL(pathOrUrl) : new URL(pathOrUrl.replace(/^\/+/, ''), this.baseUrl);
    if (!this.origins.has(url.origin)) {
      throw new UsageError(`refusing to send the token to ${url.origin}: not this profile's API (${this.baseUrl.origin})`);
    }
    return url;
  }

  /** Sends one request with retries; throws {@link ApiError} for non-2xx answers. */
  async request(req: ApiRequest): Promise<ApiResponse> {
    const method = req.method.toUpperCase();
    const url = this.resolve(req.path);
    if (req.query) url.search = req.query;
    const idempotent = !req.noRetry && (req.idempotent ?? IDEMPOTENT.has(method));
    const maxAttempts = req.noRetry && req.retryNeverSent === false ? 1 : (this.opts.retries ?? 3) + 1;
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const now = this.opts.now ?? Date.now;
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      let res: ApiResponse;
      try {
        res = await this.send(method, url, req);
      } catch (err) {
        // svc's own errors (the token provider's too: an interrupted or refused refresh) keep
        // their message and exit code; only low-level failures become a NetworkError below.
        this.opts.gate?.unanswered?.();
        if (err instanceof SvcError) throw err;
        if (isAbort(err)) throw new InterruptedError();
        const neverSent = req.retryNeverSent !== false && isNeverSentError(err);
        if ((idempotent || neverSent) && attempt < maxAttempts && isRetryableNetworkError(err)) {
          const wait = backoff(attempt);
          this.opts.onWait?.(wait, describeNetworkError(err));
          this.trace(`retry ${method} ${redactUrl(url)} in ${wait} ms: ${describeNetworkError(err)}`);
          await sleep(wait);
          continue;
        }
        throw new NetworkError(`${method} ${redactUrl(url)}: ${describeNetworkError(err)}`, (err as { code?: string }).code);
      }
      if (res.status < 400) return res;
      if (res.status === 401 && !refreshed && this.opts.tokens.onUnauthorized) {
        refreshed = true;
        if (await this.opts.tokens.onUnauthorized()) continue;
      }
      const retryAfter = headerString(res.headers['retry-after']);
      const error = errorFromResponse(res.status, res.text, headerString(res.headers['content-type']), retryAfter);
      error.headers = res.headers;
      error.body = res.text;
      // 429 and 503 mean the request was not processed, so even a POST may be repeated.
      const refusedUnprocessed = res.status === 429 || res.status === 503;
      const gatewayGaveUp = res.status === 502 || res.status === 504;
      const serverError = res.status === 500 || (gatewayGaveUp && req.retryServerErrors !== false);
      const transient = refusedUnprocessed || (idempotent && serverError);
      if (!req.noRetry && transient && attempt < maxAttempts) {
        // The wait is Retry-After; on a 429 without one, the spec's reset time stands in for it,
        // but only when the server's own count says the window is spent.
        const spent = res.status === 429 && !((res.rateLimit.remaining ?? 0) > 0);
        const header = retryAfter !== undefined ? 'Retry-After' : 'X-RateLimit-Reset';
        const value = retryAfter ?? (spent ? res.rateLimit.reset : undefined);
        const asked = refusalWait(res.status, value, now());
        if (asked && 'absurd' in asked) {
          throw new ServerWaitError(`HTTP ${res.status} (${error.message})`, header, value!, asked.absurd).hint('try again later');
        }
        const wait = asked?.ms ?? backoff(attempt);
        // A long command in the shared budget (a sync, a long listing) waits out a refusal to the
        // window's reset, as a bulk run does: it yields to the user's other processes.
        if (wait <= Math.max(this.opts.maxRetryWaitMs ?? 10_000, this.opts.gate?.patienceMs() ?? 0)) {
          this.opts.onWait?.(wait, `HTTP ${res.status}`);
          this.trace(`retry ${method} ${redactUrl(url)} in ${wait} ms after HTTP ${res.status}`);
          await sleep(wait);
          continue;
        }
      }
      if (res.status === 403) addScopeHint(error, method, url, this.baseUrl, this.opts.heldScopes);
      if (res.status === 401 && this.opts.tokens.refusedHint) error.hint(this.opts.tokens.refusedHint);
      throw error;
    }
  }

  private async send(method: string, url: URL, req: ApiRequest): Promise<ApiResponse> {
    await this.opts.gate?.admit(req.signal ?? this.opts.signal);
    const token = await this.opts.tokens.getToken();
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: JSONAPI_MEDIA_TYPE,
      'user-agent': this.opts.userAgent ?? 'svc',
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      headers['content-type'] = JSONAPI_MEDIA_TYPE;
    }
    // Performance machinery (src/README.md, Build): no `performance` global (loading perf_hooks costs ~1 ms a command).
    const started = process.hrtime.bigint();
    const what = `${method} ${redactUrl(url)}`;
    const max = this.opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    let res: BoundedResponse;
    try {
      res = await boundedRequest(
        url,
        { dispatcher: this.dispatcher, method: method as Dispatcher.HttpMethod, headers, body },
        {
          timeoutMs: this.timeout,
          maxBytes: max,
          signal: req.signal ?? this.opts.signal,
          what,
          take: req.reader?.take && ((size) => req.reader!.take!(size)),
        },
      );
    } catch (err) {
      if (err instanceof ResponseTooLarge)
        err.hint('raise the cap with --max-response-mb <n> (or SVC_MAX_RESPONSE_MB), or ask for less: --page-size, --fields');
      throw err;
    }
    const rateLimit = parseRateLimit(res.headers);
    const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    this.trace(`${method} ${redactUrl(url)} → ${res.statusCode} (${ms} ms)${rateLimitNote(rateLimit)}`);
    this.opts.gate?.observe(rateLimit, res.statusCode);
    this.opts.onRateLimit?.(rateLimit, res.statusCode);
    const ok = res.statusCode < 400;
    const doc = ok
      ? parseDocument(res.statusCode, res.body, headerString(res.headers['content-type']), req.reader && ((b) => req.reader!.parse(b)))
      : {};
    // Performance machinery (src/README.md, Build): the depth check skips unparsed members.
    // Lazy attributes and relationships are not read here: reading them would parse what ndjson copies as text.
    if (nestedDeeperThan(doc, MAX_JSON_DEPTH, req.reader?.unparsed && ((o) => req.reader!.unparsed!(o))))
      throw new ApiError(res.statusCode, [
        { title: 'bad response', detail: `server answered ${res.statusCode} with a document ${tooDeepMessage()}` },
      ]);
    return {
      status: res.statusCode,
      url: url.toString(),
      headers: res.headers,
      doc,
      get text() {
        return res.text;
      },
      rateLimit,
      body: res.body,
    };
  }

  private trace(line: string): void {
    this.opts.trace?.(line);
  }

  /** Closes idle keep-alive sockets so the process can exit at once. */
  async close(): Promise<void> {
    if (!this.opts.dispatcher) await this.dispatcher.close();
  }
}

/** Default of {@link ApiClientOptions.maxResponseBytes}: far above any page of 1,000 records. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

function isAbort(err: unknown): boolean {
  const e = err as { name?: string; code?: string };
  return e?.name === 'AbortError' || e?.code === 'UND_ERR_ABORTED' || e?.code === 'ABORT_ERR';
}

function backoff(attempt: number): number {
  return Math.min(200 * 2 ** (attempt - 1), 5_000);
}

function headerString(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function rateLimitNote(r: RateLimitInfo): string {
  if (r.remaining === undefined) return '';
  return ` [rate ${r.remaining}/${r.limit ?? '?'} reset ${r.reset ?? '?'}]`;
}
