/**
 * One HTTP exchange with bounds on the whole answer, not only on each pause in it: a deadline
 * for headers and the complete body together (a server that trickles a byte a second cannot
 * hold a command), and a cap on the bytes read (an endless or enormous answer costs at most the
 * cap in memory). The API client and the token endpoint both go through here.
 */
import type { Dispatcher } from 'undici';
import { ExitCode, SvcError } from '../errors.js';
import { bodyText } from './body-text.js';
import { createAgent, request } from './undici-lite.js';

/** The answer was larger than the cap; the connection was dropped. */
export class ResponseTooLarge extends SvcError {
  constructor(
    what: string,
    readonly maxBytes: number,
  ) {
    super(
      `${what}: the answer is larger than ${Math.round((maxBytes / (1024 * 1024)) * 100) / 100} MB, the cap on one document`,
      ExitCode.API,
    );
  }
}

/** Error code of a missed deadline; described and retried like undici's own timeouts (network-errors.ts). */
const RESPONSE_TIMEOUT = 'SVC_RESPONSE_TIMEOUT';

/** Bounds of {@link boundedRequest}. */
interface ResponseBounds {
  /** Time for the whole exchange, and for each pause in it. */
  timeoutMs: number;
  maxBytes: number;
  /** The caller's own signal (Ctrl-C): its abort stays an abort, not a timeout. */
  signal?: AbortSignal | undefined;
  /** `GET https://…`, for messages. */
  what: string;
  /** Memory for the body of `size` bytes, else a fresh buffer (a listing's recycled pages: listing/page-buffers.ts). */
  take?: ((size: number) => Buffer) | undefined;
}

/** An answer read in full. */
export interface BoundedResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body's bytes. */
  body: Buffer;
  /** The body as text, decoded when first read (a listing page is parsed from its bytes). */
  readonly text: string;
}

/** The error {@link boundedRequest} throws when its deadline passed (not the caller's abort). */
export function isResponseTimeout(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === RESPONSE_TIMEOUT;
}

/**
 * One GET on a connection of its own, closed after: a look before a command's API client exists
 * (a running sandbox's probe, login's check of the authorize page), with the client's own undici
 * pieces. The global fetch loads Node's whole bundled undici and compiles its llhttp on V8's
 * optimising tier: with it, `svc --sandbox prospects list --limit 1` beside a running sandbox
 * took 0.23–0.34 CPU-s instead of 0.13–0.22, and a login 0.46–0.63 instead of 0.22–0.38.
 */
export async function getOnce(url: URL, headers: Record<string, string>, bounds: ResponseBounds): Promise<BoundedResponse> {
  const dispatcher = createAgent({ connections: 1 });
  try {
    return await boundedRequest(url, { method: 'GET', headers: { 'user-agent': 'svc', ...headers }, dispatcher }, bounds);
  } finally {
    void dispatcher.destroy();
  }
}

/** Sends one request and reads its whole answer within the bounds. */
export async function boundedRequest(
  url: URL,
  opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'signal' | 'headersTimeout' | 'bodyTimeout'> & { dispatcher: Dispatcher },
  bounds: ResponseBounds,
): Promise<BoundedResponse> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), bounds.timeoutMs);
  const outer = bounds.signal;
  try {
    const res = await request(url, {
      ...opts,
      headersTimeout: bounds.timeoutMs,
      bodyTimeout: bounds.timeoutMs,
      signal: outer ? AbortSignal.any([outer, deadline.signal]) : deadline.signal,
    });
    const body = await readLimited(res, bounds);
    let text: string | undefined;
    return {
      statusCode: res.statusCode,
      headers: res.headers,
      body,
      get text() {
        return (text ??= bodyText(body));
      },
    };
  } catch (err) {
    if (deadline.signal.aborted && !outer?.aborted) {
      throw Object.assign(new Error(`no complete answer within ${bounds.timeoutMs} ms`), { code: RESPONSE_TIMEOUT });
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function readLimited(res: Dispatcher.ResponseData, { maxBytes: max, what, take }: ResponseBounds): Promise<Buffer> {
  const length = res.headers['content-length'];
  const declared = Number(Array.isArray(length) ? length[0] : length);
  if (Number.isFinite(declared) && declared > max) {
    res.body.destroy();
    throw new ResponseTooLarge(what, max);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      res.body.destroy();
      throw new ResponseTooLarge(what, max);
    }
    chunks.push(chunk);
  }
  if (!take) return Buffer.concat(chunks);
  const body = take(size);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(body, at);
  return body;
}
