/**
 * Parsing a collection page from its bytes without building its resources' attributes and
 * relationships. A record with 150 custom fields has over 128 attributes, which V8's JSON.parse
 * builds as slow dictionary objects: a page of 1,000 such records takes ~45 ms to parse and ~25
 * ms more to write back as JSON; its 16 relationships with their links are ~50 more objects a
 * record. Here each resource-level `"attributes":{…}` and `"relationships":{…}` is checked with
 * a strict scanner over the bytes (json-scan.ts, relationship-scan.ts) and left out of what
 * JSON.parse sees; the resource gets properties that parse the text on first use. ndjson output
 * copies the attributes' bytes as they are (`attributesRegion`) and writes the relationships
 * as the scanner read them (`relationshipsText`). The page is never decoded as one string: only
 * the rest of it is, and each region's text when it is used, so no large string is built per
 * page (each costs fresh memory, slow to fault in on a virtual machine). Anything unusual — a
 * region that is not plain JSON, a key elsewhere than on a resource — and the page is parsed
 * whole with JSON.parse, as before. Integers past 2^53 keep their digits (parseJson in
 * lossless-json.ts): the scanner notes the long integer literals of a region, so that only such
 * regions are looked at again, and they are never copied as text.
 */

// Performance machinery (src/README.md, Build): listing pages parsed from their bytes.
import { parseJson } from '../lossless-json.js';
import { bodyText } from '../api/body-text.js';
import { BREAK, escaped, HIGH, LONG, nameHash, ODD_KEY, same } from './json-scan.js';
import { PageScanner } from './relationship-scan.js';

const ATTRIBUTES_KEY = Buffer.from('"attributes":');
const RELATIONSHIPS_KEY = Buffer.from('"relationships":');
/** Below this many bytes JSON.parse is quicker than the scanner, which would run cold. */
const MIN_SCAN = 256 * 1024;
/** Where a resource keeps its unparsed attributes and relationships. */
const LAZY = Symbol('svc.lazyAttributes');
const LAZY_RELATIONSHIPS = Symbol('svc.lazyRelationships');

/** JSON object text as a range of a page's bytes (UTF-8). */
export interface Region {
  readonly page: Buffer;
  /** The index of `{`. */
  readonly start: number;
  /** The index after `}`. */
  readonly end: number;
  /** The scanner that read it: its listing's reused memory (record-text.ts joins a record's text there). */
  readonly scanner: PageScanner;
}

/** The unparsed attributes or relationships of one resource: a range of the page's bytes. */
class PageRegion implements Region {
  constructor(
    readonly page: Buffer,
    readonly start: number,
    readonly end: number,
    readonly scanner: PageScanner,
    private readonly flags: number,
    /** Attributes: copyable as they are (keys plain, no long integers, no line breaks). */
    public plain: boolean,
    /** Relationships: what recordText writes for them (relationship-scan.ts, relationshipsText). */
    readonly relationshipsText?: string,
    /** Attributes: its members with a value, `marks[marksFrom..marksTo)` of its page (JsonScanner.marks). */
    readonly marksFrom = 0,
    readonly marksTo = 0,
  ) {}

  /** The page's marks (set once the page is read). */
  marks: Int32Array | undefined;

  get oddKey(): boolean {
    return (this.flags & ODD_KEY) !== 0;
  }

  /**
   * The region, when its page's memory is still the page's: a listing that recycles page buffers
   * detaches a released page's memory (page-buffers.ts), so a record read after that is a bug in
   * svc, said here rather than written as another page's bytes or as nothing.
   */
  live(): this {
    if (this.end > this.page.length) throw new Error("internal error: a listing page's records were read after its memory was reused");
    return this;
  }

  get long(): boolean {
    return (this.flags & LONG) !== 0;
  }

  /**
   * The region's text, decoded each time it is asked for: kept, it would live as long as the
   * page's records (4 MB a page), and survive garbage collections that a string used once escapes.
   */
  get text(): string {
    this.live();
    return this.page.toString(this.flags & HIGH ? 'utf8' : 'latin1', this.start, this.end);
  }
}

type Lazy = { [LAZY]?: PageRegion; [LAZY_RELATIONSHIPS]?: PageRegion };

const BOTH = ['attributes', 'relationships'] as const;
const ATTRIBUTES_ONLY = ['attributes'] as const;
const RELATIONSHIPS_ONLY = ['relationships'] as const;

/** The members of a resource still unparsed (already checked for depth by the scanner). */
export function unparsedMembers(resource: object): readonly string[] | undefined {
  const r = resource as Lazy;
  const a = r[LAZY] !== undefined;
  const rel = r[LAZY_RELATIONSHIPS] !== undefined;
  return a ? (rel ? BOTH : ATTRIBUTES_ONLY) : rel ? RELATIONSHIPS_ONLY : undefined;
}

/**
 * The attributes of a resource as checked JSON object bytes of its page, when they can be
 * written as they are: keys plain (no escapes; not `id`, `type`, `meta`, `__proto__`, not
 * starting with a digit, not a relationship's name) and not yet parsed (a parsed object may have
 * been changed). ndjson copies them without decoding them.
 */
export function attributesRegion(resource: object): Region | undefined {
  const region = (resource as Lazy)[LAZY];
  return region?.plain ? region.live() : undefined;
}

/**
 * The attributes of a resource as the page's bytes while they are not yet parsed, whatever their
 * keys (a reader that picks the keys it knows: the mirror, attribute-values.ts).
 */
export function unparsedAttributesRegion(resource: object): Region | undefined {
  return (resource as Lazy)[LAZY]?.live();
}

/** A resource's attributes with a value, as {@link attributeMarks} gives them. */
interface AttributeMarks {
  readonly page: Buffer;
  /** Four numbers a member: its key's bytes (inside the quotes) and its value's, each start and end. */
  readonly marks: Int32Array;
  readonly from: number;
  readonly to: number;
}

/**
 * Where the members of a resource's unparsed attributes with a value other than `null` are in
 * its page's bytes, as the page's strict scan found them (json-scan.ts, marks): the mirror reads
 * its columns from them without walking the region again. Undefined when the attributes are
 * already parsed or a key is unusual (written with escapes, `id`, `type`…): read them another way.
 */
export function attributeMarks(resource: object): AttributeMarks | undefined {
  const region = (resource as Lazy)[LAZY];
  if (region?.marks === undefined || region.oddKey) return undefined;
  region.live();
  return { page: region.page, marks: region.marks, from: region.marksFrom, to: region.marksTo };
}

/**
 * The relationships of a resource as recordText writes them without included records (`,"name":id`
 * for each one with data), when they are still unparsed and usual (relationship-scan.ts).
 */
export function relationshipsText(resource: object): string | undefined {
  return (resource as Lazy)[LAZY_RELATIONSHIPS]?.relationshipsText;
}

/**
 * JSON.parse for collection pages (see the module comment); the same value, attributes and
 * relationships lazy. Takes the body's bytes (text is encoded first: tests), and the scanner of
 * the listing (one for all its pages: it keeps the memory it reuses).
 */
export function parseCollection(body: Uint8Array | string, minScan = MIN_SCAN, scanner = new PageScanner()): unknown {
  const page = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const whole = () => parseJson(bodyText(page));
  if (page.length < minScan) return whole();
  const n = page.length;
  // The names of the attributes and of the relationships, hashed: a page where the two share no
  // hash needs no closer look for a clash between them (clashes).
  const attributeNames = new Uint8Array(1 << 16);
  const relationshipNames = new Uint8Array(1 << 16);
  const regions: PageRegion[] = [];
  const isRelationships: boolean[] = [];
  let nextAttributes = -2;
  let nextRelationships = -2;
  scanner.markCount = 0;
  for (let from = 0; ; ) {
    // The next of either key. Usually one follows the region just read (`},"relationships":{`);
    // else each is looked for again once passed, the relationships only as far as the next
    // attributes: searching on would read the attributes' bytes, which the scanner reads anyway.
    let at = adjacentKey(scanner, page, from);
    let rel = at >= 0 && page[at + 1] === 114;
    if (at < 0) {
      if (nextAttributes !== -1 && nextAttributes < from) nextAttributes = page.indexOf(ATTRIBUTES_KEY, from);
      if (nextRelationships !== -1 && nextRelationships < from) {
        if (nextAttributes < 0) nextRelationships = page.indexOf(RELATIONSHIPS_KEY, from);
        else {
          const i = page.subarray(from, nextAttributes).indexOf(RELATIONSHIPS_KEY);
          nextRelationships = i >= 0 ? from + i : NOT_BEFORE_ATTRIBUTES;
        }
      }
      if (nextAttributes < 0 && nextRelationships < 0) break;
      rel = nextAttributes < 0 || (nextRelationships >= 0 && nextRelationships < nextAttributes);
      at = rel ? nextRelationships : nextAttributes;
    }
    if (escaped(page, at)) {
      from = at + 1;
      continue;
    }
    const start = scanner.spaces(page, at + (rel ? RELATIONSHIPS_KEY : ATTRIBUTES_KEY).length);
    if (page[start] !== 123) {
      from = start;
      continue;
    }
    scanner.flags = 0;
    if (rel) {
      const end = scanner.endOfRelationships(page, start, n, relationshipNames);
      if (end < 0) return whole();
      regions.push(new PageRegion(page, start, end, scanner, scanner.flags, false, scanner.relationshipsText));
      from = end;
    } else {
      const marksFrom = scanner.markCount;
      const end = scanner.endOfObject(page, start, n, 1, attributeNames);
      if (end < 0) return whole();
      const flags = scanner.flags;
      regions.push(
        new PageRegion(page, start, end, scanner, flags, (flags & (LONG | BREAK | ODD_KEY)) === 0, undefined, marksFrom, scanner.markCount),
      );
      from = end;
    }
    isRelationships.push(rel);
  }
  if (regions.length === 0) return whole();
  let doc: unknown;
  try {
    doc = parseJson(bodyText(rest(scanner, page, regions)));
  } catch {
    return whole();
  }
  // Every region must be the attributes (or relationships) of exactly one resource in data or included.
  const resources = resourcesOf(doc);
  const claimed = new Set<number>();
  const claim = (index: unknown, rel: boolean): boolean => {
    if (typeof index !== 'number') return true;
    if (!Number.isInteger(index) || index < 0 || index >= regions.length || isRelationships[index] !== rel || claimed.has(index))
      return false;
    claimed.add(index);
    return true;
  };
  for (const r of resources) {
    const { attributes, relationships } = r as { attributes?: unknown; relationships?: unknown };
    if (!claim(attributes, false) || !claim(relationships, true)) return whole();
  }
  if (claimed.size !== regions.length) return whole();
  // The page's own copy: the scanner's array is used again for the next page, read while this
  // page's records may still be in use.
  const marks = scanner.marks.slice(0, scanner.markCount);
  for (let i = 0; i < regions.length; i++) if (!isRelationships[i]) regions[i]!.marks = marks;
  for (const r of resources) {
    const { attributes, relationships } = r as { attributes?: unknown; relationships?: unknown };
    // Symbol-keyed and not enumerable: invisible to JSON.stringify, spreads and comparisons.
    if (typeof attributes === 'number') {
      Object.defineProperty(r, LAZY, { value: regions[attributes], writable: true, configurable: true });
      Object.defineProperty(r, 'attributes', ATTRIBUTES);
    }
    if (typeof relationships === 'number') {
      Object.defineProperty(r, LAZY_RELATIONSHIPS, { value: regions[relationships], writable: true, configurable: true });
      Object.defineProperty(r, 'relationships', RELATIONSHIPS);
    }
  }
  const clash = clashes(resources, attributeNames, relationshipNames);
  if (clash)
    for (const r of resources) if ((r as Lazy)[LAZY]?.plain && clash.test((r as Lazy)[LAZY]!.text)) (r as Lazy)[LAZY]!.plain = false;
  return doc;
}

/** `nextRelationships` when there is none before the attributes found next (looked for after them). */
const NOT_BEFORE_ATTRIBUTES = -3;

/**
 * The index of `"attributes":` or `"relationships":` when one is next after `from` with only
 * spaces and one comma before it; else -1. (Neither key can start in what it steps over, so this
 * is where a search would find the nearer of the two.)
 */
function adjacentKey(scanner: PageScanner, page: Buffer, from: number): number {
  let j = scanner.spaces(page, from);
  if (page[j] === 44) j = scanner.spaces(page, j + 1);
  if (page[j] !== 34) return -1;
  const c = page[j + 1];
  if (c === 114) return same(page, j, RELATIONSHIPS_KEY) ? j : -1;
  if (c === 97) return same(page, j, ATTRIBUTES_KEY) ? j : -1;
  return -1;
}

/** The page without its regions, each replaced by its index (one buffer for every page of the listing: fresh memory for each page cost more than the copy). */
function rest(scanner: PageScanner, page: Buffer, regions: PageRegion[]): Buffer {
  let size = page.length;
  for (let i = 0; i < regions.length; i++) size -= regions[i]!.end - regions[i]!.start - String(i).length;
  if (scanner.restBuffer.length < size) scanner.restBuffer = Buffer.allocUnsafeSlow(Math.max(size, scanner.restBuffer.length * 2));
  const out = scanner.restBuffer;
  let at = 0;
  let prev = 0;
  for (let i = 0; i < regions.length; i++) {
    at += page.copy(out, at, prev, regions[i]!.start);
    at += out.write(String(i), at, 'latin1');
    prev = regions[i]!.end;
  }
  page.copy(out, at, prev, page.length);
  return out.subarray(0, size);
}

/** The resource objects of a document: `data` (one or many) and `included`. */
function resourcesOf(doc: unknown): object[] {
  if (typeof doc !== 'object' || doc === null) return [];
  const { data, included } = doc as { data?: unknown; included?: unknown };
  const list = [...(Array.isArray(data) ? data : data ? [data] : []), ...(Array.isArray(included) ? included : [])];
  return list.filter((r): r is object => typeof r === 'object' && r !== null && !Array.isArray(r));
}

/**
 * A pattern matching, in attributes text, a key named like one of the page's relationships; none
 * when no attribute name shares a hash with a relationship name (read by the scanner, or of
 * relationships already parsed). Only then are the relationships parsed to be compared by name.
 */
function clashes(resources: object[], attributeNames: Uint8Array, relationshipNames: Uint8Array): RegExp | undefined {
  let suspect = false;
  for (let h = 0; h < relationshipNames.length && !suspect; h++) suspect = relationshipNames[h] === 1 && attributeNames[h] === 1;
  for (const r of resources) {
    if (suspect) break;
    if ((r as Lazy)[LAZY_RELATIONSHIPS]) continue;
    const own = (r as { relationships?: unknown }).relationships;
    if (own && typeof own === 'object')
      for (const k of Object.keys(own)) suspect ||= attributeNames[nameHash(Buffer.from(k, 'utf8'))] === 1;
  }
  if (!suspect) return undefined;
  const names = new Set<string>();
  for (const r of resources) {
    const own = (r as { relationships?: unknown }).relationships;
    if (own && typeof own === 'object') for (const k of Object.keys(own)) names.add(k);
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
 * The `attributes` (or `relationships`) of a resource whose member is still text: parsed when
 * first read (then an ordinary property), replaced when written. One accessor pair for each.
 */
function lazyMember(name: 'attributes' | 'relationships', key: typeof LAZY | typeof LAZY_RELATIONSHIPS): PropertyDescriptor {
  const settle = (r: Lazy, value: unknown) => {
    delete r[key];
    Object.defineProperty(r, name, { value, writable: true, enumerable: true, configurable: true });
  };
  return {
    enumerable: true,
    configurable: true,
    get(this: Lazy) {
      const region = this[key]!;
      // The scan has looked for long integers already: JSON.parse, unless it saw one.
      const value = region.long ? parseJson(region.text) : (JSON.parse(region.text) as unknown);
      settle(this, value);
      return value;
    },
    set(this: Lazy, value: unknown) {
      settle(this, value);
    },
  };
}

const ATTRIBUTES = lazyMember('attributes', LAZY);
const RELATIONSHIPS = lazyMember('relationships', LAZY_RELATIONSHIPS);
