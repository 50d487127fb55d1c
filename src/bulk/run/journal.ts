/**
 * The journal of a bulk run: an append-only NDJSON file recording every row that is done (with
 * the server id) so that a rerun after Ctrl-C, a crash or `kill -9` does only the rest.
 *
 * Each entry is written with one `fs.writeSync` as soon as the row is done: once that call
 * returns the line is in the operating system's cache and survives the process being killed.
 * The file is fsync'd every second and when the run ends, which also covers a machine crash
 * except for the last second. A creation is written twice: `pending` before the request goes
 * out and `created` when the answer comes; a row left `pending` by a killed run is looked up on
 * the server before anything is sent again (see the README, "Bulk runs and enroll"). A row the
 * server refused (or that could not be sent) is written `failed` with the reason, so that a
 * rerun knows nothing was done and sends it again (or skips it, with `--skip-failed`) instead of
 * taking it for a write left in doubt.
 *
 * A process killed in the middle of a write leaves a torn last line: reading ignores it, and
 * the next run starts its first entry on a new line.
 *
 * Each run writes its owner first (the org and the command, side-owner.ts): a run reads only
 * the entries its own org and command wrote, so the rows a rehearsal or another org did are
 * never taken for done. The file is opened without following symlinks.
 */
import fs from 'node:fs';
import { describeErrno, LocalIoError, UsageError } from '../../errors.js';
import { parseJson } from '../../lossless-json.js';
import { isSymlinkRefusal, noFollow } from '../../private-file.js';
import { RunLock } from './run-lock.js';
import { ownerKey, parseOwner, sameOwner, type SideOwner } from './side-owner.js';

/** Statuses a journal records. */
export type JournalStatus = 'pending' | 'created' | 'updated' | 'deleted' | 'unknown' | 'failed';

/** One journal line. */
export interface JournalEntry {
  /** Stable key of the row (see row-key.ts). */
  key: string;
  row: number;
  status: JournalStatus;
  id?: number | string | null;
  /** Why a `failed` row failed. */
  error?: string;
  /** ISO time the entry was written. */
  at: string;
}

/** What a journal says about earlier runs. */
export interface JournalState {
  /** Latest entry per key (of the owner asked for, when one was). */
  entries: Map<string, JournalEntry>;
  /** Lines that could not be read other than a torn last line (reported as a warning). */
  damagedLines: number;
  /** The last line was cut short (a process killed mid-write). */
  tornTail: boolean;
  /** Rows recorded for other owners (other orgs or commands): never read as done here. */
  foreign: number;
  /** The other owners, each once. */
  foreignOwners: SideOwner[];
  /** Rows recorded before any owner line (an older svc wrote them): whose they are is unknown. */
  unowned: number;
  /** Bytes read (0 for no file): the writer checks, under the lock, that nobody wrote since. */
  bytes: number;
}

/** An empty journal (no file, or none asked for). */
export function emptyJournal(): JournalState {
  return { entries: new Map(), damagedLines: 0, tornTail: false, foreign: 0, foreignOwners: [], unowned: 0, bytes: 0 };
}

/** The line that starts each run's entries: `{"owner":{...},"at":...}`. */
interface OwnerLine {
  owner: SideOwner;
}

/**
 * Reads a journal; a missing file is an empty journal. Streams the file so that a journal of
 * many rows costs the memory of its entries only.
 *
 * A journal is a sequence of runs, each starting with the line of its owner (org and command,
 * see side-owner.ts); given `owner`, only the entries of that owner's runs are read, and the
 * others are counted in `foreign` (or `unowned`, before any owner line). Without it every entry
 * is read (tests, tools).
 */
export async function readJournal(file: string, owner?: SideOwner): Promise<JournalState> {
  const state = emptyJournal();
  let input: fs.ReadStream;
  try {
    const fd = fs.openSync(file, noFollow('r'));
    try {
      checkRegularFd(file, fd);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    input = fs.createReadStream('', { fd, encoding: 'utf8' });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return state;
    throw new UsageError(`--journal ${file}: cannot read the journal (${symlinkOr(err)})`);
  }
  let rest = '';
  let badInMiddle = 0;
  /** The owner of the lines being read: undefined before the first owner line. */
  let current: SideOwner | undefined;
  let mine = owner === undefined;
  const foreignKeys = new Set<string>();
  /** Rows of other owners and of none, counted once each (a create writes two lines). */
  const foreignRows = new Set<string>();
  const unownedRows = new Set<string>();
  const take = (line: string, last: boolean) => {
    if (line.trim() === '') return;
    const parsed = parseLine(line);
    if (parsed && 'owner' in parsed) {
      current = parsed.owner;
      mine = owner === undefined || sameOwner(current, owner);
      if (!mine && !foreignKeys.has(ownerKey(current))) {
        foreignKeys.add(ownerKey(current));
        state.foreignOwners.push(current);
      }
    } else if (parsed) {
      if (mine) state.entries.set(parsed.key, parsed);
      else if (current === undefined) unownedRows.add(parsed.key);
      else foreignRows.add(`${ownerKey(current)}\n${parsed.key}`);
    } else if (last) state.tornTail = true;
    else badInMiddle++;
  };
  for await (const chunk of input) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop()!;
    for (const line of lines) take(line, false);
  }
  // Text after the last newline was never finished: a torn write, whatever it holds.
  if (rest.trim() !== '') take(rest, true);
  state.damagedLines = badInMiddle;
  state.foreign = foreignRows.size;
  state.unowned = unownedRows.size;
  state.bytes = input.bytesRead;
  return state;
}

/** The error code of a failed open, saying so when it was a symlink refused. */
function symlinkOr(err: unknown): string {
  return isSymlinkRefusal(err) ? 'a symbolic link: name the file itself' : ((err as NodeJS.ErrnoException).code ?? 'error');
}

/**
 * A journal is read back and appended to: a directory cannot be one, and a device such as
 * `/dev/full` would be read forever.
 */
function checkRegularFd(file: string, fd: number): void {
  const st = fs.fstatSync(fd);
  if (st.isFile()) return;
  throw new UsageError(
    `--journal ${file}: ${st.isDirectory() ? 'is a directory' : 'is not a regular file'}; the journal must be a file`,
  ).hint('name a file, e.g. --journal run.journal.ndjson');
}

/** A journal that is not a regular file is refused before its lock is made (beside `/dev/null`, say). */
function checkBeforeLock(file: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return; // none yet, or unreadable: the open says why
  }
  if (st.isSymbolicLink()) throw new UsageError(`--journal ${file}: cannot write the journal (${symlinkOr({ code: 'ELOOP' })})`);
  if (!st.isFile())
    throw new UsageError(
      `--journal ${file}: ${st.isDirectory() ? 'is a directory' : 'is not a regular file'}; the journal must be a file`,
    ).hint('name a file, e.g. --journal run.journal.ndjson');
}

function parseLine(line: string): JournalEntry | OwnerLine | undefined {
  try {
    const o = parseJson(line) as Partial<JournalEntry> & { owner?: unknown };
    if (typeof o !== 'object' || o === null) return undefined;
    if ('owner' in o) {
      const owner = parseOwner(o.owner);
      return owner ? { owner } : undefined;
    }
    if (typeof o.key !== 'string' || typeof o.status !== 'string') return undefined;
    return o as JournalEntry;
  } catch {
    return undefined;
  }
}

/**
 * Takes a journal's lock (two runs writing one journal would each redo the other's rows), before
 * the run reads the journal: a second run is refused before it reads, prints or sends anything
 * (it read the live run's rows as "done by earlier runs", a trial). A lock left by a process that
 * no longer runs is taken over. The holder hands it to {@link JournalWriter.open}.
 */
export function lockJournal(file: string): RunLock {
  checkBeforeLock(file);
  const lock = journalLock(file);
  lock.take();
  return lock;
}

function journalLock(file: string): RunLock {
  return new RunLock(`${file}.lock`, `--journal ${file}`);
}

/** Appends entries to a journal, synchronously, one line per call. */
export class JournalWriter {
  private fd: number | undefined;
  private lastSync = 0;
  private lock: RunLock;

  /**
   * @param redact applied to the `error` of failed rows: error texts come from servers and
   *   networks, and known secrets never reach the journal
   * @param owner written first, so that the entries of this run are read by this owner only
   */
  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
    private readonly redact: (text: string) => string = (t) => t,
    private readonly owner?: SideOwner,
  ) {
    this.lock = journalLock(file);
  }

  /**
   * Takes the journal's lock, unless `held` is it (taken by {@link lockJournal} before the run
   * read the journal), and opens the journal for appending; closing releases the lock either way.
   *
   * @param readBytes the size the journal had when this run read it (`JournalState.bytes`): a
   *   journal that is no longer that size is refused, not appended to, since this run's plan
   *   would do the rows written since again (read without the lock, by a writer that ignored it).
   */
  open(readBytes?: number, held?: RunLock): void {
    if (held) this.lock = held;
    else {
      checkBeforeLock(this.file);
      this.lock.take();
    }
    try {
      this.fd = fs.openSync(this.file, noFollow('a+'), 0o600);
      checkRegularFd(this.file, this.fd);
      const size = fs.fstatSync(this.fd).size;
      if (readBytes !== undefined && size !== readBytes) {
        throw new UsageError(`--journal ${this.file}: another svc run wrote to it while this run was reading it`).hint(
          'run the same command again when that run is over: it skips what that run did',
        );
      }
      // A torn last line from a killed run: start on a fresh line so ours stays readable.
      if (size > 0) {
        const b = Buffer.alloc(1);
        fs.readSync(this.fd, b, 0, 1, size - 1);
        if (b[0] !== 0x0a) fs.writeSync(this.fd, '\n');
      }
      // Every run starts with its owner: the lines after it are that org's and that command's.
      if (this.owner) fs.writeSync(this.fd, JSON.stringify({ owner: this.owner, at: new Date(this.now()).toISOString() }) + '\n');
    } catch (err) {
      if (this.fd !== undefined) fs.closeSync(this.fd);
      this.fd = undefined;
      this.lock.release();
      if (err instanceof UsageError) throw err;
      throw new UsageError(`--journal ${this.file}: cannot write the journal (${symlinkOr(err)})`);
    }
  }

  /** Writes one entry now. */
  write(entry: Omit<JournalEntry, 'at'>): void {
    if (this.fd === undefined) return;
    const e = entry.error !== undefined ? { ...entry, error: this.redact(entry.error) } : entry;
    const line = JSON.stringify({ ...e, at: new Date(this.now()).toISOString() }) + '\n';
    try {
      fs.writeSync(this.fd, line);
      const t = this.now();
      if (t - this.lastSync >= 1000) {
        this.lastSync = t;
        fs.fsyncSync(this.fd);
      }
    } catch (err) {
      // Going on without the journal would lose what a rerun needs to skip: stop here.
      throw new LocalIoError(`--journal ${this.file}: cannot write the journal: ${describeErrno(err)}`).hint(
        'free some space and run the same command again: rows already recorded are skipped',
      );
    }
  }

  /** Flushes to disk, closes, and releases the lock. */
  close(): void {
    if (this.fd !== undefined) {
      try {
        fs.fsyncSync(this.fd);
      } catch {
        // fsync is not supported everywhere (some network file systems); the data is written
      }
      fs.closeSync(this.fd);
      this.fd = undefined;
    }
    this.lock.release();
  }
}

/** The outcome of a row an earlier run recorded `failed`, under `--skip-failed`. */
export function skippedFailed(
  e: JournalEntry,
  extra: Record<string, unknown> = {},
): { status: 'skipped'; id: null; extra: Record<string, unknown> } {
  return {
    status: 'skipped',
    id: null,
    extra: { ...extra, reason: `failed in an earlier run (journal: ${e.error ?? 'no reason recorded'}); --skip-failed` },
  };
}

/** The default journal beside the input: `<input>.journal.ndjson` (`<input>.sandbox.journal.ndjson` against the sandbox). */
export function defaultJournalPath(input: string, sandbox = false): string {
  return sandbox ? `${input}.sandbox.journal.ndjson` : `${input}.journal.ndjson`;
}
