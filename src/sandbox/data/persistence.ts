/**
 * The data file: the whole org (records, organization settings, tokens) as one JSON document,
 * written atomically (temporary file in the same directory, then rename) so that a crash
 * leaves either the old or the new file, never a torn one. Writes are debounced (250 ms); what
 * changed since the last one is in the change log beside it ({@link ChangeLog}), written before
 * each answer leaves, so a process killed outright loses no change it acknowledged, and no id
 * is ever handed out twice ({@link IdReservations}).
 */
import { closeSync, constants, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { describeErrno, UsageError } from '../../errors.js';
import { writeFileAtomic, writeFileAtomicSync } from '../../private-file.js';
import type { AuthSnapshot } from '../http/auth.js';
import type { OrgConfig } from './org.js';
import type { Rec, StoreSnapshot } from './store.js';

/** Format version of the data file. */
export const DATA_VERSION = 1;

/** Content of the data file. */
export interface DataFile {
  version: number;
  /** The last change ({@link ChangeLog}) the file holds; absent (0) in files written before the log. */
  seq?: number;
  ownerUserId: number;
  org: OrgConfig;
  store: StoreSnapshot;
  auth: AuthSnapshot;
}

/** Reads a data file; undefined when it does not exist. Throws on a corrupt or foreign file. */
export function readDataFile(path: string): DataFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`sandbox data file ${path}: cannot read it: ${describeErrno(e)}`);
  }
  let data: DataFile;
  try {
    data = JSON.parse(text) as DataFile;
  } catch (e) {
    throw damagedDataFile(path, `not valid JSON: ${(e as Error).message}`);
  }
  if (typeof data !== 'object' || data === null) throw damagedDataFile(path, 'not a JSON object');
  if (data.version !== DATA_VERSION) throw damagedDataFile(path, `unsupported sandbox data version ${String(data.version)}`);
  for (const part of ['org', 'store', 'auth'] as const) {
    if (typeof data[part] !== 'object' || data[part] === null) throw damagedDataFile(path, `"${part}" is missing`);
  }
  return data;
}

/** A data file the sandbox cannot load: the user decides whether to repair it or start afresh. */
export function damagedDataFile(path: string, why: string): UsageError {
  return new UsageError(`sandbox data file ${path} is damaged (${why})`).hint(
    `repair it, or move it away to start a fresh org (the records in it are not loaded)`,
  );
}

function tempName(path: string): string {
  return `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/** Ids reserved per block: one small synchronous write per this many records created of a type. */
const ID_BLOCK = 1_000;

/**
 * Ids handed out are never handed out again, even when the process serving the org is killed
 * (`kill -9`) between a write and the debounced save that would have recorded it: before a
 * type's next id passes its reserved mark, the mark is moved a block ahead in `<file>.ids`,
 * written and synced before the id is used. The next run starts above every mark. A clean
 * shutdown, whose final save records the exact next ids, removes the file, so that ids stay
 * consecutive across ordinary restarts.
 */
export class IdReservations {
  private readonly file: string;
  private readonly marks: Record<string, number>;

  constructor(dataFile: string) {
    this.file = `${dataFile}.ids`;
    this.marks = IdReservations.read(this.file);
  }

  private static read(file: string): Record<string, number> {
    try {
      const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
      return Object.fromEntries(Object.entries(v).filter((e): e is [string, number] => Number.isSafeInteger(e[1])));
    } catch {
      return {};
    }
  }

  /** The next ids an earlier run may have handed out up to (a crash leaves them above the data file's). */
  floor(): Record<string, number> {
    return { ...this.marks };
  }

  /** Called before `id` of `type` is used: moves the mark ahead first when the id reaches it. */
  use(type: string, id: number): void {
    if (id < (this.marks[type] ?? 0)) return;
    this.marks[type] = id + ID_BLOCK;
    const tmp = tempName(this.file);
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      writeSync(fd, JSON.stringify(this.marks));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }

  /** After the final save: the data file holds the exact next ids. */
  release(): void {
    rmSync(this.file, { force: true });
  }
}

/** Writes synchronously (start-up and shutdown). */
export function writeDataFileSync(path: string, data: DataFile): void {
  mkdirSync(dirname(path), { recursive: true });
  // Through an unpredictable temporary name, created exclusively: never through a planted link.
  writeFileAtomicSync(path, JSON.stringify(data), 0o600);
}

/** Writes asynchronously. */
async function writeDataFile(path: string, data: DataFile): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(data), 0o600);
}

/**
 * Saves `snapshot()` to `path` at most every `delayMs` after {@link Saver.touch}. `version` is a
 * counter bumped on every change: {@link Saver.flushChanged} writes only when it moved since the
 * file last held the data.
 */
export class Saver {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  /** `version()` when the file last held the data; undefined until then. */
  private written: number | undefined;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => DataFile,
    private readonly version: () => number,
    private readonly delayMs = 250,
    /** Told each snapshot once the file holds it (the change log is cut). */
    private readonly onWritten?: (data: DataFile) => void,
  ) {}

  /** The file holds the data as it is now (just loaded, or written by the caller). */
  markWritten(): void {
    this.written = this.version();
  }

  /** Marks the data changed; a write follows shortly. */
  touch(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.delayMs);
    this.timer.unref();
  }

  /** Writes now (waiting for a write in progress first). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.writing) await this.writing;
    const v = this.version();
    const data = this.snapshot();
    this.writing = writeDataFile(this.path, data)
      .then(() => {
        this.written = v;
        this.onWritten?.(data);
      })
      .finally(() => {
        this.writing = undefined;
      });
    await this.writing;
  }

  /**
   * {@link flush} unless nothing changed since the file last held the data: a command that only
   * read the org (most `svc --sandbox` commands) does not write it again on exit (~0.1 MB for
   * the default org, ~1 MB for a copy, on every command).
   */
  async flushChanged(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.timer === undefined && this.written !== undefined && this.written === this.version()) return;
    await this.flush();
  }
}

/**
 * One line of the change log: what a change moved, as whole values (a record as it now is, a
 * removed record's id, next ids, meta keys, the persisted tokens), so that replaying a line
 * again, or one whose change the data file already holds, leaves the same org.
 */
interface ChangeEntry {
  /** Sequence number: one more than the line before. */
  s: number;
  put?: [type: string, rec: Rec][];
  del?: [type: string, id: number][];
  next?: Record<string, number>;
  meta?: Record<string, unknown>;
  auth?: AuthSnapshot;
}

/** First line of a change log: the org it belongs to and the data file's `seq` it follows. */
interface LogHeader {
  org: string;
  after: number;
}

const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW = 0 } = constants;

/**
 * The change log `<file>.log`: every change of the org since the data file was last written,
 * one line each, appended with one `write` before the answer that acknowledges it leaves. No
 * fsync: a killed process's writes stay in the page cache (a power cut may still lose the last
 * seconds, as with the data file). The debounced save of the whole file then cuts the log: the
 * lines the file now holds (its `seq` and before) go; lines written while it was being written
 * stay, in a new log put in place with a rename. The next load replays the lines after the
 * file's `seq` ({@link replayChangeLog}). Mode 0600 like the data file, holding nothing it does
 * not (tokens as the file does).
 */
export class ChangeLog {
  private readonly file: string;
  private fd: number | undefined;
  /** The data file's `seq` the log follows (its header's). */
  private after: number;
  /** The lines in the log, for a cut that keeps the later ones. */
  private lines: { s: number; text: string }[] = [];

  /** `seq`: the last change the data file holds. */
  constructor(
    dataFile: string,
    private readonly org: string,
    public seq: number,
  ) {
    this.file = `${dataFile}.log`;
    this.after = seq;
  }

  /** Appends a change (numbered here) before its answer leaves; throws when it cannot be written. */
  append(change: Omit<ChangeEntry, 's'>): void {
    const s = this.seq + 1;
    const text = `${JSON.stringify({ s, ...change })}\n`;
    if (this.fd === undefined) this.fd = this.create([]);
    writeAll(this.fd, text);
    this.seq = s;
    this.lines.push({ s, text });
  }

  /** The data file now holds every change up to `seq`: the log keeps only the later ones. */
  cut(seq: number): void {
    if (seq <= this.after) return;
    this.after = seq;
    const kept = this.lines.filter((l) => l.s > seq);
    this.lines = kept;
    const old = this.fd;
    // A new log put in place with a rename: a kill in between leaves the old one, whose lines
    // the file already holds are skipped on load.
    this.fd = kept.length ? this.create(kept.map((l) => l.text)) : undefined;
    if (old !== undefined) closeSync(old);
    if (!kept.length) rmSync(this.file, { force: true });
  }

  /** After the final save (the file holds every change): removes the log. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.lines = [];
    rmSync(this.file, { force: true });
  }

  /** A new log holding the header and `lines`, in place of the old one; returns its descriptor. */
  private create(lines: string[]): number {
    const header: LogHeader = { org: this.org, after: this.after };
    const tmp = tempName(this.file);
    // Created exclusively: never through a planted link.
    const fd = openSync(tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o600);
    try {
      writeAll(fd, `${JSON.stringify(header)}\n${lines.join('')}`);
      renameSync(tmp, this.file);
    } catch (e) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw e;
    }
    return fd;
  }
}

/** Writes all of `text` (a write may take part of it). */
function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text);
  for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off);
}

/**
 * Applies to `data` (just read) the changes of its log that it does not hold yet; returns how
 * many. A log of another org, or one that follows a later file than this one (a backup put
 * back), is not applied. The last line may be torn (the process was killed while writing it):
 * its change was never acknowledged, and it is left out. A damaged line before it is an error.
 */
export function replayChangeLog(path: string, data: DataFile): number {
  let text: string;
  try {
    text = readFileSync(`${path}.log`, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new UsageError(`sandbox change log ${path}.log: cannot read it: ${describeErrno(e)}`);
  }
  // Only whole lines: each is written with its newline in one write.
  const lines = text.slice(0, text.lastIndexOf('\n') + 1).split('\n');
  lines.pop();
  const parse = <T>(line: string, i: number): T => {
    try {
      return JSON.parse(line) as T;
    } catch {
      throw damagedDataFile(`${path}.log`, `line ${i + 1} is not valid JSON`);
    }
  };
  if (!lines.length) return 0;
  const header = parse<LogHeader>(lines[0]!, 0);
  const seq = data.seq ?? 0;
  if (header.org !== data.org.instance || !(header.after <= seq)) return 0;
  const tables = new Map<string, Map<number, Rec>>();
  const table = (type: string): Map<number, Rec> => {
    let t = tables.get(type);
    if (!t) tables.set(type, (t = new Map((data.store.tables[type] ?? []).map((r) => [r.id, r]))));
    return t;
  };
  let applied = 0;
  for (let i = 1; i < lines.length; i++) {
    const c = parse<ChangeEntry>(lines[i]!, i);
    if (!(c.s > seq)) continue;
    if (c.s !== seq + applied + 1) throw damagedDataFile(`${path}.log`, `line ${i + 1}: change ${c.s} follows ${seq + applied}`);
    for (const [type, rec] of c.put ?? []) table(type).set(rec.id, rec);
    for (const [type, id] of c.del ?? []) table(type).delete(id);
    if (c.next) Object.assign(data.store.nextIds, c.next);
    if (c.meta) data.store.meta = { ...data.store.meta, ...c.meta };
    if (c.auth) data.auth = c.auth;
    applied++;
  }
  for (const [type, t] of tables) data.store.tables[type] = [...t.values()];
  data.seq = seq + applied;
  return applied;
}
