/**
 * Every output format writes the same bytes as the renderers it replaced, for the same records:
 * the outputs below were written by the earlier renderers (cli-table3 tables, records flattened
 * before formatting) on a fixed seed and are kept as fixtures. `UPDATE_GOLDEN=1` rewrites them;
 * do that only for a deliberate change of output, and say so in the commit.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { flattenDocument, type FlatRecord } from '../../src/listing/record-text.js';
import type { IO } from '../../src/output/io.js';
import { createRecordWriter, type OutputFormat, type RenderOptions } from '../../src/output/render.js';
import { makePages, type PageOptions } from '../helpers/render-pages.js';

const DIR = fileURLToPath(new URL('../fixtures/render-golden/', import.meta.url));

function io(o: { tty?: boolean; color?: boolean; columns?: number } = {}): IO & { text: () => string } {
  const chunks: string[] = [];
  const stdout = new Writable({
    // A small buffer: the writers' waits for 'drain' are exercised too.
    highWaterMark: 1024,
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      setImmediate(cb);
    },
  });
  return {
    stdout,
    stderr: new Writable({ write: (_c, _e, cb) => cb() }),
    stdin: process.stdin,
    stdoutIsTTY: o.tty ?? false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    color: o.color ?? false,
    columns: o.columns ?? 80,
    text: () => chunks.join(''),
  };
}

interface Case {
  name: string;
  format: OutputFormat;
  pages: PageOptions;
  io?: { tty?: boolean; color?: boolean; columns?: number };
  opts?: Partial<RenderOptions>;
  /** Masks a field on the way out, as `list` does for secrets. */
  prepare?: boolean;
  /** Through `page()` with flat records (`get`), not `resources()`. */
  flat?: boolean;
}

const MANY: PageOptions = { seed: 11, pages: 3, perPage: 40, hostile: true, wide: true, customFields: 12 };
const PLAIN_PAGE: PageOptions = { seed: 5, pages: 1, perPage: 60, customFields: 3 };
const DEFAULTS = ['firstName', 'lastName', 'title', 'emails', 'account', 'nickname'];

const CASES: Case[] = [
  { name: 'ndjson', format: 'ndjson', pages: MANY },
  { name: 'ndjson-masked', format: 'ndjson', pages: MANY, prepare: true },
  { name: 'json', format: 'json', pages: MANY },
  { name: 'json-masked', format: 'json', pages: MANY, prepare: true },
  { name: 'json-empty', format: 'json', pages: { ...MANY, pages: 1, perPage: 0 } },
  { name: 'json-single', format: 'json', pages: { ...MANY, pages: 1, perPage: 1 }, opts: { single: true }, flat: true },
  { name: 'csv', format: 'csv', pages: MANY },
  { name: 'csv-masked', format: 'csv', pages: MANY, prepare: true },
  {
    name: 'csv-columns',
    format: 'csv',
    pages: MANY,
    opts: { columns: ['id', 'firstName', 'account.name', 'account.domain', 'emails', 'tags', 'address', 'owner', 'nope'] },
  },
  { name: 'csv-empty-columns', format: 'csv', pages: { ...MANY, pages: 1, perPage: 0 }, opts: { columns: ['id', 'firstName'] } },
  { name: 'raw', format: 'raw', pages: MANY },
  { name: 'table-plain', format: 'table', pages: PLAIN_PAGE, opts: { defaultColumns: DEFAULTS } },
  {
    name: 'table-plain-wide-terminal',
    format: 'table',
    pages: PLAIN_PAGE,
    io: { tty: true, columns: 200 },
    opts: { defaultColumns: DEFAULTS },
  },
  { name: 'table-plain-narrow', format: 'table', pages: PLAIN_PAGE, io: { tty: true, columns: 40 }, opts: { defaultColumns: DEFAULTS } },
  {
    name: 'table-color',
    format: 'table',
    pages: PLAIN_PAGE,
    io: { tty: true, color: true, columns: 120 },
    opts: { defaultColumns: DEFAULTS },
  },
  {
    name: 'table-columns',
    format: 'table',
    pages: PLAIN_PAGE,
    io: { columns: 100 },
    opts: { columns: ['id', 'account.name', 'address', 'tags', 'score', 'nope'] },
  },
  { name: 'table-masked', format: 'table', pages: PLAIN_PAGE, prepare: true, opts: { defaultColumns: DEFAULTS } },
  { name: 'table-empty-tty', format: 'table', pages: { ...PLAIN_PAGE, perPage: 0 }, io: { tty: true }, opts: { defaultColumns: DEFAULTS } },
  { name: 'table-empty', format: 'table', pages: { ...PLAIN_PAGE, perPage: 0 }, opts: { defaultColumns: DEFAULTS } },
  { name: 'table-single', format: 'table', pages: { ...MANY, pages: 1, perPage: 1 }, opts: { single: true }, flat: true },
  {
    name: 'table-single-color',
    format: 'table',
    pages: { ...MANY, pages: 1, perPage: 1 },
    io: { tty: true, color: true, columns: 100 },
    opts: { single: true },
    flat: true,
  },
  {
    name: 'table-wide-text',
    format: 'table',
    pages: { ...PLAIN_PAGE, wide: true, hostile: true },
    io: { tty: true, color: true, columns: 150 },
    opts: { defaultColumns: DEFAULTS },
  },
];

const mask = (r: FlatRecord): FlatRecord => ('lastName' in r ? { ...r, lastName: '••••' } : r);

async function render(c: Case): Promise<string> {
  const out = io(c.io);
  const w = createRecordWriter({ format: c.format, io: out, ...c.opts });
  for (const p of makePages(c.pages)) {
    if (c.flat) await w.page(p.doc, flattenDocument(p.doc));
    else await w.resources({ ...p, prepare: c.prepare ? mask : undefined });
  }
  await w.end();
  await new Promise<void>((r) => out.stdout.end(r));
  return out.text();
}

describe('renderers write the same bytes as before', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const file = `${DIR}${c.name}.txt`;
      const text = await render(c);
      if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) {
        mkdirSync(DIR, { recursive: true });
        writeFileSync(file, text);
      }
      expect(text).toBe(readFileSync(file, 'utf8'));
    });
  }
});
