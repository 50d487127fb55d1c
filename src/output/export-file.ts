/**
 * The file side of `svc <type> export`: records are appended to `<file>.part` as pages arrive,
 * in id order, and the part file is renamed to `<file>` when the listing ends. A run killed
 * halfway leaves the part file, possibly ending in a cut-off record; {@link resumePoint} finds
 * the last whole record (and its id) so that a `--resume` run cuts the file there and continues
 * with the next id: every record exactly once, whatever moment the first run died.
 */
import { Writable } from 'node:stream';
import fs from 'node:fs';
import { noFollow } from '../private-file.js';

/** Formats an export writes. */
export type ExportFormat = 'csv' | 'ndjson';

/** Where a part file can be continued. */
interface ResumePoint {
  /** Bytes of whole records (and the header): the file is cut to this length. */
  offset: number;
  /** Id of the last whole record; undefined when none was written yet. */
  lastId?: string;
  /** Whole records in the file (the header not counted). */
  records: number;
  /** The CSV header line as written (without BOM and line break). */
  header?: string;
  /** The file starts with a UTF-8 byte order mark. */
  bom: boolean;
  /** Whole NDJSON lines without an id (the file is not an export of this format). */
  unreadable?: number;
}

const NL = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;

/**
 * Scans a part file (streaming, constant memory). CSV records end at a line break outside
 * quotes (cells may hold line breaks); NDJSON records at every line break. The id is a CSV
 * record's first cell, or an NDJSON line's `id`.
 */
export async function resumePoint(path: string, format: ExportFormat): Promise<ResumePoint> {
  const point: ResumePoint = { offset: 0, records: 0, bom: false };
  let pos = 0;
  let inQuotes = false;
  /** Bytes of the current record's first cell (CSV) or whole line (NDJSON), while collected. */
  let head: number[] = [];
  /** The NDJSON line so far, in pieces of chunks (a line is collected whole: sliced, not byte by byte). */
  let pieces: Buffer[] = [];
  let collecting = true;
  let first = true;
  /** A record (or the header) ends at `end` of the file: its text is `text`. */
  const recordEnd = (text: string, end: number) => {
    if (format === 'csv' && point.header === undefined) point.header = text;
    else {
      const id = format === 'csv' ? text : ndjsonId(text);
      if (id !== undefined && id !== '') {
        point.lastId = id;
        point.records++;
      } else if (format === 'ndjson' && text.trim() !== '') point.unreadable = (point.unreadable ?? 0) + 1;
    }
    point.offset = end;
  };
  for await (const chunk of fs.createReadStream(path) as AsyncIterable<Buffer>) {
    let i = 0;
    if (first) {
      first = false;
      if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
        point.bom = true;
        i = 3;
      }
    }
    if (format === 'ndjson') {
      // Every line break ends a record: found with indexOf, the bytes between taken as slices
      // (a byte-by-byte copy was ~25 ms a MB, seconds for a large export's resume).
      while (i < chunk.length) {
        const nl = chunk.indexOf(NL, i);
        if (nl < 0) {
          pieces.push(chunk.subarray(i));
          break;
        }
        pieces.push(chunk.subarray(i, nl));
        const text = (pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)).toString('utf8').replace(/\r$/, '');
        pieces = [];
        recordEnd(text, pos + nl + 1);
        i = nl + 1;
      }
      pos += chunk.length;
      continue;
    }
    for (; i < chunk.length; i++) {
      if (!collecting) {
        // Past a record's first cell only quotes and (outside quotes) line breaks matter: skip
        // to the next of them.
        const q = chunk.indexOf(QUOTE, i);
        const nl = inQuotes ? -1 : chunk.indexOf(NL, i);
        const next = q < 0 ? nl : nl < 0 ? q : Math.min(q, nl);
        if (next < 0) break;
        i = next;
      }
      const b = chunk[i]!;
      if (b === QUOTE) inQuotes = !inQuotes;
      if (b === NL && !inQuotes) {
        recordEnd(Buffer.from(head).toString('utf8').replace(/\r$/, ''), pos + i + 1);
        head = [];
        collecting = true;
        continue;
      }
      if (!collecting) continue;
      // A CSV header is kept whole (to compare the columns), a record only to its first cell
      // (the id).
      if (point.header !== undefined && ((b === COMMA && !inQuotes) || head.length >= 64)) collecting = false;
      else head.push(b);
    }
    pos += chunk.length;
  }
  return point;
}

function ndjsonId(line: string): string | undefined {
  try {
    const v = JSON.parse(line) as { id?: unknown };
    return v.id === undefined || v.id === null ? undefined : String(v.id);
  } catch {
    return undefined;
  }
}

/** Appends text to a part file, and finishes or abandons it. */
export class PartFile {
  private constructor(
    private readonly fh: fs.promises.FileHandle,
    readonly path: string,
  ) {}

  /** Opens `path` for appending, first cut to `keep` bytes (0 starts afresh). */
  static async open(path: string, keep: number): Promise<PartFile> {
    // Never through a symlink planted at the name (ELOOP: the caller says so). Owner-only, as
    // every file of svc's that holds the org's data (names, addresses) is.
    const fh = await fs.promises.open(path, noFollow(keep > 0 ? 'r+' : 'w'), 0o600);
    if (keep > 0) await fh.truncate(keep);
    return new PartFile(await reopenAppend(fh, path), path);
  }

  async write(text: string): Promise<void> {
    if (text) await this.fh.write(text);
  }

  /**
   * A stream that appends to the part file, for a format's writer (render.ts): chunks in order,
   * each written before the next is taken. A failed write (a full disk) is kept, not emitted: the
   * writer waits for drain, which an errored stream never sends. `check` throws it (after each
   * page), and `done` ends the stream once everything is written, or throws it.
   */
  sink(): Writable & { check(): void; done(): Promise<void> } {
    const fh = this.fh;
    let failed: { error: unknown } | undefined;
    const stream = new Writable({
      highWaterMark: 1 << 16,
      write(chunk: Buffer, _encoding, cb) {
        if (failed) return cb();
        fh.write(chunk).then(
          () => cb(),
          (error: unknown) => {
            failed = { error };
            cb();
          },
        );
      },
    });
    const check = () => {
      if (failed) throw failed.error;
    };
    const done = async () => {
      await new Promise<void>((resolve) => stream.end(() => resolve()));
      check();
    };
    return Object.assign(stream, { check, done });
  }

  /** Flushes to disk and renames the part file to its final name. */
  async finish(final: string): Promise<void> {
    await this.fh.sync();
    await this.fh.close();
    await fs.promises.rename(this.path, final);
  }

  async close(): Promise<void> {
    await this.fh.close().catch(() => {});
  }
}

async function reopenAppend(fh: fs.promises.FileHandle, path: string): Promise<fs.promises.FileHandle> {
  await fh.close();
  return fs.promises.open(path, noFollow('a'));
}
