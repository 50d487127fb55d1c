/**
 * What the tests of test/events/ share: a webhook receiver in the test process (its answers
 * switchable: taking, down with 500, hanging past the 5 s timeout), a spawned svc whose output is
 * watched as it comes (or its twin in this process), and the events index read straight from the
 * sandbox.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { startInProcess } from '../helpers/in-process-cli.js';
import { spawnSvc } from '../helpers/run-svc.js';
import type { Client } from '../helpers/sandbox.js';

/** One POST the receiver got. */
export interface Got {
  body: string;
  headers: http.IncomingHttpHeaders;
  /** What it answered. */
  status: number;
}

/** A receiver on 127.0.0.1: `mode` says how it answers the next requests. */
export interface Receiver {
  url: string;
  got: Got[];
  mode: 'take' | 'down' | 'hang';
  /** Bodies answered 2xx, one per event id (the receiver's own de-duplication by Svc-Event-Id). */
  takenIds(): string[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const r = { got: [] as Got[], mode: 'take' as Receiver['mode'] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (r.mode === 'hang') {
        r.got.push({ body, headers: req.headers, status: 0 });
        return; // never answers: the sender's timeout ends it
      }
      const status = r.mode === 'down' ? 500 : 200;
      r.got.push({ body, headers: req.headers, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(r, {
    url: `http://127.0.0.1:${port}/hooks`,
    takenIds() {
      return r.got.filter((g) => g.status === 200).map((g) => String(g.headers['svc-event-id']));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A spawned svc whose stdout and stderr are collected as they come. */
export interface Watched {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  /** Resolves when `test` holds of the output so far; rejects after `ms` with the output. */
  until(test: (o: { stdout: string; stderr: string }) => boolean, ms?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Waits until `test` holds of the output so far, looking every 25 ms; fails after `ms`, or once
 * `ended()` says how the run ended, with the output.
 */
function untilOf(out: { stdout: string; stderr: string }, ended: () => string | undefined) {
  return async (test: (o: { stdout: string; stderr: string }) => boolean, ms = 20_000) => {
    const end = Date.now() + ms;
    while (!test(out)) {
      if (Date.now() > end) throw new Error(`timed out waiting; stdout:\n${out.stdout.slice(-2000)}\nstderr:\n${out.stderr.slice(-2000)}`);
      const how = ended();
      if (how !== undefined) throw new Error(`svc ${how}; stderr:\n${out.stderr.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
}

export function watch(args: string[], env: Record<string, string>): Watched {
  const child = spawnSvc(args, { env });
  const out = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  child.stdin!.end();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const until = untilOf(out, () => (child.exitCode !== null ? `exited ${child.exitCode}` : undefined));
  return { child, out, until, exited };
}

/** svc run in this process (`startInProcess`), its output collected as it comes; `interrupt()` is a Ctrl-C. */
export interface WatchedInProcess {
  out: { stdout: string; stderr: string };
  /** Resolves when `test` holds of the output so far; rejects after `ms` with the output. */
  until(test: (o: { stdout: string; stderr: string }) => boolean, ms?: number): Promise<void>;
  interrupt(): void;
  /** Its exit code (null: it did not end within the time limit). */
  exited: Promise<{ code: number | null }>;
}

/** {@link watch}'s twin in this process, for a long-running command whose process is not under test. */
export function watchInProcess(args: string[], env: Record<string, string>, timeoutMs = 600_000): WatchedInProcess {
  const run = startInProcess(args, { env, timeoutMs });
  let ended: number | null | undefined;
  const exited = run.exited.then((code) => ({ code: (ended = code) }));
  const out = {
    get stdout() {
      return run.stdout();
    },
    get stderr() {
      return run.stderr();
    },
  };
  return {
    out,
    until: untilOf(out, () => (ended !== undefined ? `ended (${ended})` : undefined)),
    interrupt: () => void run.stop(),
    exited,
  };
}

/** Polls until `test` holds (or fails with `what`). */
export async function eventually(test: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The events index from `fromIso` on, in (updatedAt, id) order, read straight from the sandbox. */
export async function indexEvents(c: Client, fromIso: string): Promise<{ id: string; name: string; payload: any; updatedAt: string }[]> {
  const out: { id: string; name: string; payload: any; updatedAt: string }[] = [];
  for (let offset = 0; ; offset += 1000) {
    const r = await c.get(`/events?sort=updatedAt,id&filter[updatedAt]=${fromIso}..inf&page[limit]=1000&page[offset]=${offset}`);
    if (r.status !== 200) throw new Error(`GET /events: ${r.status} ${r.text}`);
    for (const e of r.body.data)
      out.push({ id: String(e.id), name: e.attributes.name, payload: e.attributes.payload, updatedAt: e.attributes.updatedAt });
    if (r.body.data.length < 1000) return out;
  }
}

/** Runs `n` writes (account creates and updates) at `concurrency` at a time. */
export async function writes(c: Client, n: number, concurrency = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const r = await c.post('/accounts', { data: { type: 'account', attributes: { name: `bulk ${i}` } } });
      if (r.status !== 201) throw new Error(`POST /accounts: ${r.status} ${r.text}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** `YYYY-MM-DDThh:mm:ssZ` of a time, floored to the second. */
export function isoSecond(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}
