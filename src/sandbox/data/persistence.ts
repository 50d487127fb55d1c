/**
 * The data file: the whole org (records, organization settings, tokens) as one JSON document,
 * written atomically (temporary file in the same directory, then rename) so that a crash
 * leaves either the old or the new file, never a torn one. Writes are debounced (250 ms): a
 * process killed outright loses the changes it acknowledged since the last write, but no id is
 * ever handed out twice ({@link IdReservations}).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { describeErrno, UsageError } from '../../errors.js';
import { writeFileAtomic, writeFileAtomicSync } from '../../private-file.js';
import type { AuthSnapshot } from '../http/auth.js';
import type { OrgConfig } from './org.js';
import type { StoreSnapshot } from './store.js';

/** Format version of the data file. */
export const DATA_VERSION = 1;

/** Content of the data file. */
export interface DataFile {
  version: number;
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
    this.writing = writeDataFile(this.path, this.snapshot())
      .then(() => {
        this.written = v;
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
