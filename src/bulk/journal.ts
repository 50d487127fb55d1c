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
 */
import fs from 'node:fs';
import { describeErrno, LocalIoError, UsageError } from '../errors.js';
import { parseJson } from '../lossless-json.js';

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
  /** Latest entry per key. */
  entries: Map<string, JournalEntry>;
  /** Lines that could not be read other than a torn last line (reported as a warning). */
  damagedLines: number;
  /** The last line was cut short (a process killed mid-write). */
  tornTail: boolean;
}

/**
 * Reads a journal; a missing file is an empty journal. Streams the file so that a journal of
 * many rows costs the memory of its entries only.
 */
export async function readJournal(file: string): Promise<JournalState> {
  const state: JournalState = { entries: new Map(), damagedLines: 0, tornTail: false };
  let input: fs.ReadStream;
  try {
    await fs.promises.access(file, fs.constants.R_OK);
    checkRegularFile(file);
    input = fs.createReadStream(file, { encoding: 'utf8' });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return state;
    throw new UsageError(`--journal ${file}: cannot read the journal (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let rest = '';
  let badInMiddle = 0;
  const take = (line: string, last: boolean) => {
    if (line.trim() === '') return;
    const e = parseEntry(line);
    if (e) {
      state.entries.set(e.key, e);
      return;
    }
    if (last) state.tornTail = true;
    else badInMiddle++;
  };
  for await (const chunk of input) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop()!;
    for (const line of lines) take(line, false);
  }
  // Text after the last newline was never finished: a torn write, whatever it holds.
  if (rest.trim() !== '') {
    const e = parseEntry(rest);
    if (e) state.entries.set(e.key, e);
    else state.tornTail = true;
  }
  state.damagedLines = badInMiddle;
  return state;
}

/**
 * A journal is read back and appended to: a directory cannot be one, and a device such as
 * `/dev/full` would be read forever.
 */
function checkRegularFile(file: string): void {
  const st = fs.statSync(file);
  if (st.isFile()) return;
  throw new UsageError(
    `--journal ${file}: ${st.isDirectory() ? 'is a directory' : 'is not a regular file'}; the journal must be a file`,
  ).hint('name a file, e.g. --journal run.journal.ndjson');
}

function parseEntry(line: string): JournalEntry | undefined {
  try {
    const o = parseJson(line) as Partial<JournalEntry>;
    if (typeof o !== 'object' || o === null || typeof o.key !== 'string' || typeof o.status !== 'string') return undefined;
    return o as JournalEntry;
  } catch {
    return undefined;
  }
}

/** Appends entries to a journal, synchronously, one line per call. */
export class JournalWriter {
  private fd: number | undefined;
  private lastSync = 0;
  private readonly lockFile: string;
  private locked = false;

  /**
   * @param redact applied to the `error` of failed rows: error texts come from servers and
   *   networks, and known secrets never reach the journal
   */
  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
    private readonly redact: (text: string) => string = (t) => t,
  ) {
    this.lockFile = `${file}.lock`;
  }

  /**
   * Takes the journal's lock (two runs writing one journal would each redo the other's rows)
   * and opens it for appending. A lock left by a process that no longer runs is taken over.
   */
  open(): void {
    if (fs.existsSync(this.file)) checkRegularFile(this.file);
    this.lock();
    try {
      this.fd = fs.openSync(this.file, 'a+', 0o600);
      // A torn last line from a killed run: start on a fresh line so ours stays readable.
      const size = fs.fstatSync(this.fd).size;
      if (size > 0) {
        const b = Buffer.alloc(1);
        fs.readSync(this.fd, b, 0, 1, size - 1);
        if (b[0] !== 0x0a) fs.writeSync(this.fd, '\n');
      }
    } catch (err) {
      this.unlock();
      throw new UsageError(`--journal ${this.file}: cannot write the journal (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
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
    this.unlock();
  }

  private lock(): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.writeFileSync(this.lockFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
        this.locked = true;
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new UsageError(`--journal ${this.file}: cannot create the lock file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
        }
        const pid = Number(safeRead(this.lockFile).trim());
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
          throw new UsageError(`--journal ${this.file}: another svc run (pid ${pid}) is using this journal`).hint(
            `wait for it to finish, or remove ${this.lockFile} if that process is not svc`,
          );
        }
        // Stale: the run that held it was killed.
        try {
          fs.unlinkSync(this.lockFile);
        } catch {
          // someone else removed it first; try again
        }
      }
    }
    throw new UsageError(`--journal ${this.file}: cannot take the lock ${this.lockFile}`);
  }

  private unlock(): void {
    if (!this.locked) return;
    this.locked = false;
    try {
      fs.unlinkSync(this.lockFile);
    } catch {
      // already gone
    }
  }
}

function safeRead(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
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
