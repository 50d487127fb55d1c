/**
 * A fault-injecting HTTP proxy for reliability tests: it sits between `bin/svc` and a real
 * server (the sandbox), forwards requests, and on the requests a test picks it misbehaves the
 * way networks and gateways do — resets a connection before or in the middle of an answer, cuts
 * an answer short, hangs, answers 5xx/429 itself (with or without `Retry-After`), sends an HTML
 * page, or rewrites the server's body (truncated or invalid JSON, no `data`, string ids). It can
 * also fail the client first and deliver the request to the server afterwards (a gateway timing
 * out on a backend that commits a moment later), and stop listening (connection refused) and
 * come back.
 *
 * Bodies and `Location` headers are rewritten from the server's origin to the proxy's, so that
 * the server's links (`links.next`) lead back through the proxy. Every request is logged with
 * the fault it met: tests count attempts here, at the wire, not in svc's own words.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { recordStats } from './stats.js';

/** What the proxy does with one request. */
export type Fault =
  /** Forward and answer normally. */
  | { kind: 'pass' }
  /** Reset the connection before forwarding: the server never sees the request. */
  | { kind: 'reset-before' }
  /** Forward (the server does the work), then send the headers and half the body and reset. */
  | { kind: 'reset-after' }
  /** Forward, then send the headers (full Content-Length) and half the body, and close cleanly. */
  | { kind: 'cut' }
  /** Never answer (until the proxy closes). Forwarded first when `forward` is true. */
  | { kind: 'hang'; forward?: boolean }
  /** Answer this instead of the server (the request is not forwarded). */
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: string }
  /** Forward, then answer with the server's status and headers but this body. */
  | { kind: 'rewrite'; body: (serverBody: string) => string; status?: number; headers?: Record<string, string> }
  /** Forward after a delay (ms); with `afterServer`, forward at once and hold the answer instead. */
  | { kind: 'delay'; ms: number; afterServer?: boolean }
  /** Forward once `until` settles: a start barrier for requests of several processes. */
  | { kind: 'hold'; until: Promise<unknown> }
  /**
   * A gateway that gives up before the backend: `failAfterMs` after the request arrived the
   * client gets a 504 (`fail: '504'`, the default) or a reset; the request reaches the server
   * `commitAfterMs` after it arrived, so that it is carried out after the client saw it fail.
   */
  | { kind: 'late'; failAfterMs: number; commitAfterMs: number; fail?: '504' | 'reset' };

/** Which requests a rule applies to. */
export interface Match {
  method?: string;
  /** Tested against the path with its query string (e.g. `/api/v2/prospects?page%5Blimit%5D=50`). */
  path?: RegExp;
}

/** One request the proxy saw. */
export interface ProxyLogEntry {
  method: string;
  /** Path with query string. */
  url: string;
  fault: Fault['kind'];
  /** Status sent to the client (undefined for resets, cuts and hangs). */
  status?: number;
  at: number;
}

/** A running proxy. */
export interface FaultProxy {
  /** `http://127.0.0.1:PORT` — the proxy's origin. */
  origin: string;
  port: number;
  /** Every request in order of arrival. */
  log: ProxyLogEntry[];
  /**
   * Queues faults for the next matching requests, in order; once used up, matching requests
   * pass. Rules are checked in the order they were added. Returns a function removing the rule.
   */
  plan(match: Match, faults: Fault[]): () => void;
  /** Applies a fault to every matching request until removed (or {@link clear}). */
  always(match: Match, fault: Fault): () => void;
  /**
   * Lets a function pick the fault of each matching request from what it carries (a row's
   * name in the body, an id in the URL); undefined passes the request to the next rule.
   */
  decide(match: Match, choose: (req: { method: string; url: string; body: string }) => Fault | undefined): () => void;
  /** Removes every rule. */
  clear(): void;
  /** Stops listening (connection refused); listens again on the same port after `ms` when given. */
  down(ms?: number): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Requests logged since a mark (`log.length`), optionally only those matching. */
  since(mark: number, match?: Match): ProxyLogEntry[];
  close(): Promise<void>;
}

/**
 * A start barrier for processes that must race from the same moment: the matching requests are
 * held until `count` distinct keys (`keyOf`, one per process; undefined passes a request on) have
 * each sent one, then all go at once. Never held for ever: after 30 s they go anyway, and the
 * caller's assertions say which process never came. `arrived` is the number of keys seen.
 */
export function startBarrier(
  proxy: FaultProxy,
  match: Match,
  count: number,
  keyOf: (req: { method: string; url: string; body: string }) => string | undefined,
): { arrived: () => number; remove: () => void } {
  let release = () => {};
  const barrier = new Promise<void>((resolve) => (release = resolve));
  const fallback = setTimeout(() => release(), 30_000);
  const seen = new Set<string>();
  const removeRule = proxy.decide(match, (req) => {
    const key = keyOf(req);
    if (key === undefined) return undefined;
    seen.add(key);
    if (seen.size === count) {
      clearTimeout(fallback);
      release();
    }
    return { kind: 'hold', until: barrier };
  });
  return {
    arrived: () => seen.size,
    remove: () => {
      clearTimeout(fallback);
      release();
      removeRule();
    },
  };
}

/** Repeats a fault `n` times (for {@link FaultProxy.plan}). */
export function times(n: number, fault: Fault): Fault[] {
  return Array.from({ length: n }, () => fault);
}

interface Rule {
  match: Match;
  queue?: Fault[];
  fault?: Fault;
  choose?: (req: { method: string; url: string; body: string }) => Fault | undefined;
}

function matches(m: Match, method: string, url: string): boolean {
  return (!m.method || m.method.toUpperCase() === method) && (!m.path || m.path.test(url));
}

interface Upstream {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Starts a proxy on a random loopback port in front of `target` (an origin). */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const rules: Rule[] = [];
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();
  let origin = '';
  let port = 0;
  let listening = false;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const add = (rule: Rule) => {
    rules.push(rule);
    return () => {
      const i = rules.indexOf(rule);
      if (i >= 0) rules.splice(i, 1);
    };
  };

  const pick = (method: string, url: string, body: Buffer): Fault => {
    for (const r of rules) {
      if (!matches(r.match, method, url)) continue;
      if (r.choose) {
        const f = r.choose({ method, url, body: body.toString('utf8') });
        if (f) return f;
        continue;
      }
      if (r.fault) return r.fault;
      if (r.queue && r.queue.length > 0) return r.queue.shift()!;
    }
    return { kind: 'pass' };
  };

  const forward = (req: http.IncomingMessage, body: Buffer, retried = false): Promise<Upstream> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: upstream.host };
      delete headers.connection;
      const out = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      out.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed as we reused it: the request never reached the
        // server, so it is sent once more (the proxy's own race, not a fault under test).
        if (!retried && out.reusedSocket && err.code === 'ECONNRESET') forward(req, body, true).then(resolve, reject);
        else reject(err);
      });
      out.end(body);
    });

  /** The server's origin becomes the proxy's in bodies and headers. */
  const rewriteOrigin = (s: string) => s.split(upstream.origin).join(origin);

  const headersOf = (u: Upstream, body: Buffer, extra: Record<string, string> = {}): http.OutgoingHttpHeaders => {
    const h: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(u.headers)) {
      if (v === undefined || ['connection', 'transfer-encoding', 'content-length', 'keep-alive'].includes(k)) continue;
      h[k] = typeof v === 'string' ? rewriteOrigin(v) : v;
    }
    return { ...h, ...extra, 'content-length': body.length };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void handle(req, res, Buffer.concat(chunks)).catch(() => {
        if (!res.headersSent) {
          res.writeHead(599, { 'content-type': 'text/plain' });
          res.end('fault proxy: upstream failed');
        } else res.destroy();
      });
    });
  });
  server.keepAliveTimeout = 5_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> {
    const method = req.method!;
    const url = req.url!;
    const fault = pick(method, url, body);
    const entry: ProxyLogEntry = { method, url, fault: fault.kind, at: Date.now() };
    log.push(entry);
    const socket = req.socket;
    switch (fault.kind) {
      case 'reset-before':
        socket.resetAndDestroy();
        return;
      case 'hang':
        if (fault.forward) await forward(req, body);
        return; // the socket stays open until the client gives up or the proxy closes
      case 'answer': {
        const text = Buffer.from(fault.body ?? '');
        entry.status = fault.status;
        res.writeHead(fault.status, { 'content-type': 'application/vnd.api+json', ...fault.headers, 'content-length': text.length });
        res.end(text);
        return;
      }
      case 'delay':
        if (!fault.afterServer) await new Promise((r) => setTimeout(r, fault.ms));
        break;
      case 'hold':
        await fault.until;
        break;
      case 'late': {
        setTimeout(() => {
          if (fault.fail === 'reset') return socket.resetAndDestroy();
          const page = Buffer.from('<html><body><h1>504 Gateway Time-out</h1></body></html>');
          entry.status = 504;
          res.writeHead(504, { 'content-type': 'text/html', 'content-length': page.length });
          res.end(page);
        }, fault.failAfterMs);
        await new Promise((r) => setTimeout(r, fault.commitAfterMs));
        await forward(req, body);
        return;
      }
      default:
        break;
    }
    const u = await forward(req, body);
    if (fault.kind === 'delay' && fault.afterServer) await new Promise((r) => setTimeout(r, fault.ms));
    const text = Buffer.from(rewriteOrigin(u.body.toString('utf8')));
    if (fault.kind === 'reset-after' || fault.kind === 'cut') {
      // Headers promise the whole body; half of it arrives, then the connection goes.
      res.writeHead(u.status, headersOf(u, text));
      const half = text.subarray(0, Math.floor(text.length / 2));
      res.write(half, () => {
        if (fault.kind === 'reset-after') socket.resetAndDestroy();
        else socket.end();
      });
      return;
    }
    if (fault.kind === 'rewrite') {
      const out = Buffer.from(fault.body(text.toString('utf8')));
      entry.status = fault.status ?? u.status;
      res.writeHead(entry.status, headersOf(u, out, fault.headers));
      res.end(out);
      return;
    }
    entry.status = u.status;
    res.writeHead(u.status, headersOf(u, text));
    res.end(text);
  }

  const listen = (p: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        listening = true;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });

  await listen(0);
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    port,
    log,
    plan: (match, faults) => add({ match, queue: [...faults] }),
    always: (match, fault) => add({ match, fault }),
    decide: (match, choose) => add({ match, choose }),
    clear: () => void rules.splice(0),
    async down(ms) {
      await stop();
      if (ms !== undefined) setTimeout(() => void listen(port).catch(() => {}), ms).unref();
    },
    up: () => listen(port),
    since: (mark, match) => log.slice(mark).filter((e) => !match || matches(match, e.method, e.url)),
    async close() {
      await stop();
      agent.destroy();
      const faults = log.filter((e) => e.fault !== 'pass');
      const byKind: Record<string, number> = {};
      for (const e of faults) byKind[`fault:${e.fault}`] = (byKind[`fault:${e.fault}`] ?? 0) + 1;
      // Gateway timeouts: 504s the proxy sent in the server's place (the server may have acted).
      const gatewayTimeouts = faults.filter((e) => e.status === 504).length;
      recordStats('fault-proxy', { requests: log.length, faultsInjected: faults.length, gatewayTimeouts, ...byKind });
    },
  };
}
