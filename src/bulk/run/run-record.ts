/**
 * The record of a write run (`svc runs`): one owner-only NDJSON file per run in the profile's
 * data directory (`runs/<id>.run.ndjson`, the directory 0700), holding what the run was (command
 * line, who, when, where), each row's before-image (written before its write leaves) and its
 * outcome, and, once taken back, which run undid it.
 *
 * Every line carries an HMAC-SHA256 chained over the line before it, keyed by a secret kept
 * beside the runs (`runs/.key`, 0600): a line changed, removed or inserted breaks the chain and
 * the record is refused. A torn last line is what a killed process leaves: it is ignored, and the
 * record reads as cut short (its rows are undone, the rest said). Lines are appended with one
 * `writeSync` each, like the journal (journal.ts), so a record survives `kill -9`.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describeErrno, LocalIoError, RunRecordError, ExitCode } from '../../errors.js';
import { parseJson } from '../../lossless-json.js';
import { noFollow } from '../../private-file.js';
import type { SideOwner } from './side-owner.js';

/** A record's field values: attributes, and relationships as ids (a to-many one as a list). */
export interface FieldValues {
  attributes: Record<string, unknown>;
  relationships: Record<string, string | string[] | null>;
}

/** What a row did, for taking it back. */
export type RowOp = 'update' | 'create' | 'delete' | 'enroll' | 'finish' | 'action';

/** The first line of a record. */
export interface RunMeta {
  k: 'meta';
  id: string;
  /** `prospects update`, `enroll`, `runs undo`. */
  label: string;
  /** The command line as typed (secrets redacted). */
  argv: string;
  profile: string;
  /** The org (base URL or sandbox instance, org id, user) the rows were done in. */
  owner: SideOwner;
  /** The local user who ran it. */
  who: string;
  at: string;
  /** The run this one takes back (an undo). */
  undoes?: string;
  /** The journal the run was made with (any bulk run): a rerun of an unfinished run continues this record (commands/bulk-run/run-continue.ts). */
  journal?: string;
  /** The run's `--shard` (`1/4`): a rerun continues the record of its own shard only. */
  shard?: string;
  /** The rows of the run's input, invalid ones too: a killed run's record holds only those it reached. */
  rows?: number;
}

/** A row's before-image, written before its write leaves. */
export interface RowLine {
  k: 'row';
  row: number;
  key: string;
  op: RowOp;
  type: string;
  id?: string | null;
  /** The fields the write changes, as they were (update); the whole record (delete). */
  before?: FieldValues;
  /** What the write sets (update, create): what a later undo expects to find. */
  after?: FieldValues;
  /** An item action's name (`op: 'action'`): `pause`, `resume`. */
  action?: string;
  /** For a row of an undo: the id of the record in the run it takes back (a re-created record's old id). */
  was?: string;
}

/** A row's outcome. */
interface DoneLine {
  k: 'done';
  row: number;
  key: string;
  status: string;
  id?: string | null;
  error?: string;
  /** Said of the row (fields not restored, conflicts). */
  note?: string;
}

/** The last line of a run that ended (not killed). */
interface EndLine {
  k: 'end';
  at: string;
  counts: Record<string, number>;
  interrupted?: boolean;
}

/** Appended to a run when an undo run has taken all of it back. */
interface UndoneLine {
  k: 'undone';
  by: string;
  at: string;
}

type Line = RunMeta | RowLine | DoneLine | EndLine | UndoneLine;

/** A row of a record, its before-image and outcome together. */
export interface RecordedRow {
  row: RowLine;
  done?: DoneLine;
}

/** A record read back and checked. */
export interface RunRecord {
  file: string;
  meta: RunMeta;
  /** Rows by key, in the order they were recorded. */
  rows: Map<string, RecordedRow>;
  /**
   * Outcomes of the run's rows when they are not the record's rows (a dedupe cluster, whose
   * steps are): the status of each by key, the last part's where parts differ.
   */
  units: Map<string, string>;
  end?: EndLine;
  /** Undo runs that took this one back, in order. */
  undoneBy: string[];
  /** The file ended in a torn line (a process killed while writing it). */
  torn: boolean;
  /** The chain's last MAC (an appended line continues it) and the bytes it covers. */
  lastMac: string;
  bytes: number;
}

const KEY_FILE = '.key';
const SUFFIX = '.run.ndjson';

/** `runs/` of the data directory. */
export function runsDir(dataDir: string): string {
  return path.join(dataDir, 'runs');
}

/** The record file of a run. */
export function runFile(dir: string, id: string): string {
  return path.join(dir, `${id}${SUFFIX}`);
}

/** A run id: `20261128-110844-3f9a0c` (the second first, so ids sort by age to the second; runs of one second by `at`). */
export function newRunId(now: number): string {
  const t = new Date(now).toISOString();
  return `${t.slice(0, 10).replace(/-/g, '')}-${t.slice(11, 19).replace(/:/g, '')}-${randomBytes(3).toString('hex')}`;
}

/** True for text shaped like a run id (nothing else is ever joined into a path). */
export function isRunId(id: string): boolean {
  return /^\d{8}-\d{6}-[0-9a-f]{6}$/.test(id);
}

/** The directory, made owner-only. */
function ensureDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/** The secret the chains are keyed by: made once (0600), never printed. */
function runKey(dir: string): Buffer {
  ensureDir(dir);
  const file = path.join(dir, KEY_FILE);
  try {
    const hex = fs.readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(hex)) return Buffer.from(hex, 'hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new LocalIoError(`${file}: cannot read the runs key: ${describeErrno(err)}`);
  }
  const key = randomBytes(32);
  try {
    const fd = fs.openSync(
      file,
      fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY | (fs.constants.O_NOFOLLOW ?? 0),
      0o600,
    );
    fs.writeSync(fd, key.toString('hex'));
    fs.closeSync(fd);
    return key;
  } catch (err) {
    // Another run made it first: read theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return runKey(dir);
    throw new LocalIoError(`${file}: cannot write the runs key: ${describeErrno(err)}`);
  }
}

function mac(key: Buffer, prev: string, body: string): string {
  return createHmac('sha256', key).update(prev).update('\n').update(body).digest('hex');
}

/** Appends chained lines to a record; each write is one `writeSync`, fsync'd every second and at the end. */
export class RunRecordWriter {
  private fd: number | undefined;
  private prev: string;
  private lastSync = 0;
  /** The meta line of a record not made yet (`create` with `untilRow`): made with the first row. */
  private pending: RunMeta | undefined;
  private closed = false;
  /** Made by `create` with `untilRow`: a run that changes nothing may leave no record (`discard`). */
  private optional = false;
  /**
   * The kinds of row this writer wrote (`op type action` → rows), so that the line that ends a run
   * promises an undo only for rows one can take back (commands/bulk-run/run-recording.ts).
   */
  readonly kinds = new Map<string, { op: RowOp; type: string; action?: string; rows: number }>();
  /** What each row of the record does: of the rows this writer wrote, and of a continued record's. */
  private readonly ops = new Map<string, Pick<RowLine, 'op' | 'action'>>();
  /** The outcome of each row this writer wrote one for (this part of the run), by key. */
  private readonly outcomes = new Map<string, string>();
  /** Keys of the rows written whose outcome is not (yet): each may have written. */
  private readonly unanswered = new Set<string>();
  /** An outcome written that says the row wrote (not skipped, not refused). */
  private wrote = false;

  private constructor(
    readonly file: string,
    private readonly key: Buffer,
    prev: string,
    fd: number | undefined,
    private readonly now: () => number,
  ) {
    this.prev = prev;
    this.fd = fd;
  }

  /**
   * Starts the record of a new run with its meta line. `untilRow`: the file is made with the
   * run's first row (its before-image, written before the row's write leaves), so that a run that
   * writes nothing — a rerun whose rows an earlier run did — leaves no record (`made` says).
   */
  static create(dir: string, meta: RunMeta, now: () => number, untilRow = false): RunRecordWriter {
    const key = runKey(dir);
    const w = new RunRecordWriter(runFile(dir, meta.id), key, meta.id, undefined, now);
    if (untilRow) {
      w.pending = meta;
      w.optional = true;
    } else w.open(meta);
    return w;
  }

  /**
   * Whether the record holds a row that may have changed something: one whose outcome is a write
   * (or in doubt), or one with no outcome yet. A row refused by the API (`failed`) or skipped
   * wrote nothing; a merge's cluster that failed half-way has its steps done before as rows of
   * their own (`updated`, `deleted`).
   */
  get mayHaveWritten(): boolean {
    return this.wrote || this.unanswered.size > 0;
  }

  /** True once the record's file is made (always, but for a `create` with `untilRow` that no row was written to, or discarded). */
  get made(): boolean {
    return this.pending === undefined && !this.discarded;
  }

  private discarded = false;

  /**
   * Removes the record of a run that changed nothing after all (every row it recorded before its
   * write was then skipped or refused, e.g. prospects found already in the sequence), so that it
   * does not come first in `svc runs list`. Only a record made with `untilRow`: an undo's record
   * and a continued one stay.
   */
  discard(): boolean {
    if (!this.optional || this.closed) return false;
    this.close();
    this.pending = undefined;
    this.discarded = true;
    fs.rmSync(this.file, { force: true });
    return true;
  }

  private open(meta: RunMeta): void {
    try {
      this.fd = fs.openSync(
        this.file,
        fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY | fs.constants.O_APPEND | (fs.constants.O_NOFOLLOW ?? 0),
        0o600,
      );
    } catch (err) {
      throw new LocalIoError(`${this.file}: cannot write the run's record: ${describeErrno(err)}`).hint(
        'free some space or fix the data directory, then run the command again',
      );
    }
    this.write(meta);
  }

  /** Continues a checked record (an `undone` line). */
  static append(dir: string, rec: RunRecord, now: () => number): RunRecordWriter {
    const key = runKey(dir);
    const fd = fs.openSync(rec.file, noFollow('a'), 0o600);
    // A torn last line: start on a fresh one so the chain's next line stays readable.
    if (rec.torn) fs.writeSync(fd, '\n');
    const w = new RunRecordWriter(rec.file, key, rec.lastMac, fd, now);
    for (const [k, { row }] of rec.rows) w.ops.set(k, { op: row.op, ...(row.action !== undefined ? { action: row.action } : {}) });
    return w;
  }

  /** The rows this writer wrote an outcome for (this part of the run), with what each does: the summary counts them. */
  *partOutcomes(): Generator<{ row: Pick<RowLine, 'op' | 'action'>; status: string }> {
    for (const [k, status] of this.outcomes) {
      const row = this.ops.get(k);
      if (row) yield { row, status };
    }
  }

  write(line: Line): void {
    if (this.closed) return;
    if (this.pending) {
      // Not made yet: the first row makes it; an outcome or an end before any row records nothing.
      if (line.k !== 'row') return;
      const meta = this.pending;
      this.pending = undefined;
      this.open(meta);
    }
    if (this.fd === undefined) return;
    if (line.k === 'row') {
      const key = `${line.op} ${line.type} ${line.action ?? ''}`;
      const kind = this.kinds.get(key);
      if (kind) kind.rows++;
      else this.kinds.set(key, { op: line.op, type: line.type, ...(line.action !== undefined ? { action: line.action } : {}), rows: 1 });
      this.ops.set(line.key, { op: line.op, ...(line.action !== undefined ? { action: line.action } : {}) });
    } else if (line.k === 'done') this.outcomes.set(line.key, line.status);
    const body = JSON.stringify(line);
    const m = mac(this.key, this.prev, body);
    try {
      fs.writeSync(this.fd, `${JSON.stringify({ m, r: line })}\n`);
    } catch (err) {
      throw new LocalIoError(`${this.file}: cannot write the run's record: ${describeErrno(err)}`).hint(
        'free some space and run the same command again: rows already done are skipped',
      );
    }
    this.prev = m;
    if (line.k === 'row') this.unanswered.add(line.key);
    else if (line.k === 'done') {
      this.unanswered.delete(line.key);
      if (line.status !== 'skipped' && line.status !== 'failed') this.wrote = true;
    }
    const t = this.now();
    if (t - this.lastSync >= 1000) {
      this.lastSync = t;
      try {
        fs.fsyncSync(this.fd);
      } catch {
        // not supported everywhere: the line is written
      }
    }
  }

  close(): void {
    this.closed = true;
    if (this.fd === undefined) return;
    try {
      fs.fsyncSync(this.fd);
    } catch {
      // as above
    }
    fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

/** The error of a record whose chain does not hold. */
function tampered(file: string, id: string, line: number): RunRecordError {
  return new RunRecordError(
    `run ${id}: its record ${file} was changed after svc wrote it (line ${line} fails the integrity check); refused`,
    ExitCode.RUN_TAMPERED,
  ).hint(
    // Not `svc runs show`: it reads the record through this same check and refuses it too (the
    // hint named it since the records began). The file is plain NDJSON a person can read.
    'nothing was sent; restore the file from a backup, or take the run back by hand: its lines (NDJSON) hold each row with its values before the run',
  );
}

/**
 * Reads and checks a run's record; `svc` is how the hint of an unknown id writes svc (with the
 * user's `--sandbox` or `--profile`: runtime/svc-again.ts). @throws RunRecordError (unknown id, tampered)
 */
export function readRunRecord(dir: string, id: string, svc = 'svc'): RunRecord {
  const file = runFile(dir, id);
  let text: string;
  try {
    const fd = fs.openSync(file, noFollow('r'));
    try {
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw unknownRun(id, svc);
    throw new LocalIoError(`${file}: cannot read the run's record: ${describeErrno(err)}`);
  }
  const key = runKey(dir);
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  let prev = id;
  let bytes = 0;
  const rec: Partial<RunRecord> & { rows: Map<string, RecordedRow>; units: Map<string, string>; undoneBy: string[] } = {
    file,
    rows: new Map(),
    units: new Map(),
    undoneBy: [],
    torn: last.trim() !== '',
  };
  for (const [i, line] of lines.entries()) {
    bytes += Buffer.byteLength(line) + 1;
    if (line.trim() === '') continue;
    let o: { m?: unknown; r?: unknown };
    try {
      o = parseJson(line) as typeof o;
    } catch {
      throw tampered(file, id, i + 1);
    }
    const body = JSON.stringify(o?.r);
    const want = mac(key, prev, body);
    if (typeof o?.m !== 'string' || o.m.length !== want.length || !timingSafeEqual(Buffer.from(o.m), Buffer.from(want))) {
      throw tampered(file, id, i + 1);
    }
    prev = want;
    const r = o.r as Line;
    if (r.k === 'meta') rec.meta = r;
    else if (r.k === 'row') rec.rows.set(r.key, { row: r, ...(rec.rows.get(r.key)?.done ? { done: rec.rows.get(r.key)!.done } : {}) });
    else if (r.k === 'done') {
      const had = rec.rows.get(r.key);
      if (had) had.done = r;
      else rec.units.set(r.key, r.status);
    } else if (r.k === 'end') rec.end = r;
    else if (r.k === 'undone') rec.undoneBy.push(r.by);
  }
  if (!rec.meta || rec.meta.id !== id) throw tampered(file, id, 1);
  rec.lastMac = prev;
  rec.bytes = bytes;
  return rec as RunRecord;
}

/** `svc`: as {@link readRunRecord} takes it (plain `svc runs list` after `svc --sandbox …` listed another profile's runs, or none). */
export function unknownRun(id: string, svc = 'svc'): RunRecordError {
  return new RunRecordError(`no recorded run "${id}"`, ExitCode.RUN_UNKNOWN).hint(
    `${svc} runs list shows the runs of this profile and their ids`,
  );
}

/** The ids of the recorded runs, the newest second first (runs of one second in random order: `allRuns` of commands/runs/store.ts sorts by start time). */
export function listRunIds(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith(SUFFIX))
    .map((n) => n.slice(0, -SUFFIX.length))
    .filter(isRunId)
    .sort()
    .reverse();
}

/**
 * A record's first line, read without the rest and NOT checked: only to pick which records to
 * read whole (readRunRecord checks those), so that finding one run does not read every record
 * of every run. Undefined when it cannot be read or parsed.
 */
export function peekRunMeta(dir: string, id: string): RunMeta | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(runFile(dir, id), noFollow('r'));
    // A first line is a few hundred bytes; a long command line may take more (up to 64 KB read).
    let text = '';
    for (const size of [4096, 64 * 1024]) {
      const buf = Buffer.alloc(size);
      text = buf.subarray(0, fs.readSync(fd, buf, 0, size, 0)).toString('utf8');
      if (text.includes('\n')) break;
    }
    const nl = text.indexOf('\n');
    const o = JSON.parse(nl >= 0 ? text.slice(0, nl) : text) as { r?: RunMeta };
    return o?.r?.k === 'meta' ? o.r : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * True when an undo took the run back and was not undone itself. `read` reads and checks an undo's
 * record: `svc runs list` passes the records it has already read and checked, so that each is read
 * once.
 */
export function isUndone(
  dir: string,
  rec: RunRecord,
  read: (id: string) => RunRecord = (id) => readRunRecord(dir, id),
  depth = 0,
): boolean {
  if (depth > 50) return true;
  for (const by of rec.undoneBy) {
    let u: RunRecord;
    try {
      u = read(by);
    } catch {
      // An undo whose record is gone or changed: the run counts as undone (it was).
      return true;
    }
    if (!isUndone(dir, u, read, depth + 1)) return true;
  }
  return false;
}
