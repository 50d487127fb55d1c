/**
 * A small scripted HTTP server for tests of the API core against answers the sandbox would never
 * give (HTML pages, poisoned links, broken bodies, answers that trickle or never end). Records
 * every request it receives.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the server received it. */
export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** How the server answers one request. */
export type Responder = (
  req: Received,
) => { status: number; headers?: Record<string, string>; body?: string } | { raw: (res: http.ServerResponse) => void } | 'hang' | 'reset';

/**
 * Starts the server on a random port of a loopback address: 127.0.0.1, or another one
 * (127.0.0.2) to stand for another host in tests of host checks.
 */
export async function startTinyServer(
  respond: Responder,
  host = '127.0.0.1',
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const r: Received = { method: req.method!, url: req.url!, headers: req.headers, body };
      received.push(r);
      const answer = respond(r);
      if (answer === 'hang') return;
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      // The test writes the answer itself (a body that trickles, a huge one).
      if ('raw' in answer) return answer.raw(res);
      res.writeHead(answer.status, { 'content-type': 'application/vnd.api+json', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
