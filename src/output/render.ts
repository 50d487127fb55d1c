/**
 * One place that renders records in each output format (README.md § Output). Commands hand it
 * pages as they arrive and every format streams: `table` takes its column widths from the first
 * rows (table.ts) and writes the rest as they come.
 */
import type { JsonApiDocument, ResourceObject } from '../api/jsonapi.js';
import { csvLine } from './csv.js';
import { ByteChunks } from './byte-chunks.js';
import { flatJson, flatLine, flatten, type FlatRecord, type IncludedIndex } from './flatten.js';
import { columnReader, recordIndenter, unionKeysOf } from './flat-text.js';
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
  /** CSV without `--columns`: keys left out of the header found in the records (custom fields the org does not use). */
  omitColumn?: (key: string) => boolean;
}

/** One page given as resource objects, flattened one record at a time as it is written. */
export interface ResourcePage {
  doc: JsonApiDocument;
  resources: readonly ResourceObject[];
  included: IncludedIndex;
  /** Adjusts each flat record before it is written (masking secrets); the formats' fast path (flatJson) needs it absent. */
  prepare?: (r: FlatRecord) => FlatRecord;
}

/** Receives pages, writes them, and finishes the output. */
export interface RecordWriter {
  page(doc: JsonApiDocument, records: FlatRecord[]): Promise<void>;
  /**
   * A page of resource objects: every format writes them record by record from the flat
   * record's JSON text, holding no flat copy of the page (`list --all` of records with hundreds
   * of fields). Once it resolves, nothing of the page is read again: `list` hands the page's
   * memory to the next page (page-buffers.ts).
   */
  resources(p: ResourcePage): Promise<void>;
  end(): Promise<void>;
}

// Performance machinery (src/README.md, Build): records written in 64 KB pieces with backpressure.
/** Text is handed to stdout in pieces of about this size: streaming, and small enough to stay out of V8's large-object space (freed only by full collections). */
const CHUNK = 1 << 16;

/** A writer for the chosen format. */
export function createRecordWriter(opts: RenderOptions): RecordWriter {
  const out = opts.io.stdout;
  const flat = (p: ResourcePage) => (r: ResourceObject) => (p.prepare ? p.prepare(flatten(r, p.included)) : flatten(r, p.included));
  // The flat record as compact JSON: every format of a listing starts from what ndjson writes (flat-text.ts).
  const text = (p: ResourcePage) =>
    p.prepare ? (r: ResourceObject) => JSON.stringify(flat(p)(r)) : (r: ResourceObject) => flatJson(r, p.included);
  // Views of one record (`get`) take flat records.
  const whole = (w: Omit<RecordWriter, 'resources'>): RecordWriter => ({
    ...w,
    resources: (p) => w.page(p.doc, p.resources.map(flat(p))),
  });
  /** Writes `line(r)` for every resource, in chunks. */
  const stream = async (p: ResourcePage, line: (r: ResourceObject) => string) => {
    let chunk = '';
    for (const r of p.resources) {
      chunk += line(r);
      if (chunk.length >= CHUNK) {
        await writeOut(out, chunk);
        chunk = '';
      }
    }
    if (chunk) await writeOut(out, chunk);
  };
  switch (opts.format) {
    case 'ndjson':
      return {
        async page(_doc, records) {
          let chunk = '';
          for (const r of records) chunk += JSON.stringify(r) + '\n';
          if (chunk) await writeOut(out, chunk);
        },
        async resources(p) {
          if (p.prepare) {
            const toFlat = flat(p);
            return stream(p, (r) => `${JSON.stringify(toFlat(r))}\n`);
          }
          // Attributes copied from the page's bytes (byte-chunks.ts).
          const chunks = new ByteChunks();
          for (const r of p.resources) {
            flatLine(r, p.included, chunks);
            if (chunks.full) await chunks.writeTo(out);
          }
          await chunks.writeTo(out, true);
        },
        async end() {},
      };
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
      const item = (r: FlatRecord) => (count++ === 0 ? '[\n' : ',\n') + indent(JSON.stringify(r, null, 2));
      return {
        async page(_doc, records) {
          let chunk = '';
          for (const r of records) chunk += item(r);
          if (chunk) await writeOut(out, chunk);
        },
        async resources(p) {
          const json = text(p);
          // Indented like JSON.stringify(record, null, 2) inside the array.
          await stream(p, (r) => (count++ === 0 ? '[\n  ' : ',\n  ') + indented(json(r)));
        },
        async end() {
          await writeOut(out, count === 0 ? '[]\n' : '\n]\n');
        },
      };
    }
    case 'csv': {
      let columns: string[] | undefined = opts.columns;
      let headerDone = false;
      let read: ((json: string) => unknown[]) | undefined;
      return {
        async page(_doc, records) {
          if (records.length === 0) return;
          columns ??= opts.omitColumn ? unionKeys(records).filter((k) => !opts.omitColumn!(k)) : unionKeys(records);
          let chunk = headerDone ? '' : csvLine(columns);
          headerDone = true;
          for (const r of records) chunk += csvLine(columns.map((c) => pick(r, c)));
          await writeOut(out, chunk);
        },
        async resources(p) {
          if (p.resources.length === 0) return;
          const json = text(p);
          // The header needs the page's names: its records' text is kept for the first page only.
          const first = columns ? undefined : p.resources.map(json);
          columns ??= opts.omitColumn ? unionKeysOf(first!).filter((k) => !opts.omitColumn!(k)) : unionKeysOf(first!);
          read ??= columnReader(columns, pick);
          let chunk = headerDone ? '' : csvLine(columns);
          headerDone = true;
          const n = p.resources.length;
          for (let i = 0; i < n; i++) {
            chunk += csvLine(read(first ? first[i]! : json(p.resources[i]!)));
            if (chunk.length >= CHUNK) {
              await writeOut(out, chunk);
              chunk = '';
            }
          }
          if (chunk) await writeOut(out, chunk);
        },
        async end() {
          if (!headerDone && columns) await writeOut(out, csvLine(columns));
        },
      };
    }
    case 'raw':
      return {
        async page(doc) {
          await writeOut(out, JSON.stringify(doc) + '\n');
        },
        async resources(p) {
          await writeOut(out, JSON.stringify(p.doc) + '\n');
        },
        async end() {},
      };
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
      let read: ((json: string) => unknown[]) | undefined;
      const open = async () => {
        // Performance machinery (src/README.md, Build): loaded with import() when first used.
        const { tableStream } = await import('./table.js');
        return (table ??= tableStream(columns, opts.io, opts.columns !== undefined));
      };
      const add = async (rows: unknown[][]) => {
        const chunk = (await open()).add(rows);
        if (chunk) await writeOut(out, chunk);
      };
      return {
        page: (_doc, records) => add(records.map((r) => columns.map((c) => pick(r, c)))),
        async resources(p) {
          const json = text(p);
          read ??= columnReader(columns, pick, { keep: true });
          await add(p.resources.map((r) => read!(json(r))));
        },
        async end() {
          const chunk = (await open()).end();
          if (chunk) await writeOut(out, chunk);
        },
      };
    }
  }
}

function indent(s: string): string {
  return s.replace(/^/gm, '  ');
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
