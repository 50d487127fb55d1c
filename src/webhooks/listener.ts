/**
 * The local webhook receiver of `svc webhooks listen`: an HTTP server on 127.0.0.1 that reads
 * each POST's raw body, checks its signature when a secret is known, answers at once (200, or
 * 401 for a bad signature) and hands the delivery on. The service gives receivers 5 seconds and
 * takes any status as acknowledgement, so nothing slow happens before the answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifySignature } from './signature.js';

/** Largest body accepted; deliveries are small JSON documents. @default 5 MiB */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** One request that reached the listener. */
export interface ReceivedDelivery {
  /** The body exactly as received (signatures are over these bytes). */
  raw: Buffer;
  headers: http.IncomingHttpHeaders;
  path: string;
  /** `valid` or `invalid` when a secret is set; `unchecked` otherwise. */
  signature: 'valid' | 'invalid' | 'missing' | 'unchecked';
  /** The status the listener answered. */
  status: number;
}

/** Options of {@link startListener}. */
export interface ListenerOptions {
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

/** Starts the receiver; resolves once it listens (rejects when the port is taken). */
export function startListener(opts: ListenerOptions): Promise<Listener> {
  const server = http.createServer((req, res) => {
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
