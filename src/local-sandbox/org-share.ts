/**
 * One process at a time serves the zero-set-up sandbox's org file, so that two `svc --sandbox`
 * processes never overwrite each other's changes. The owner holds a lock on the org file for as
 * long as it runs and announces its server beside the org file; the others use that server (and
 * so share its org, its webhooks and their deliveries). A running `svc sandbox` still comes
 * first: it announces itself in the user's state file.
 *
 * Every process using the owner's server has a file under `sandbox-clients/` naming the pid it
 * uses. An owner that exits stops announcing itself, lets those processes finish (a few seconds
 * at most), waits for webhook deliveries in progress, writes the org, and only then releases the
 * lock. A process still running then (a listener, a long bulk run) takes the org over on the
 * same port, so its base URL stays valid; a process that starts meanwhile waits for the lock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { acquireLock, LockTimeoutError, pidAlive } from '../auth/lock.js';
import type { Sandbox } from '../sandbox/index.js';
import { clearState, clientsDir, lastPortFile, orgLockFile, ownerStateFile, writeState, type SandboxState } from './state-file.js';

/**
 * How long an exiting owner lets the processes using its server finish: long enough for a few
 * node processes started at once on a loaded machine to send their requests.
 */
const CLIENT_GRACE_MS = 10_000;
/** How long an exiting owner waits for webhook deliveries in progress. */
const DELIVERY_GRACE_MS = 6_000;
/** How often a process using another's server checks that the owner still runs. */
const WATCH_MS = 100;
/** The org lock is held for a whole run: only a vanished pid makes it stale. */
const NEVER_STALE = Number.MAX_SAFE_INTEGER;

/** What this process is to the shared org. */
interface OrgShare {
  /** The server this process uses (the same URL for as long as it runs). */
  state: SandboxState;
  /** Leaves the org: as its owner, hands it over cleanly; otherwise unregisters. */
  leave(): Promise<void>;
}

interface Env {
  env: NodeJS.ProcessEnv;
  orgFile: string;
  trace: (line: string) => void;
  warn: (line: string) => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** This process's entry under `sandbox-clients/`: the owner pid it uses, `waiting` before that. */
export class ClientMark {
  private readonly file: string;

  constructor(env: NodeJS.ProcessEnv) {
    const dir = clientsDir(env);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = path.join(dir, String(process.pid));
  }

  set(what: number | 'attaching' | 'waiting'): void {
    fs.writeFileSync(this.file, String(what), { mode: 0o600 });
  }

  remove(): void {
    fs.rmSync(this.file, { force: true });
  }
}

/**
 * Live processes other than this one that use (or are about to use) the server of `ownerPid`.
 * Entries of processes that are gone are removed.
 */
function clientsOf(env: NodeJS.ProcessEnv, ownerPid: number): number[] {
  const dir = clientsDir(env);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    if (!pidAlive(pid)) {
      fs.rmSync(path.join(dir, name), { force: true });
      continue;
    }
    let mark = '';
    try {
      mark = fs.readFileSync(path.join(dir, name), 'utf8');
    } catch {
      continue;
    }
    if (mark === String(ownerPid) || mark === 'attaching') out.push(pid);
  }
  return out;
}

function readLastPort(env: NodeJS.ProcessEnv, orgFile: string): number {
  try {
    const n = Number(fs.readFileSync(lastPortFile(env, orgFile), 'utf8'));
    return Number.isInteger(n) && n > 0 && n < 65536 ? n : 0;
  } catch {
    return 0;
  }
}

/** Starts the sandbox on `port`, or on the org's last port when free, else on any port. */
async function startOn(e: Env, port: number): Promise<Sandbox> {
  // Performance machinery (src/README.md, Build): loaded with import() when first used.
  const { startSandbox } = await import('../sandbox/index.js');
  const preferred = port || readLastPort(e.env, e.orgFile);
  try {
    return await startSandbox({ port: preferred, dataFile: e.orgFile });
  } catch (err) {
    if (port || !preferred || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    return startSandbox({ port: 0, dataFile: e.orgFile });
  }
}

/**
 * Becomes the owner of the org file if nobody is: takes the lock (without waiting), starts the
 * sandbox on `port` (0: the org's last port if free, else any), announces it. Undefined when
 * another process holds the lock.
 */
export async function tryOwn(e: Env, port: number): Promise<{ sb: Sandbox; state: SandboxState; release: () => void } | undefined> {
  return ownWith(e, () => startOn(e, port));
}

/**
 * {@link tryOwn} with the sandbox started by the caller (`svc sandbox --data FILE` and its
 * options): the lock is taken first, so the org file is loaded by its owner only.
 */
export async function ownWith(
  e: Env,
  start: () => Promise<Sandbox>,
): Promise<{ sb: Sandbox; state: SandboxState; release: () => void } | undefined> {
  let release: () => void;
  try {
    release = await acquireLock(orgLockFile(e.env, e.orgFile), { timeoutMs: 0, staleMs: NEVER_STALE });
  } catch (err) {
    if (err instanceof LockTimeoutError) return undefined;
    throw err;
  }
  try {
    // Loaded under the lock: the previous owner wrote its last changes before releasing it.
    const sb = await start();
    const state: SandboxState = { pid: process.pid, baseUrl: sb.baseUrl, authUrl: sb.authUrl, token: sb.token };
    fs.writeFileSync(lastPortFile(e.env, e.orgFile), new URL(sb.baseUrl).port, { mode: 0o600 });
    writeState(e.env, state, ownerStateFile(e.env, e.orgFile));
    return { sb, state, release };
  } catch (err) {
    release();
    throw err;
  }
}

/** The pid serving an org file, if a live process holds its lock. */
export function orgHolder(env: NodeJS.ProcessEnv, orgFile: string): number | undefined {
  const pid = lockHolder(env, orgFile);
  return pid !== undefined && pidAlive(pid) ? pid : undefined;
}

/** Leaves an org served with {@link ownWith}: its users finish, deliveries land, the org is written. */
export function leaveOwned(e: Env, owned: { sb: Sandbox; release: () => void }): Promise<void> {
  return closeOwned(e, owned);
}

/** Hands the org over: no new users, current users finish, deliveries land, the org is written. */
async function closeOwned(e: Env, owned: { sb: Sandbox; release: () => void }): Promise<void> {
  clearState(e.env, process.pid, ownerStateFile(e.env, e.orgFile));
  const until = Date.now() + CLIENT_GRACE_MS;
  let users = clientsOf(e.env, process.pid);
  if (users.length) e.trace(`waiting for ${users.length} process(es) using this sandbox (pid ${users.join(', ')})`);
  while (users.length && Date.now() < until) {
    await sleep(50);
    users = clientsOf(e.env, process.pid);
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([owned.sb.webhooksIdle(), new Promise<void>((r) => (timer = setTimeout(r, DELIVERY_GRACE_MS)))]);
  clearTimeout(timer);
  await owned.sb.close({ drainMs: 2_000 });
  owned.release();
}

/** The sandbox this process started and serves to others until it exits. */
export function ownerShare(e: Env, owned: { sb: Sandbox; state: SandboxState; release: () => void }, mark: ClientMark): OrgShare {
  mark.remove();
  return { state: owned.state, leave: () => closeOwned(e, owned) };
}

/**
 * Uses the server of another process; if that owner exits while this one runs, takes the org
 * over on the same port (another user may win the lock: then this one uses its server).
 */
export function clientShare(e: Env, state: SandboxState, mark: ClientMark): OrgShare {
  mark.set(state.pid);
  let ownerPid = state.pid;
  let owned: { sb: Sandbox; release: () => void } | undefined;
  let busy = false;
  const port = Number(new URL(state.baseUrl).port);
  const watch = setInterval(() => {
    if (busy || owned || (pidAlive(ownerPid) && lockHolder(e.env, e.orgFile) === ownerPid)) return;
    busy = true;
    void takeOver()
      .catch((err: Error) => {
        // Said once: the requests that follow fail and say why.
        clearInterval(watch);
        e.warn(`the sandbox's owner exited and this process could not take the org over: ${err.message}`);
      })
      .finally(() => (busy = false));
  }, WATCH_MS);
  watch.unref();

  async function takeOver(): Promise<void> {
    const holder = lockHolder(e.env, e.orgFile);
    if (holder !== undefined && holder !== ownerPid && pidAlive(holder)) {
      // Someone else took it over; it listens on the same port once it announces itself.
      ownerPid = holder;
      mark.set(holder);
      return;
    }
    const mine = await tryOwn(e, port).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EADDRINUSE') throw err;
      return undefined;
    });
    if (!mine) return;
    owned = mine;
    mark.remove();
    e.trace(`pid ${ownerPid} exited: this process now serves the sandbox at ${mine.state.baseUrl}`);
  }

  return {
    state,
    async leave() {
      clearInterval(watch);
      while (busy) await sleep(10);
      if (owned) await closeOwned(e, owned);
      else mark.remove();
    },
  };
}

/** The pid holding the org lock, if any. */
function lockHolder(env: NodeJS.ProcessEnv, orgFile: string): number | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(orgLockFile(env, orgFile), 'utf8')) as { pid?: unknown };
    return typeof v.pid === 'number' ? v.pid : undefined;
  } catch {
    return undefined;
  }
}
