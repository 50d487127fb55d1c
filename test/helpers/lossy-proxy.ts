/**
 * A proxy in front of the sandbox that loses answers: for the requests a test picks, it forwards
 * the request, lets the sandbox carry it out, and then cuts the connection instead of answering
 * — the "network failed after sending" case that bulk creates must survive without duplicates.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running proxy. */
export interface LossyProxy {
  /** Version-2 root through the proxy. */
  baseUrl: string;
  /** Requests whose answers were dropped (method and path). */
  dropped: string[];
  close(): Promise<void>;
}

/**
 * Starts the proxy.
 * @param target the sandbox's origin (`http://127.0.0.1:PORT`)
 * @param drop decides, per request (method, path without the query, body), whether its answer is lost
 */
export async function startLossyProxy(target: string, drop: (method: string, path: string, body: string) => boolean): Promise<LossyProxy> {
  const dropped: string[] = [];
  const origin = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const lose = drop(req.method!, req.url!.split('?')[0]!, body);
      const headers = { ...req.headers };
      delete headers.host;
      const up = http.request(`${target}${req.url}`, { method: req.method, headers }, (upRes) => {
        const parts: Buffer[] = [];
        upRes.on('data', (c: Buffer) => parts.push(c));
        upRes.on('end', () => {
          if (lose) {
            dropped.push(`${req.method} ${req.url}`);
            req.socket.destroy();
            return;
          }
          // Links (`links.next` of a page) name the proxy, as a real gateway's do: a client
          // follows no link to another origin than the one it asked.
          const text = Buffer.from(Buffer.concat(parts).toString('utf8').split(target).join(origin()));
          const headers = { ...upRes.headers, 'content-length': String(text.length) };
          delete headers['transfer-encoding'];
          res.writeHead(upRes.statusCode!, headers);
          res.end(text);
        });
      });
      up.on('error', () => req.socket.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v2`,
    dropped,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
