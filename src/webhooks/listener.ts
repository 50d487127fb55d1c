/**
 * The local webhook receiver of `svc webhooks listen`: an HTTP server on 127.0.0.1 that reads
 * each POST's raw body, checks its signature when a secret is known, answers at once (200, or
 * 401 for a bad signature) and hands the delivery on. The service gives receivers 5 seconds and
 * takes any status as acknowledgement, so nothing slow happens before the answer.
 *
 * Without a secret nothing proves where a request comes from, so the listener takes only
 * requests addressed to this machine: a `Host` of 127.x.x.x, `localhost` or `[::1]`, and no
 * `Origin` of another site. A web page in the user's browser could otherwise post to it, either
 * straight to 127.0.0.1 (its `Origin` gives it away) or through a name of its own that it
 * re-points at 127.0.0.1 (DNS rebinding: its `Host` gives it away). Such requests get 403.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifySignature } from './signature.js';

/** Largest body accepted; deliveries are small JSON documents. @default 5 MiB */
const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** One request that reached the listener. */
export interface ReceivedDelivery {
  /** The body exactly as received (signatures are over these bytes). */
  raw: Buffer;
  headers: http.IncomingHttpHeaders;
  path: string;
  /** `valid` or `invalid` when a secret is set; `unchecked` otherwise. */
  signature: 'valid' | 'invalid' | 'missing' | 'unchecked';
  /** Set when the request was refused (403) for not being addressed to this machine. */
  foreign?: { host: string; origin?: string };
  /** The status the listener answered. */
  status: number;
}

/** Options of {@link startListener}. */
interface ListenerOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** When set, deliveries without a matching signature are refused with 401. */
  secret?: string;
  /** Called after each answer, accepted or refused. */
  onDelivery(d: ReceivedDelivery): void;
  /** @default '127.0.0.1' */
  host?: string;
}

/** A running listener. */
export interface Listener {
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

function answer(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The host name of a `Host` header or of an origin's authority, without the port. */
function hostName(authority: string): string {
  const a = authority.trim().toLowerCase();
  if (a.startsWith('[')) return a.slice(0, a.indexOf(']') + 1);
  const colon = a.lastIndexOf(':');
  return colon >= 0 ? a.slice(0, colon) : a;
}

/** True for host names that only this machine reaches: `localhost`, `[::1]`, 127.x.x.x (not `127.evil.example`). */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/** True for a `Host` header that names this machine, any port. */
function isLoopbackHostHeader(host: string | undefined): boolean {
  return host !== undefined && isLoopbackHost(hostName(host));
}

/** True when the request names no origin (servers, curl) or a page served from this machine. */
function loopbackOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    const u = new URL(origin);
    return (u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackHostHeader(u.host);
  } catch {
    return false;
  }
}

/** Starts the receiver; resolves once it listens (rejects when the port is taken). */
export function startListener(opts: ListenerOptions): Promise<Listener> {
  const server = http.createServer((req, res) => {
    const origin = req.headers.origin;
    if (opts.secret === undefined && (!isLoopbackHostHeader(req.headers.host) || !loopbackOrigin(origin))) {
      // Nothing is read or handed on: the body of a request from a web page is not a delivery.
      answer(res, 403, 'svc webhooks listen without --secret accepts requests addressed to 127.0.0.1 or localhost only\n');
      const foreign = { host: req.headers.host ?? '', ...(origin !== undefined ? { origin } : {}) };
      opts.onDelivery({ raw: Buffer.alloc(0), headers: req.headers, path: req.url ?? '/', signature: 'unchecked', status: 403, foreign });
      req.resume();
      return;
    }
    if (req.method !== 'POST') {
      // A GET in a browser shows what this is instead of an error page.
      return answer(res, req.method === 'GET' || req.method === 'HEAD' ? 200 : 405, 'svc webhooks listen: POST webhook deliveries here\n');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) tooBig = true;
      else chunks.push(c);
    });
    req.on('end', () => {
      if (tooBig) return answer(res, 413, 'body too large\n');
      const raw = Buffer.concat(chunks);
      const header = req.headers[SIGNATURE_HEADER.toLowerCase()];
      let signature: ReceivedDelivery['signature'] = 'unchecked';
      if (opts.secret !== undefined) {
        signature = header === undefined ? 'missing' : verifySignature(opts.secret, raw, header) ? 'valid' : 'invalid';
      }
      const status = signature === 'invalid' || signature === 'missing' ? 401 : 200;
      answer(res, status, status === 200 ? 'ok\n' : 'signature does not match\n');
      opts.onDelivery({ raw, headers: req.headers, path: req.url ?? '/', signature, status });
    });
    req.on('error', () => res.destroy());
  });
  // Deliveries are one-shot: no reason to keep idle sockets open when stopping.
  server.keepAliveTimeout = 1000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${opts.host ?? '127.0.0.1'}:${port}/`,
        port,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    });
  });
}
