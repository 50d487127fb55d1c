/**
 * Parsing a collection page without building its resources' attributes. A record with 150
 * custom fields has over 128 attributes, which V8's JSON.parse builds as slow dictionary objects:
 * a page of 1,000 such records takes ~45 ms to parse and ~25 ms more to write back as JSON. Here
 * each resource-level `"attributes":{…}` is checked with a strict scanner and cut out of the text
 * before JSON.parse; the resource gets an `attributes` property that parses its text on first
 * use, and ndjson output copies the checked text as it is (`rawAttributes`). Anything unusual —
 * a region that is not plain JSON, an `attributes` key elsewhere than on a resource — and the page
 * is parsed whole with JSON.parse, as before. Integers past 2^53 keep their digits (parseJson in
 * lossless-json.ts): the scanner notes the long integer literals of a region, so that only such
 * regions are looked at again, and they are never copied as text.
 */

// Performance machinery (README.md, Build): hand-written JSON scanner.
import { parseJson } from '../lossless-json.js';
import { MAX_JSON_DEPTH } from '../json-depth.js';

const KEY = '"attributes":';
/** Below this many characters JSON.parse is quicker than the scanner, which would run cold. */
const MIN_SCAN = 256 * 1024;
/** Control characters (raw newlines would break NDJSON): such a page is parsed whole. */
const CONTROL = /[\x00-\x1f]/;
/** An invalid escape: a backslash after an even run of backslashes, not starting a valid escape. */
const BAD_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\(?!["\\/bfnrt]|u[0-9a-fA-F]{4})/;
/** Where a resource keeps its unparsed attributes: their text, and whether ndjson may copy it. */
const LAZY = Symbol('svc.lazyAttributes');
/**
 * Deepest nesting inside an attributes region the scanner takes (it recurses; the region sits 3
 * levels down the document). A deeper region ends the scan, and the page is parsed whole and
 * checked like any other answer, so lazy attributes are known to be within the depth bound.
 */
const MAX_REGION_DEPTH = MAX_JSON_DEPTH - 3;

interface Region {
  text: string;
  plain: boolean;
  /** Holds an integer literal of 16 digits or more: parsed by parseJson (it may be past 2^53). */
  long: boolean;
}
/** What the scanner noticed on its way through a region. */
interface Scan {
  long: boolean;
}
type Lazy = { [LAZY]?: Region };

/** True while a resource's attributes are unparsed text (already checked for depth by the scanner). */
export function hasLazyAttributes(resource: object): boolean {
  return (resource as Lazy)[LAZY] !== undefined;
}

/**
 * The attributes of a resource as checked JSON object text, when they can be written as they
 * are: keys plain (no escapes; not `id`, `type`, `meta`, `__proto__`, not starting with a digit,
 * not a relationship's name) and not yet parsed (a parsed object may have been changed).
 */
export function rawAttributes(resource: object): string | undefined {
  const region = (resource as Lazy)[LAZY];
  return region?.plain ? region.text : undefined;
}

/** JSON.parse for collection pages (see the module comment); the same value, attributes lazy. */
export function parseCollection(text: string, minScan = MIN_SCAN): unknown {
  if (text.length < minScan) return parseJson(text);
  const pieces: string[] = [];
  const regions: Region[] = [];
  let prev = 0;
  for (let from = 0; ; ) {
    const at = text.indexOf(KEY, from);
    if (at < 0) break;
    if (escaped(text, at)) {
      from = at + 1;
      continue;
    }
    const start = spaces(text, at + KEY.length);
    if (text.charCodeAt(start) !== 123) {
      from = start;
      continue;
    }
    let plain = true;
    const scan: Scan = { long: false };
    const end = endOfObject(text, start, scan, (ks, ke) => {
      if (plain && !plainKey(text, ks, ke)) plain = false;
    });
    if (end < 0) return parseJson(text);
    const region = text.slice(start, end);
    if (CONTROL.test(region)) return parseJson(text);
    if (region.includes('\\')) {
      if (BAD_ESCAPE.test(region)) return parseJson(text);
      // A key written with escapes (`"\u0069d"` is `id`) is not plain.
      if (plain) endOfObject(text, start, { long: false }, (ks, ke) => plain && text.slice(ks, ke).includes('\\') && (plain = false));
    }
    // Integers past 2^53 become strings when parsed: attributes that may hold one are not copied as text.
    if (scan.long) plain = false;
    pieces.push(text.slice(prev, start), String(regions.length));
    regions.push({ text: region, plain, long: scan.long });
    prev = from = end;
  }
  if (regions.length === 0) return parseJson(text);
  pieces.push(text.slice(prev));
  let doc: unknown;
  try {
    doc = parseJson(pieces.join(''));
  } catch {
    return parseJson(text);
  }
  // Every region must be the attributes of exactly one resource in data or included.
  const resources = resourcesOf(doc);
  const claimed = new Set<number>();
  for (const r of resources) {
    const a = (r as { attributes?: unknown }).attributes;
    if (typeof a === 'number') {
      if (!Number.isInteger(a) || a < 0 || a >= regions.length || claimed.has(a)) return parseJson(text);
      claimed.add(a);
    }
  }
  if (claimed.size !== regions.length) return parseJson(text);
  const collision = relationshipNames(resources);
  for (const r of resources) {
    const index = (r as { attributes?: unknown }).attributes;
    if (typeof index !== 'number') continue;
    const region = regions[index]!;
    if (region.plain && collision?.test(region.text)) region.plain = false;
    // Symbol-keyed and not enumerable: invisible to JSON.stringify, spreads and comparisons.
    Object.defineProperty(r, LAZY, { value: region, writable: true, configurable: true });
    Object.defineProperty(r, 'attributes', ATTRIBUTES);
  }
  return doc;
}

/** The resource objects of a document: `data` (one or many) and `included`. */
function resourcesOf(doc: unknown): object[] {
  if (typeof doc !== 'object' || doc === null) return [];
  const { data, included } = doc as { data?: unknown; included?: unknown };
  const list = [...(Array.isArray(data) ? data : data ? [data] : []), ...(Array.isArray(included) ? included : [])];
  return list.filter((r): r is object => typeof r === 'object' && r !== null && !Array.isArray(r));
}

/** A pattern matching, in attributes text, a key named like one of the page's relationships. */
function relationshipNames(resources: object[]): RegExp | undefined {
  const names = new Set<string>();
  for (const r of resources) {
    const rels = (r as { relationships?: unknown }).relationships;
    if (rels && typeof rels === 'object') for (const k of Object.keys(rels)) names.add(k);
  }
  if (names.size === 0) return undefined;
  const alternatives = [...names].map((n) =>
    JSON.stringify(n)
      .slice(1, -1)
      .replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'),
  );
  return new RegExp(`"(?:${alternatives.join('|')})"\\s*:`);
}

/**
 * The `attributes` of a resource whose attributes are still text: parsed when first read (then
 * an ordinary property), replaced when written. One accessor pair for every resource.
 */
const ATTRIBUTES: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: Lazy) {
    const region = this[LAZY]!;
    // The scan has looked for long integers already: JSON.parse, unless it saw one.
    const value = region.long ? parseJson(region.text) : (JSON.parse(region.text) as unknown);
    settle(this, value);
    return value;
  },
  set(this: Lazy, value: unknown) {
    settle(this, value);
  },
};

function settle(r: Lazy, value: unknown): void {
  delete r[LAZY];
  Object.defineProperty(r, 'attributes', { value, writable: true, enumerable: true, configurable: true });
}

/** True when the quote at `at` is escaped (an odd number of backslashes before it). */
function escaped(s: string, at: number): boolean {
  let n = 0;
  for (let k = at - 1; s.charCodeAt(k) === 92; k--) n++;
  return (n & 1) === 1;
}

function spaces(s: string, i: number): number {
  let c = s.charCodeAt(i);
  while (c === 32 || c === 9 || c === 10 || c === 13) c = s.charCodeAt(++i);
  return i;
}

/** A key that `flatten` places after `id` and `type` (see flatten.ts); escapes are checked apart. */
function plainKey(s: string, start: number, end: number): boolean {
  const c = s.charCodeAt(start);
  if (c >= 48 && c <= 57) return false;
  const n = end - start;
  if ((n === 2 && s.startsWith('id', start)) || (n === 4 && (s.startsWith('type', start) || s.startsWith('meta', start)))) return false;
  return !(n === 9 && s.startsWith('__proto__', start));
}

// A strict JSON scanner: the index after the value (or string, number, object) at `i`, or -1
// when the text there is not JSON. Escapes and control characters are left to CONTROL and BAD_ESCAPE.

function endOfString(s: string, i: number): number {
  for (;;) {
    const q = s.indexOf('"', i + 1);
    if (q < 0) return -1;
    if (!escaped(s, q)) return q + 1;
    i = q;
  }
}

function endOfNumber(s: string, i: number, scan: Scan): number {
  if (s.charCodeAt(i) === 45) i++;
  let c = s.charCodeAt(i);
  if (c === 48) i++;
  else if (c >= 49 && c <= 57) {
    const first = i;
    while ((c = s.charCodeAt(++i)) >= 48 && c <= 57);
    if (i - first >= 16) scan.long = true;
  } else return -1;
  if (s.charCodeAt(i) === 46) {
    c = s.charCodeAt(++i);
    if (!(c >= 48 && c <= 57)) return -1;
    while ((c = s.charCodeAt(++i)) >= 48 && c <= 57);
  }
  c = s.charCodeAt(i);
  if (c === 101 || c === 69) {
    c = s.charCodeAt(++i);
    if (c === 43 || c === 45) c = s.charCodeAt(++i);
    if (!(c >= 48 && c <= 57)) return -1;
    while ((c = s.charCodeAt(++i)) >= 48 && c <= 57);
  }
  return i;
}

function endOfValue(s: string, i: number, scan: Scan, depth: number): number {
  switch (s.charCodeAt(i)) {
    case 34:
      return endOfString(s, i);
    case 123:
      return depth < MAX_REGION_DEPTH ? endOfObject(s, i, scan, undefined, depth + 1) : -1;
    case 91:
      return depth < MAX_REGION_DEPTH ? endOfArray(s, i, scan, depth + 1) : -1;
    case 110:
      return s.startsWith('null', i) ? i + 4 : -1;
    case 116:
      return s.startsWith('true', i) ? i + 4 : -1;
    case 102:
      return s.startsWith('false', i) ? i + 5 : -1;
    default:
      return endOfNumber(s, i, scan);
  }
}

function endOfArray(s: string, i: number, scan: Scan, depth: number): number {
  i = spaces(s, i + 1);
  if (s.charCodeAt(i) === 93) return i + 1;
  for (;;) {
    i = endOfValue(s, i, scan, depth);
    if (i < 0) return -1;
    i = spaces(s, i);
    const c = s.charCodeAt(i);
    if (c === 93) return i + 1;
    if (c !== 44) return -1;
    i = spaces(s, i + 1);
  }
}

/**
 * The object at `i` (`{`), at nesting `depth` within its region (1 for the region itself);
 * `onKey` sees the content range of each of its own keys.
 */
function endOfObject(s: string, i: number, scan: Scan, onKey: ((start: number, end: number) => void) | undefined, depth = 1): number {
  i = spaces(s, i + 1);
  if (s.charCodeAt(i) === 125) return i + 1;
  for (;;) {
    if (s.charCodeAt(i) !== 34) return -1;
    const k = endOfString(s, i);
    if (k < 0) return -1;
    onKey?.(i + 1, k - 1);
    i = spaces(s, k);
    if (s.charCodeAt(i) !== 58) return -1;
    i = endOfValue(s, spaces(s, i + 1), scan, depth);
    if (i < 0) return -1;
    i = spaces(s, i);
    const c = s.charCodeAt(i);
    if (c === 125) return i + 1;
    if (c !== 44) return -1;
    i = spaces(s, i + 1);
  }
}
