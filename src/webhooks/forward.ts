/**
 * `listen --forward-to URL`: re-posts a delivery's raw body and headers to a local app, so the
 * app sees exactly what the service sent (signature included) and can verify it itself. The
 * webhook's cleanup token stays here: whoever holds it can remove the webhook, and the README
 * promises it is never shown; and plain HTTP goes only to this machine, where no network sees it.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from './listener.js';
import { CLEANUP_TOKEN_HEADER } from './signature.js';

/**
 * Headers not forwarded: those that describe the hop (node sets them again for the new request),
 * and the cleanup token.
 */
const DROPPED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'expect',
  'upgrade',
  CLEANUP_TOKEN_HEADER,
]);

/** Why deliveries may not be forwarded to `url`, or undefined: plain HTTP only to this machine. */
export function forwardTargetProblem(url: URL): string | undefined {
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return `plain http goes only to this machine (localhost, 127.0.0.1, [::1]); use https://${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  return undefined;
}

/** What the app answered, or why it could not be reached. */
export type ForwardResult = { status: number; ms: number } | { error: string; ms: number };

/** Posts `raw` with `headers` to `url`; never throws. @param timeoutMs @default 5000 (the service's own limit) */
export function forwardDelivery(url: URL, raw: Buffer, headers: IncomingHttpHeaders, timeoutMs = 5000): Promise<ForwardResult> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !DROPPED_HEADERS.has(k)) out[k] = v;
  return post(url, raw, out, timeoutMs);
}

/** One POST of `raw` with exactly `headers` (and its length); never throws. */
function post(url: URL, raw: Buffer, headers: Record<string, string | string[]>, timeoutMs: number): Promise<ForwardResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const out = { ...headers, 'content-length': String(raw.length) };
  return new Promise((resolve) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, { method: 'POST', headers: out, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: ms() }));
      res.on('error', (e) => resolve({ error: e.message, ms: ms() }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message, ms: ms() }));
    req.end(raw);
  });
}

/**
 * Posts a body to a receiver with the given headers, all of them (`trigger`: its sample
 * cleanup token is a stand-in, sent as the service sends the real one).
 * @returns the status, or the network error
 */
export function postBody(url: URL, body: string, headers: Record<string, string>, timeoutMs = 5000): Promise<ForwardResult> {
  return post(url, Buffer.from(body), headers, timeoutMs);
}
