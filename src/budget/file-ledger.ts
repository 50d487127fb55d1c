/**
 * The ledger as a small JSON file per user and API in the data directory (owner-only), read and
 * rewritten whole under a lock file for each step: a take is one read and one write of a file
 * of a few hundred bytes. The rules are ledger.ts's; this file only keeps the state.
 *
 * A file this svc cannot use — not JSON, a newer version's, owned by another user, a symlink —
 * is never changed: {@link LedgerUnusable} says why, and the caller paces by the headers alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { acquireLock, pidAlive } from '../auth/lock.js';
import { noFollow, writeFileAtomicSync } from '../private-file.js';
import {
  checkState,
  emptyState,
  giveBack,
  ledgerKey,
  LedgerUnusable,
  report,
  take,
  tidy,
  view,
  type Ledger,
  type LedgerState,
  type LedgerView,
  type TakeRequest,
  type TakeResult,
} from './ledger.js';

export { LedgerUnusable };

/** The ledger's file for a user (a stable key: the user id, or a token's hash) and base URL. */
export function ledgerFile(dataDir: string, user: string, baseUrl: string): string {
  return path.join(dataDir, 'budget', `${ledgerKey(user, baseUrl)}.json`);
}

export class FileLedger implements Ledger {
  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
  ) {}

  get where(): string {
    return this.file;
  }

  take(req: TakeRequest): Promise<TakeResult> {
    return this.update((s) => take(s, req, this.world()));
  }

  giveBack(req: Omit<TakeRequest, 'want'>): Promise<void> {
    return this.update((s) => giveBack(s, req, this.world()));
  }

  report(req: Omit<TakeRequest, 'want'>): Promise<void> {
    return this.update((s) => report(s, req, this.world()));
  }

  async leases(): Promise<LedgerView> {
    // Read under the lock and tidied in place, so that `svc limits` never shows a dead process.
    return this.update((s) => {
      tidy(s, this.world());
      return view(s, this.now());
    });
  }

  private world() {
    return { now: this.now(), host: os.hostname(), alive: pidAlive };
  }

  /** One step: lock, read, change, write, unlock. */
  private async update<T>(fn: (s: LedgerState) => T): Promise<T> {
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new LedgerUnusable(`cannot create ${path.dirname(this.file)} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    let release: () => void;
    try {
      // Held for a read and a write: a holder that is slower than this is hung or gone.
      release = await acquireLock(`${this.file}.lock`, { timeoutMs: 3_000, staleMs: 10_000, pollMs: 2 });
    } catch (err) {
      throw new LedgerUnusable(`cannot take the lock ${this.file}.lock (${(err as Error).message})`);
    }
    try {
      const state = this.read();
      const out = fn(state);
      try {
        writeFileAtomicSync(this.file, `${JSON.stringify(state)}\n`);
      } catch (err) {
        throw new LedgerUnusable(`cannot write ${this.file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      return out;
    } finally {
      release();
    }
  }

  private read(): LedgerState {
    let fd: number;
    try {
      fd = fs.openSync(this.file, noFollow('r'));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return emptyState();
      throw new LedgerUnusable(`${this.file} cannot be opened (${code === 'ELOOP' ? 'a symlink' : (code ?? 'error')})`);
    }
    try {
      const st = fs.fstatSync(fd);
      const uid = process.getuid?.();
      if (uid !== undefined && st.uid !== uid) throw new LedgerUnusable(`${this.file} belongs to another user (uid ${st.uid})`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(fs.readFileSync(fd, 'utf8'));
      } catch {
        throw new LedgerUnusable(`${this.file} is not a ledger (not JSON)`);
      }
      const bad = checkState(parsed);
      if (bad) throw new LedgerUnusable(`${this.file} is ${bad}`);
      return parsed as LedgerState;
    } finally {
      fs.closeSync(fd);
    }
  }
}
