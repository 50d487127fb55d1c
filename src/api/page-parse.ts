/**
 * Parsing a collection page from its bytes without building its resources' attributes. A record
 * with 150 custom fields has over 128 attributes, which V8's JSON.parse builds as slow dictionary
 * objects: a page of 1,000 such records takes ~45 ms to parse and ~25 ms more to write back as
 * JSON. Here each resource-level `"attributes":{…}` is checked with a strict scanner over the
 * bytes and left out of what JSON.parse sees; the resource gets an `attributes` property that
 * parses its text on first use, and ndjson output copies the checked text as it is
 * (`rawAttributes`). The page is never decoded as one string: only the rest of it (a third of a
 * listing page) is, and each region's text when it is used, so no large string is built for the
 * attributes (each costs fresh memory, slow to fault in on a virtual machine). Anything unusual —
 * a region that is not plain JSON, an `attributes` key elsewhere than on a resource — and the page
 * is parsed whole with JSON.parse, as before. Integers past 2^53 keep their digits (parseJson in
 * lossless-json.ts): the scanner notes the long integer literals of a region, so that only such
 * regions are looked at again, and they are never copied as text.
 */

// Performance machinery (README.md, Build): hand-written JSON scanner over the page's bytes.
import { parseJson } from '../lossless-json.js';
import { MAX_JSON_DEPTH } from '../json-depth.js';
import { bodyText } from './body-text.js';

const KEY = Buffer.from('"attributes":');
/** Below this many bytes JSON.parse is quicker than the scanner, which would run cold. */
const MIN_SCAN = 256 * 1024;
/** Where a resource keeps its unparsed attributes: their text, and whether ndjson may copy it. */
const LAZY = Symbol('svc.lazyAttributes');
/**
 * Deepest nesting inside an attributes region the scanner takes (it recurses; the region sits 3
 * levels down the document). A deeper region ends the scan, and the page is parsed whole and
 * checked like any other answer, so lazy attributes are known to be within the depth bound.
 */
const MAX_REGION_DEPTH = MAX_JSON_DEPTH - 3;

// What the scanner noticed in the region it is in, as bits of `seen` (module state: a scan is
// synchronous, and a flags word costs nothing per byte where an object would cost a load).
/** An integer literal of 16 digits or more: parsed by parseJson (it may be past 2^53). */
const LONG = 1;
/** A byte of a multi-byte UTF-8 character: the region is decoded as UTF-8, not Latin-1. */
const HIGH = 2;
/** A tab or line break between tokens: copied as it is, it would break an NDJSON line. */
const BREAK = 4;
/** A key `flatten` would not place after `id` and `type`, or written with escapes. */
const ODD_KEY = 8;
let seen = 0;

/** JSON object text as a range of a page's bytes (UTF-8). */
export interface RawBytes {
  readonly page: Buffer;
  /** The index of `{`. */
  readonly start: number;
  /** The index after `}`. */
  readonly end: number;
}

/** The unparsed attributes of one resource: a range of the page's bytes. */
class Region implements RawBytes {
  private decoded: string | undefined;
  constructor(
    readonly page: Buffer,
    readonly start: number,
    readonly end: number,
    private readonly flags: number,
    /** Copyable as it is: keys plain (see rawAttributes), no long integers, no line breaks. */
    public plain: boolean,
  ) {}

  get long(): boolean {
    return (this.flags & LONG) !== 0;
  }

  get text(): string {
    return (this.decoded ??= this.page.toString(this.flags & HIGH ? 'utf8' : 'latin1', this.start, this.end));
  }
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

/** {@link rawAttributes} as the page's bytes: ndjson copies them without decoding them. */
export function rawAttributeBytes(resource: object): RawBytes | undefined {
  const region = (resource as Lazy)[LAZY];
  return region?.plain ? region : undefined;
}

/**
 * JSON.parse for collection pages (see the module comment); the same value, attributes lazy.
 * Takes the body's bytes (text is encoded first: tests).
 */
export function parseCollection(body: Uint8Array | string, minScan = MIN_SCAN): unknown {
  const page = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const whole = () => parseJson(bodyText(page));
  if (page.length < minScan) return whole();
  const n = page.length;
  // Every top-level attribute name, hashed: a page whose names share no hash with a relationship's
  // name needs no closer look for a clash between the two (relationshipNames).
  const names = new Uint8Array(1 << 16);
  const regions: Region[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (let from = 0; ; ) {
    const at = page.indexOf(KEY, from);
    if (at < 0) break;
    if (escaped(page, at)) {
      from = at + 1;
      continue;
    }
    const start = spaces(page, at + KEY.length);
    if (page[start] !== 123) {
      from = start;
      continue;
    }
    seen = 0;
    const end = endOfObject(page, start, n, 1, names);
    if (end < 0) return whole();
    regions.push(new Region(page, start, end, seen, (seen & (LONG | BREAK | ODD_KEY)) === 0));
    starts.push(start);
    ends.push(end);
    from = end;
  }
  if (regions.length === 0) return whole();
  // The page without its attributes, each region replaced by its index, decoded as one string.
  let size = n;
  for (let i = 0; i < regions.length; i++) size -= ends[i]! - starts[i]! - String(i).length;
  const rest = Buffer.allocUnsafe(size);
  let at = 0;
  let prev = 0;
  for (let i = 0; i < regions.length; i++) {
    at += page.copy(rest, at, prev, starts[i]);
    at += rest.write(String(i), at, 'latin1');
    prev = ends[i]!;
  }
  page.copy(rest, at, prev, n);
  let doc: unknown;
  try {
    doc = parseJson(bodyText(rest));
  } catch {
    return whole();
  }
  // Every region must be the attributes of exactly one resource in data or included.
  const resources = resourcesOf(doc);
  const claimed = new Set<number>();
  for (const r of resources) {
    const a = (r as { attributes?: unknown }).attributes;
    if (typeof a === 'number') {
      if (!Number.isInteger(a) || a < 0 || a >= regions.length || claimed.has(a)) return whole();
      claimed.add(a);
    }
  }
  if (claimed.size !== regions.length) return whole();
  const collision = relationshipNames(resources, names);
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

/**
 * A pattern matching, in attributes text, a key named like one of the page's relationships;
 * none when no attribute name of the page has the hash of a relationship's name (`names`).
 */
function relationshipNames(resources: object[], names: Uint8Array): RegExp | undefined {
  const rels = new Set<string>();
  for (const r of resources) {
    const own = (r as { relationships?: unknown }).relationships;
    if (own && typeof own === 'object') for (const k of Object.keys(own)) rels.add(k);
  }
  const suspects = [...rels].filter((name) => {
    const bytes = Buffer.from(name, 'utf8');
    return names[hashOf(bytes, 0, bytes.length)] === 1;
  });
  if (suspects.length === 0) return undefined;
  const alternatives = suspects.map((n) =>
    JSON.stringify(n)
      .slice(1, -1)
      .replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'),
  );
  return new RegExp(`"(?:${alternatives.join('|')})"\\s*:`);
}

/** A 16-bit hash of some bytes. */
function hashOf(b: Uint8Array, start: number, end: number): number {
  let h = 0;
  for (let i = start; i < end; i++) h = (h * 31 + b[i]!) & 0xffff;
  return h;
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
function escaped(b: Uint8Array, at: number): boolean {
  let n = 0;
  for (let k = at - 1; b[k] === 92; k--) n++;
  return (n & 1) === 1;
}

/** The index after the spaces at `i`; a tab or line break is noted (BREAK). */
function spaces(b: Uint8Array, i: number): number {
  let c = b[i];
  while (c === 32 || c === 9 || c === 10 || c === 13) {
    if (c !== 32) seen |= BREAK;
    c = b[++i];
  }
  return i;
}

const isHex = (c: number | undefined) => c !== undefined && ((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 102));

// A strict JSON scanner over UTF-8 bytes: the index after the value (or string, number, object)
// at `i`, or -1 when the bytes there are not JSON. Bytes of multi-byte characters only occur in
// strings, and are never taken for JSON's own characters.

/** The string whose opening quote is at `i`: escapes must be valid, raw control characters are not JSON. */
function endOfString(b: Uint8Array, i: number, n: number): number {
  for (i++; i < n; i++) {
    const c = b[i]!;
    if (c === 34) return i + 1;
    if (c === 92) {
      const e = b[i + 1];
      if (e === 117) {
        if (!(isHex(b[i + 2]) && isHex(b[i + 3]) && isHex(b[i + 4]) && isHex(b[i + 5]))) return -1;
        i += 5;
      } else if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) i++;
      else return -1;
    } else if (c < 32) return -1;
    else if (c > 127) seen |= HIGH;
  }
  return -1;
}

/**
 * Notes a key of the region's own object (between its quotes): its hash in `names`, and ODD_KEY
 * when `flatten` would not place it after `id` and `type` (`id`, `type`, `meta`, `__proto__`, a
 * leading digit) or when it is written with escapes (what it means is not what it shows).
 */
function ownKey(b: Uint8Array, start: number, end: number, names: Uint8Array): void {
  let h = 0;
  for (let i = start; i < end; i++) {
    const c = b[i]!;
    if (c === 92) {
      seen |= ODD_KEY;
      return;
    }
    h = (h * 31 + c) & 0xffff;
  }
  names[h] = 1;
  const c = b[start]!;
  const n = end - start;
  if (
    (c >= 48 && c <= 57) ||
    (n === 2 && c === 105 && b[start + 1] === 100) ||
    (n === 4 && (same(b, start, TYPE) || same(b, start, META))) ||
    (n === 9 && same(b, start, PROTO))
  )
    seen |= ODD_KEY;
}

const TYPE = Buffer.from('type');
const META = Buffer.from('meta');
const PROTO = Buffer.from('__proto__');

function same(b: Uint8Array, at: number, word: Uint8Array): boolean {
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word[k]) return false;
  return true;
}

function endOfNumber(b: Uint8Array, i: number): number {
  if (b[i] === 45) i++;
  let c = b[i];
  if (c === 48) i++;
  else if (c !== undefined && c >= 49 && c <= 57) {
    const first = i;
    while ((c = b[++i]) !== undefined && c >= 48 && c <= 57);
    if (i - first >= 16) seen |= LONG;
  } else return -1;
  if (b[i] === 46) {
    c = b[++i];
    if (!(c !== undefined && c >= 48 && c <= 57)) return -1;
    while ((c = b[++i]) !== undefined && c >= 48 && c <= 57);
  }
  c = b[i];
  if (c === 101 || c === 69) {
    c = b[++i];
    if (c === 43 || c === 45) c = b[++i];
    if (!(c !== undefined && c >= 48 && c <= 57)) return -1;
    while ((c = b[++i]) !== undefined && c >= 48 && c <= 57);
  }
  return i;
}

function endOfValue(b: Uint8Array, i: number, n: number, depth: number): number {
  switch (b[i]) {
    case 34:
      return endOfString(b, i, n);
    case 123:
      return depth < MAX_REGION_DEPTH ? endOfObject(b, i, n, depth + 1) : -1;
    case 91:
      return depth < MAX_REGION_DEPTH ? endOfArray(b, i, n, depth + 1) : -1;
    case 110:
      return b[i + 1] === 117 && b[i + 2] === 108 && b[i + 3] === 108 ? i + 4 : -1;
    case 116:
      return b[i + 1] === 114 && b[i + 2] === 117 && b[i + 3] === 101 ? i + 4 : -1;
    case 102:
      return b[i + 1] === 97 && b[i + 2] === 108 && b[i + 3] === 115 && b[i + 4] === 101 ? i + 5 : -1;
    default:
      return endOfNumber(b, i);
  }
}

function endOfArray(b: Uint8Array, i: number, n: number, depth: number): number {
  i = spaces(b, i + 1);
  if (b[i] === 93) return i + 1;
  for (;;) {
    i = endOfValue(b, i, n, depth);
    if (i < 0) return -1;
    i = spaces(b, i);
    const c = b[i];
    if (c === 93) return i + 1;
    if (c !== 44) return -1;
    i = spaces(b, i + 1);
  }
}

/**
 * The object at `i` (`{`), at nesting `depth` within its region (1 for the region itself); the
 * region's own keys are noted (ownKey) when `names` is given.
 */
function endOfObject(b: Uint8Array, i: number, n: number, depth: number, names?: Uint8Array): number {
  i = spaces(b, i + 1);
  if (b[i] === 125) return i + 1;
  for (;;) {
    if (b[i] !== 34) return -1;
    const k = endOfString(b, i, n);
    if (k < 0) return -1;
    if (names) ownKey(b, i + 1, k - 1, names);
    i = spaces(b, k);
    if (b[i] !== 58) return -1;
    i = endOfValue(b, spaces(b, i + 1), n, depth);
    if (i < 0) return -1;
    i = spaces(b, i);
    const c = b[i];
    if (c === 125) return i + 1;
    if (c !== 44) return -1;
    i = spaces(b, i + 1);
  }
}
