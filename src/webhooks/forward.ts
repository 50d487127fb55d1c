/**
 * `listen --forward-to URL`: re-posts a delivery's raw body and headers to a local app, so the
 * app sees exactly what the service sent (signature included) and can verify it itself.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';

/** Headers that describe the hop, not the delivery; node sets them again for the new request. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'expect', 'upgrade']);

/** What the app answered, or why it could not be reached. */
export type ForwardResult = { status: number; ms: number } | { error: string; ms: number };

/** Posts `raw` with `headers` to `url`; never throws. @param timeoutMs @default 5000 (the service's own limit) */
export function forwardDelivery(url: URL, raw: Buffer, headers: IncomingHttpHeaders, timeoutMs = 5000): Promise<ForwardResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_HEADERS.has(k)) out[k] = v;
  out['content-length'] = String(raw.length);
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
 * Posts a body to a receiver with the given headers (`trigger`).
 * @returns the status, or the network error
 */
export function postBody(url: URL, body: string, headers: Record<string, string>, timeoutMs = 5000): Promise<ForwardResult> {
  return forwardDelivery(url, Buffer.from(body), headers, timeoutMs);
}
