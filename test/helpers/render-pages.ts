/**
 * Pages of records on a fixed seed, for the renderers' byte-identity test: plain and hostile
 * text (quotes, commas, newlines, escapes, formula starts, accents, CJK, emoji), nulls, numbers,
 * lists, objects, long integers, relationships to included records, and 150 null custom fields.
 * Pages go through the list path's parser (`parseCollection`, scanner forced on), as in `list`.
 */
import { parseCollection } from '../../src/listing/page-parse.js';
import type { JsonApiDocument, ResourceObject } from '../../src/api/jsonapi.js';
import { indexIncluded, type IncludedIndex } from '../../src/listing/record-text.js';

/** A small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'Ada',
  'Lovelace',
  'Grace',
  'Hopper',
  'José',
  'Zoë',
  'Łukasz',
  'Søren',
  'van der Berg',
  "O'Brien",
  'Smith, Jr.',
  'a "quoted" name',
  '=SUM(A1)',
  '+33 1 23',
  '-5',
  '@home',
  "'tick",
  'line\nbreak',
  'tab\there',
  'back\\slash',
  '営業部長',
  '山田 太郎',
  '🚀',
  'e\u0301',
  '👍🏽',
  'x'.repeat(40),
  '',
  ' spaced  out ',
];
const HOSTILE = ['\x1b[31mred\x1b[0m', 'bell\x07', 'cr\rlf', '\u202eevil', 'nul\u0000'];

export interface Page {
  doc: JsonApiDocument;
  resources: readonly ResourceObject[];
  included: IncludedIndex;
}

export interface PageOptions {
  seed: number;
  pages: number;
  perPage: number;
  /** Include terminal-hostile characters (escapes, bidi overrides) in values. */
  hostile?: boolean;
  /** Include wide (CJK, emoji) and combining text. */
  wide?: boolean;
  customFields?: number;
}

/** The pages, each parsed from its JSON text the way the client parses a list page. */
export function makePages(o: PageOptions): Page[] {
  return makePageTexts(o).map(parsePage);
}

/** A page's JSON text parsed the way the client parses a list page (the scanner forced on). */
export function parsePage(json: string): Page {
  const doc = parseCollection(json, 0) as JsonApiDocument;
  return { doc, resources: doc.data as ResourceObject[], included: indexIncluded(doc) };
}

/** The pages' JSON text, as a server sends them. */
export function makePageTexts(o: PageOptions): string[] {
  const rnd = prng(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const words = WORDS.filter((w) => o.wide || !/[^\x00-\u024f]|e\u0301/u.test(w));
  const text = (): string => {
    const n = 1 + Math.floor(rnd() * 3);
    let s = Array.from({ length: n }, () => pick(words)).join(' ');
    if (o.hostile && rnd() < 0.1) s += pick(HOSTILE);
    return s;
  };
  const pages: string[] = [];
  let id = 1;
  for (let p = 0; p < o.pages; p++) {
    const data: unknown[] = [];
    const included = new Map<string, unknown>();
    for (let i = 0; i < o.perPage; i++, id++) {
      const attributes: Record<string, unknown> = {
        firstName: text(),
        lastName: rnd() < 0.1 ? null : text(),
        title: rnd() < 0.3 ? null : text(),
        emails: rnd() < 0.2 ? [] : [`p${id}@example.com`, ...(rnd() < 0.3 ? [`alt${id}@example.org`] : [])],
        score: rnd() < 0.2 ? null : Math.round(rnd() * 10000) / 100,
        engagedCount: Math.floor(rnd() * 50),
        optedOut: rnd() < 0.5,
        tags: rnd() < 0.5 ? [] : [text(), text()],
        address:
          rnd() < 0.3
            ? null
            : { city: text(), zip: String(10000 + Math.floor(rnd() * 89999)), geo: { lat: rnd() * 90, lng: -rnd() * 180 } },
        createdAt: new Date(Date.UTC(2024, 0, 1) + Math.floor(rnd() * 3e10)).toISOString(),
      };
      for (let c = 1; c <= (o.customFields ?? 0); c++) attributes[`custom${c}`] = rnd() < 0.05 ? text() : null;
      const relationships: Record<string, unknown> = {
        account: rnd() < 0.2 ? { data: null } : { data: { type: 'account', id: 1 + Math.floor(rnd() * 5) } },
        owner: rnd() < 0.3 ? { links: { related: `/users/${id}` } } : { data: { type: 'user', id: String(1 + Math.floor(rnd() * 3)) } },
        sequences: { data: rnd() < 0.5 ? [] : [{ type: 'sequence', id: 1 + Math.floor(rnd() * 9) }] },
      };
      const resource: Record<string, unknown> = { type: 'prospect', id: rnd() < 0.05 ? String(id) : id, attributes, relationships };
      if (rnd() < 0.05) resource.meta = { deleted: false };
      data.push(resource);
      const acc = relationships.account as { data: { id: number } | null };
      if (acc.data && rnd() < 0.7)
        included.set(`account:${acc.data.id}`, {
          type: 'account',
          id: acc.data.id,
          attributes: { name: text(), domain: `acc${acc.data.id}.example.com` },
          relationships: { owner: { data: { type: 'user', id: 1 } } },
        });
    }
    // A long integer now and then: its record's attributes take the parsed path.
    const json = JSON.stringify({ data, included: [...included.values()], meta: { count: o.pages * o.perPage }, links: {} }).replace(
      /"engagedCount":\d+,/,
      '"engagedCount":90071992547409931,',
    );
    pages.push(json);
  }
  return pages;
}
