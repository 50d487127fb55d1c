/**
 * `--json a,b,c` and `--query`: transforms applied to records before they reach the writer of
 * their format (render.ts), which stays as it is.
 *
 * - Fields only: each record keeps those keys, in that order (missing ones as null), and goes on
 *   to the usual writer, streaming as before.
 * - A query: with `-o ndjson` it applies to each record as it arrives (constant memory; one line
 *   per record); with `-o json` and `-o raw` to the whole result (the array of records, or the one
 *   record of `get`), so that `length(@)` and `[?title=='CEO']` mean what they say. `-o raw`
 *   prints a string as it is, an array one element per line (like `jq -r '.[]'`).
 * - A projection over the list (`[].email`, `[?title=='CEO'].{…}`) is answered record by record
 *   and written page by page, so `list --all --query` runs in constant memory; an expression
 *   that fails on a later record stops the output there, as it does with ndjson.
 */
import { recordText, flatten, type FlatRecord } from '../listing/record-text.js';
import type { CompiledQuery } from './query.js';
import { createRecordWriter, pick, type RecordWriter, type RenderOptions } from './render.js';
import { writeOut } from './io.js';
import { columnReader } from '../listing/flat-text.js';
import { setField } from '../own-field.js';

/** How records are reshaped on their way out. */
export interface OutputShape {
  /** `--json a,b,c`: the keys each record keeps, in this order. */
  fields?: readonly string[];
  /** `--query`, compiled. */
  query?: CompiledQuery;
}

/** A record cut down to `fields` (a dotted name reads into an included record: `account.name`). */
function projectRecord(r: Record<string, unknown>, fields: readonly string[]): FlatRecord {
  const out = {} as FlatRecord;
  for (const f of fields) out[f] = pick(r, f) ?? null;
  return out;
}

/** A writer that applies the shape and hands the result on; the plain writer without one. */
export function shapedRecordWriter(opts: RenderOptions, shape: OutputShape | undefined): RecordWriter {
  if (!shape || (!shape.fields && !shape.query)) return createRecordWriter(opts);
  const fields = shape.fields;
  const project = fields ? (r: FlatRecord) => projectRecord(r, fields) : (r: FlatRecord) => r;
  const query = shape.query;
  if (!query) {
    const inner = createRecordWriter(opts);
    return {
      page: (doc, records) => inner.page(doc, records.map(project)),
      resources: (p) => inner.resources({ ...p, prepare: (r) => project(p.prepare ? p.prepare(r) : r) }),
      end: () => inner.end(),
    };
  }
  // The records as `-o json` would print them, flattened once with the writer's own flattening.
  // Performance machinery (src/README.md, Build): --query reads only the members it needs.
  // A query that reads only some members of each record (`[].{id: id, title: title}`) is given
  // records of just those members, read out of the record text: a record of 150 custom fields
  // otherwise costs a whole object.
  const needed = query.perElement && !fields && !opts.single && opts.format !== 'ndjson' ? query.elementFields : undefined;
  const readNeeded = needed ? columnReader(needed, pick) : undefined;
  const partial = (json: string): FlatRecord => {
    const values = readNeeded!(json);
    const r = {} as FlatRecord;
    needed!.forEach((name, i) => {
      if (values[i] !== undefined) setField(r, name, values[i]);
    });
    return r;
  };
  const collect = (sink: (r: FlatRecord) => void): Pick<RecordWriter, 'page' | 'resources'> => {
    return {
      async page(_doc, records) {
        for (const r of records) sink(project(r));
      },
      async resources(p) {
        for (const r of p.resources) {
          if (p.prepare) sink(project(p.prepare(flatten(r, p.included))));
          else if (readNeeded) sink(partial(recordText(r, p.included)));
          // Read back from its flat JSON text: one object built, where flatten would parse the
          // attributes and then copy them.
          else sink(project(JSON.parse(recordText(r, p.included)) as FlatRecord));
        }
      },
    };
  };
  const out = opts.io.stdout;
  if (opts.format === 'ndjson') return pageWriter(out, collect, (r) => `${JSON.stringify(query.search(r) ?? null)}\n`);
  const perElement = query.perElement;
  if (perElement && !opts.single) return streamedProjection(out, perElement, opts.format === 'raw', collect);
  const all: FlatRecord[] = [];
  const w = collect((r) => all.push(r));
  return {
    ...w,
    async end() {
      const result = query.search(opts.single ? (all[0] ?? null) : all);
      await writeOut(out, formatResult(result, opts.format === 'raw'));
    },
  };
}

/**
 * A projection over the records (`[].x`, `[?cond]`) answered record by record: the same text
 * formatResult would print for the whole list, written page by page in constant memory.
 */
function streamedProjection(
  out: NodeJS.WritableStream,
  perElement: (element: unknown) => unknown[],
  raw: boolean,
  collect: (sink: (r: FlatRecord) => void) => Pick<RecordWriter, 'page' | 'resources'>,
): RecordWriter {
  let count = 0;
  const text = (r: FlatRecord) => {
    let t = '';
    for (const v of perElement(r)) {
      if (raw) t += `${typeof v === 'string' ? v : JSON.stringify(v ?? null)}\n`;
      else {
        // As JSON.stringify(list, null, 2) lays out an element: its own layout, indented once
        // (a newline only occurs between tokens; inside strings it is escaped).
        t += `${count === 0 ? '[\n  ' : ',\n  '}${JSON.stringify(v, null, 2).replace(/\n/g, '\n  ')}`;
      }
      count++;
    }
    return t;
  };
  return pageWriter(out, collect, text, () => (raw ? '' : count === 0 ? '[]\n' : '\n]\n'));
}

/** Each record's text gathered over a page (or a batch of resources) and written at once; `tail` at the end. */
function pageWriter(
  out: NodeJS.WritableStream,
  collect: (sink: (r: FlatRecord) => void) => Pick<RecordWriter, 'page' | 'resources'>,
  text: (r: FlatRecord) => string,
  tail: () => string = () => '',
): RecordWriter {
  let chunk = '';
  const w = collect((r) => {
    chunk += text(r);
  });
  const flush = async () => {
    if (chunk) await writeOut(out, chunk);
    chunk = '';
  };
  return {
    page: async (doc, records) => {
      await w.page(doc, records);
      await flush();
    },
    resources: async (p) => {
      await w.resources(p);
      await flush();
    },
    end: async () => {
      chunk += tail();
      await flush();
    },
  };
}

/**
 * A query result as text: JSON, or with `raw` a string as it is and an array one element per
 * line (strings as they are, other values as JSON); null prints nothing in raw.
 */
export function formatResult(result: unknown, raw: boolean): string {
  if (!raw) return JSON.stringify(result ?? null, null, 2) + '\n';
  const line = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? null));
  if (result === null || result === undefined) return '';
  if (Array.isArray(result)) return result.map((v) => `${line(v)}\n`).join('');
  return `${line(result)}\n`;
}

/** Applies the shape to a plain value (a command's result that is not JSON:API records). */
export function shapeValue(value: unknown, shape: OutputShape, perElement: boolean): unknown {
  const fields = shape.fields;
  const project = (v: unknown) =>
    fields && v && typeof v === 'object' && !Array.isArray(v) ? projectRecord(v as Record<string, unknown>, fields) : v;
  const shaped = Array.isArray(value) ? value.map(project) : project(value);
  if (!shape.query) return shaped;
  if (perElement && Array.isArray(shaped)) return shaped.map((v) => shape.query!.search(v) ?? null);
  return shape.query.search(shaped);
}
