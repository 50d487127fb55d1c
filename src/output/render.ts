/**
 * One place that renders records in each output format (README.md § Output). Commands hand it
 * pages as they arrive and every format streams: `table` takes its column widths from the first
 * rows (table.ts) and writes the rest as they come.
 */
import type { JsonApiDocument, ResourceObject } from '../api/jsonapi.js';
import { csvLine } from './csv.js';
import { ByteChunks } from './byte-chunks.js';
import { recordText, recordLine, flatten, type FlatRecord, type IncludedIndex, type LineSink } from '../listing/record-text.js';
import { columnReader, recordIndenter, unionKeysOf } from '../listing/flat-text.js';
import { writeOut, type IO } from './io.js';
import { ownField } from '../own-field.js';
import { terminalSafeLines } from './terminal-text.js';

import type { OutputFormat } from './formats.js';

export type { OutputFormat } from './formats.js';

/** What a renderer needs to know. */
export interface RenderOptions {
  format: OutputFormat;
  io: IO;
  /** One record (`get`, `create`): json prints an object and table a field/value list. */
  single?: boolean;
  /** `--columns`, for table and csv. */
  columns?: string[];
  /** Columns of the table view when `--columns` is not given (after `id`). */
  defaultColumns?: readonly string[];
  /** CSV: the header is in the output already (an export's part file). */
  headerWritten?: boolean;
  /** CSV without `--columns`: keys left out of the header found in the records (custom fields the org does not use). */
  omitColumn?: (key: string) => boolean;
  /** CSV with `--columns`: the header as the columns were given (labels), one for each column. */
  headerNames?: string[];
  /**
   * CSV without `--columns`: the header of a listing with no record (the header comes from the
   * first page's records). Without it an empty result was a 0-byte file that CSV readers refuse.
   */
  emptyColumns?: () => string[];
}

/** One page given as resource objects, flattened one record at a time as it is written. */
interface ResourcePage {
  doc: JsonApiDocument;
  resources: readonly ResourceObject[];
  included: IncludedIndex;
  /** Adjusts each flat record before it is written (masking secrets); the formats' fast path (recordText) needs it absent. */
  prepare?: (r: FlatRecord) => FlatRecord;
}

/** Receives pages, writes them, and finishes the output. */
export interface RecordWriter {
  /** A page of flat records: written as their JSON text, by the same writer as `resources`. */
  page(doc: JsonApiDocument, records: FlatRecord[]): Promise<void>;
  /**
   * A page of resource objects: every format writes them record by record from the flat
   * record's JSON text, holding no flat copy of the page (`list --all` of records with hundreds
   * of fields). Once it resolves, nothing of the page is read again (paging hands the page's
   * memory to a later page).
   */
  resources(p: ResourcePage): Promise<void>;
  end(): Promise<void>;
}

// Performance machinery (src/README.md, Build): records written in 64 KB pieces with backpressure.
/** Text is handed to stdout in pieces of about this size: streaming, and small enough to stay out of V8's large-object space (freed only by full collections). */
const CHUNK = 1 << 16;

/**
 * The records of one page as every writer reads them: each record's JSON text (what `ndjson`
 * writes, built without a flat object for a listing's resources: listing/record-text.ts), and its
 * NDJSON line written into a sink (a listing's attributes copied from the page's bytes).
 */
interface RecordTexts {
  readonly count: number;
  text(i: number): string;
  line(i: number, sink: LineSink): void;
}

/** Flat records (`get`, `create`, reports) as record text. */
function flatRecordTexts(records: readonly FlatRecord[]): RecordTexts {
  return {
    count: records.length,
    text: (i) => JSON.stringify(records[i]),
    line: (i, sink) => sink.text(`${JSON.stringify(records[i])}\n`),
  };
}

/** A page of resources as record text: from the page's bytes, or through `prepare` (masking) when given. */
function resourceTexts(p: ResourcePage): RecordTexts {
  const { resources, included, prepare } = p;
  if (prepare) {
    const text = (i: number) => JSON.stringify(prepare(flatten(resources[i]!, included)));
    return { count: resources.length, text, line: (i, sink) => sink.text(`${text(i)}\n`) };
  }
  return {
    count: resources.length,
    text: (i) => recordText(resources[i]!, included),
    line: (i, sink) => recordLine(resources[i]!, included, sink),
  };
}

/** A writer for the chosen format: one write per format, fed record text by `page` and `resources` alike. */
export function createRecordWriter(opts: RenderOptions): RecordWriter {
  const out = opts.io.stdout;
  // Views of one record (`get`) take flat records.
  const whole = (w: Omit<RecordWriter, 'resources'>): RecordWriter => ({
    ...w,
    resources: (p) =>
      w.page(
        p.doc,
        p.resources.map((r) => (p.prepare ? p.prepare(flatten(r, p.included)) : flatten(r, p.included))),
      ),
  });
  /** The writer of a listing format: `write` takes each page as record text. */
  const listing = (write: (doc: JsonApiDocument, texts: RecordTexts) => Promise<void>, end: () => Promise<void>): RecordWriter => ({
    page: (doc, records) => write(doc, flatRecordTexts(records)),
    resources: (p) => write(p.doc, resourceTexts(p)),
    end,
  });
  /** Writes `item(i)` for every record, in chunks. */
  const stream = async (texts: RecordTexts, item: (i: number) => string) => {
    let chunk = '';
    for (let i = 0; i < texts.count; i++) {
      chunk += item(i);
      if (chunk.length >= CHUNK) {
        await writeOut(out, chunk);
        chunk = '';
      }
    }
    if (chunk) await writeOut(out, chunk);
  };
  switch (opts.format) {
    case 'ndjson':
      return listing(
        async (_doc, texts) => {
          // A listing's attributes are copied from the page's bytes (byte-chunks.ts).
          const chunks = new ByteChunks();
          for (let i = 0; i < texts.count; i++) {
            texts.line(i, chunks);
            if (chunks.full) await chunks.writeTo(out);
          }
          await chunks.writeTo(out, true);
        },
        async () => {},
      );
    case 'json': {
      if (opts.single) {
        let last: FlatRecord | undefined;
        return whole({
          async page(_doc, records) {
            last = records[0] ?? last;
          },
          async end() {
            await writeOut(out, JSON.stringify(last ?? null, null, 2) + '\n');
          },
        });
      }
      let count = 0;
      // One for the whole listing: it copies what a record shares with the one before.
      const indented = recordIndenter();
      return listing(
        // Indented like JSON.stringify(record, null, 2) inside the array.
        (_doc, texts) => stream(texts, (i) => (count++ === 0 ? '[\n  ' : ',\n  ') + indented(texts.text(i))),
        async () => {
          await writeOut(out, count === 0 ? '[]\n' : '\n]\n');
        },
      );
    }
    case 'csv': {
      let columns: string[] | undefined = opts.columns;
      let headerDone = opts.headerWritten === true;
      let read: ((json: string) => unknown[]) | undefined;
      return listing(
        async (_doc, texts) => {
          if (texts.count === 0) return;
          // The header needs the page's names: its records' text is kept for the first page only.
          const first = columns ? undefined : Array.from({ length: texts.count }, (_, i) => texts.text(i));
          columns ??= opts.omitColumn ? unionKeysOf(first!).filter((k) => !opts.omitColumn!(k)) : unionKeysOf(first!);
          read ??= columnReader(columns, pick);
          const header = headerDone ? '' : csvLine(opts.headerNames ?? columns);
          headerDone = true;
          await stream(texts, (i) => (i === 0 ? header : '') + csvLine(read!(first ? first[i]! : texts.text(i))));
        },
        async () => {
          columns ??= opts.emptyColumns?.().filter((k) => !opts.omitColumn?.(k));
          if (!headerDone && columns?.length) await writeOut(out, csvLine(opts.headerNames ?? columns));
        },
      );
    }
    case 'raw':
      return listing(
        async (doc) => {
          await writeOut(out, JSON.stringify(doc) + '\n');
        },
        async () => {},
      );
    case 'table': {
      if (opts.single) {
        let first: FlatRecord | undefined;
        return whole({
          async page(_doc, records) {
            first ??= records[0];
          },
          async end() {
            const { renderVertical } = await import('./table.js');
            await writeOut(out, renderVertical(first, opts.io));
          },
        });
      }
      // Streams: widths from the first rows (table.ts), each later page written as it arrives.
      const columns = opts.columns ?? ['id', ...(opts.defaultColumns ?? [])];
      let table: import('./table.js').TableStream | undefined;
      const read = columnReader(columns, pick, { keep: true });
      const open = async () => {
        // Performance machinery (src/README.md, Build): loaded with import() when first used.
        const { tableStream } = await import('./table.js');
        return (table ??= tableStream(columns, opts.io, opts.columns !== undefined));
      };
      return listing(
        async (_doc, texts) => {
          const rows = Array.from({ length: texts.count }, (_, i) => read(texts.text(i)));
          const chunk = (await open()).add(rows);
          if (chunk) await writeOut(out, chunk);
        },
        async () => {
          const chunk = (await open()).end();
          if (chunk) await writeOut(out, chunk);
        },
      );
    }
  }
}

/** Keys of the records in first-seen order (`id`, `type` first). */
function unionKeys(records: FlatRecord[]): string[] {
  const keys = new Set<string>(['id', 'type']);
  for (const r of records) for (const k of Object.keys(r)) if (k !== 'meta') keys.add(k);
  return [...keys];
}

/** A value by column name; `account.name` reads into an included record. */
export function pick(r: Record<string, unknown>, column: string): unknown {
  // Own names only: `constructor` or `__proto__` must not read the object's prototype.
  if (Object.hasOwn(r, column)) return r[column];
  const dot = column.indexOf('.');
  if (dot > 0) {
    const inner = ownField(r, column.slice(0, dot));
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) return pick(inner as Record<string, unknown>, column.slice(dot + 1));
  }
  return undefined;
}

/** Writes a plain value (for commands whose output is not records); the human text terminal-safe. */
export async function renderValue(io: IO, format: OutputFormat, value: unknown, human: () => string): Promise<void> {
  if (format === 'json' || format === 'raw') await writeOut(io.stdout, JSON.stringify(value, null, 2) + '\n');
  else if (format === 'ndjson') {
    const list = Array.isArray(value) ? value : [value];
    await writeOut(io.stdout, list.map((v) => JSON.stringify(v)).join('\n') + (list.length ? '\n' : ''));
  } else if (format === 'csv' && Array.isArray(value)) {
    const rows = value as FlatRecord[];
    const cols = unionKeys(rows).filter((k) => rows.some((r) => k in r));
    await writeOut(io.stdout, csvLine(cols) + rows.map((r) => csvLine(cols.map((c) => r[c]))).join(''));
  } else await writeOut(io.stdout, terminalSafeLines(human()));
}
