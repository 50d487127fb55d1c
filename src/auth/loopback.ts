/**
 * The loopback listener of `svc login` (RFC 8252 § 7.3): an HTTP server on 127.0.0.1 only that
 * waits for the one redirect of this login. A redirect without the right `state` is refused
 * with a page and the listener keeps waiting; the first good one is answered after the code
 * has been exchanged (so the browser says what the terminal says), and the server then closes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkCallback, type CallbackOutcome } from './authorize-url.js';
import { finishedPage, notFoundPage, rejectedPage, type CallbackPage } from './callback-pages.js';

/** The default port: fixed so that the redirect URI can be registered with the application. */
export const DEFAULT_LOGIN_PORT = 8976;

/** The path of the redirect URI. */
const CALLBACK_PATH = '/callback';

/** An accepted redirect: its outcome and the way to answer the browser. */
export interface AcceptedCallback {
  outcome: Extract<CallbackOutcome, { kind: 'code' | 'error' }>;
  /** Answers the waiting browser; the listener closes afterwards. */
  respond(page: CallbackPage): Promise<void>;
}

/** A listening loopback server. */
interface Loopback {
  port: number;
  /** `http://127.0.0.1:<port>/callback`. */
  redirectUri: string;
  /** Resolves with the first redirect whose state matches. */
  accepted: Promise<AcceptedCallback>;
  /** Stops listening (idempotent); answers a browser still waiting with `page`. */
  close(page?: CallbackPage): Promise<void>;
}

/** Options of {@link startLoopback}. */
interface LoopbackOptions {
  /** 0 picks a free port. @default 8976 */
  port?: number;
  state: string;
  /** Told about each refused redirect (the CLI prints a warning). */
  onRejected?: (reason: string) => void;
}

function send(res: http.ServerResponse, p: CallbackPage): Promise<void> {
  return new Promise((resolve) => {
    res.writeHead(p.status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      connection: 'close',
    });
    res.end(p.html, () => resolve());
  });
}

/** True for the Host headers a browser sends to this listener (DNS-rebinding guard). */
function loopbackHost(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/** Starts listening on 127.0.0.1; rejects with the listen error (EADDRINUSE…). */
export async function startLoopback(opts: LoopbackOptions): Promise<Loopback> {
  let done = false;
  let waiting: http.ServerResponse | undefined;
  let accept!: (a: AcceptedCallback) => void;
  const accepted = new Promise<AcceptedCallback>((resolve) => (accept = resolve));
  let port = 0;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (!loopbackHost(req.headers.host, port)) {
      void send(res, rejectedPage('the request was not addressed to the loopback listener'));
      return;
    }
    if (url.pathname !== CALLBACK_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      void send(res, notFoundPage());
      return;
    }
    if (done) {
      void send(res, finishedPage());
      return;
    }
    const outcome = checkCallback(url.searchParams, opts.state);
    if (outcome.kind === 'rejected') {
      opts.onRejected?.(outcome.reason);
      void send(res, rejectedPage(outcome.reason));
      return;
    }
    done = true;
    waiting = res;
    accept({
      outcome,
      respond: async (p) => {
        if (waiting === res) {
          waiting = undefined;
          await send(res, p);
        }
        await close();
      },
    });
  });
  // Browsers keep connections alive; nothing else should hold the process once we are done.
  server.keepAliveTimeout = 1000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? DEFAULT_LOGIN_PORT, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  function close(p?: CallbackPage): Promise<void> {
    closing ??= (async () => {
      done = true;
      if (waiting && p) {
        const res = waiting;
        waiting = undefined;
        await send(res, p);
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    })();
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 500).unref();
    return closing;
  }

  return { port, redirectUri: `http://127.0.0.1:${port}${CALLBACK_PATH}`, accepted, close };
}
