/**
 * Formats from a flat record's compact JSON text (what ndjson writes, built by `flatJson` without
 * a flat object): `json` indents that text, `csv` and `table` read the values they show out of it.
 * Building the flat object of a record with hundreds of fields cost ~4× what ndjson spends per
 * record (V8 keeps such objects as slow dictionaries); reading the text costs about as much as
 * writing it. The text is what `JSON.stringify` writes, except that attributes are copied as the
 * server wrote them (page-parse.ts): whitespace between tokens is skipped here.
 */

// Performance machinery (src/README.md, Build): hand-written scanner of compact JSON text.

const INDENTS: string[] = [];
/** A newline and `2 × depth` spaces. */
function newline(depth: number): string {
  return (INDENTS[depth] ??= `\n${'  '.repeat(depth)}`);
}

/** Index of the quote closing the string whose opening quote is at `open`. */
function stringEnd(s: string, open: number): number {
  let q = s.indexOf('"', open + 1);
  for (;;) {
    // A quote after an odd run of backslashes is escaped.
    let b = q - 1;
    while (s.charCodeAt(b) === 92) b--;
    if ((q - b) % 2 === 1) return q;
    q = s.indexOf('"', q + 1);
  }
}

/**
 * `JSON.stringify(JSON.parse(compact), null, 2)` with every line after the first indented by
 * `2 × depth` more spaces: the layout of a value nested `depth` levels down.
 */
export function indentJson(compact: string, depth = 0): string {
  let out = '';
  let from = 0;
  const n = compact.length;
  for (let i = 0; i < n; i++) {
    const c = compact.charCodeAt(i);
    // Letters, digits and the like (most of the text outside strings) need nothing.
    const k = c < 128 ? TOKEN[c]! : 0;
    if (k === 0) continue;
    if (k === STRING) {
      i = stringEnd(compact, i);
    } else if (k === OPEN) {
      // `{}` and `[]` stay as they are.
      const close = skip(compact, i + 1);
      const next = compact.charCodeAt(close);
      if (next === 125 || next === 93) {
        out += compact.slice(from, i + 1);
        from = close;
        i = close;
        continue;
      }
      depth++;
      out += compact.slice(from, i + 1) + newline(depth);
      from = i + 1;
    } else if (k === CLOSE) {
      depth--;
      out += compact.slice(from, i) + newline(depth);
      from = i;
    } else if (k === COMMA) {
      out += compact.slice(from, i + 1) + newline(depth);
      from = i + 1;
    } else if (k === COLON) {
      out += compact.slice(from, i + 1) + ' ';
      from = i + 1;
    } else {
      // Whitespace a server wrote between tokens (raw attributes are copied as sent).
      out += compact.slice(from, i);
      from = i + 1;
    }
  }
  return out + compact.slice(from);
}

/**
 * `indentJson(compact, 1)` for the records of one listing, in turn. Records of a listing have the
 * same members in the same order and mostly the same values (custom fields left empty): each run
 * of members written exactly as in the previous record is copied, indented, out of that record's
 * output in one piece. Runs are found by comparing whole stretches of text (a native comparison,
 * ~25× quicker than reading the characters one by one), doubling then halving their length.
 * Indenting every character took ~15 µs a record of 150 custom fields.
 */
export function recordIndenter(): (compact: string) => string {
  let prevJson = '';
  let prevOut = '';
  let prevCount = 0;
  // Of the previous record: where member m's name starts in its text and its piece starts in its
  // output; at m = count, the end of the last value and of the last piece.
  let keyAt: number[] = [];
  let outAt: number[] = [];
  let nextKeyAt: number[] = [];
  let nextOutAt: number[] = [];
  // Text that is not a plain object (never made by flatJson): indented alone, nothing kept.
  const alone = (json: string) => {
    prevCount = 0;
    return indentJson(json, 1);
  };
  return (json) => {
    let i = skip(json, 0);
    if (json.charCodeAt(i) !== 123) return alone(json);
    i = skip(json, i + 1);
    if (json.charCodeAt(i) === 125) return alone(json);
    let out = '{';
    let m = 0;
    let last = 0;
    for (;;) {
      if (m < prevCount) {
        const from = keyAt[m]!;
        const avail = prevCount - m;
        // Whether members m + a to m + b - 1 are written here as there (members before them are).
        const same = (a: number, b: number): boolean => {
          const s = keyAt[m + a]!;
          const e = keyAt[m + b]!;
          const here = i + s - from;
          if (json.slice(here, here + e - s) !== prevJson.slice(s, e)) return false;
          if (m + b < prevCount) return true;
          // The last member: a number may go on here.
          const c = json.charCodeAt(here + e - s);
          return c === 44 || c === 125 || c <= 32;
        };
        let lo = 0;
        let step = 1;
        while (lo + step <= avail && same(lo, lo + step)) {
          lo += step;
          step *= 2;
        }
        for (step >>= 1; step > 0; step >>= 1) if (lo + step <= avail && same(lo, lo + step)) lo += step;
        if (lo > 0) {
          const base = outAt[m]!;
          const length = out.length;
          for (let j = m; j < m + lo; j++) {
            nextKeyAt[j] = keyAt[j]! - from + i;
            nextOutAt[j] = outAt[j]! - base + length;
          }
          out += prevOut.slice(base, outAt[m + lo]);
          i += keyAt[m + lo]! - from;
          m += lo;
          if (m === prevCount) {
            last = i;
            i = skip(json, i);
            const d = json.charCodeAt(i);
            if (d === 125) break;
            if (d !== 44) return alone(json);
            i = skip(json, i + 1);
          }
        }
      }
      // One member unlike the previous record's.
      if (json.charCodeAt(i) !== 34) return alone(json);
      const close = stringEnd(json, i);
      let start = skip(json, close + 1);
      if (json.charCodeAt(start) !== 58) return alone(json);
      start = skip(json, start + 1);
      const end = json.charCodeAt(start) === 110 ? start + 4 : valueEnd(json, start);
      const c = json.charCodeAt(start);
      const value = c === 123 || c === 91 ? indentJson(json.slice(start, end), 2) : json.slice(start, end);
      nextKeyAt[m] = i;
      nextOutAt[m] = out.length;
      out += `${m === 0 ? '\n    ' : ',\n    '}${json.slice(i, close + 1)}: ${value}`;
      m++;
      last = end;
      i = skip(json, end);
      const d = json.charCodeAt(i);
      if (d === 125) break;
      if (d !== 44) return alone(json);
      i = skip(json, i + 1);
    }
    nextKeyAt[m] = last;
    nextOutAt[m] = out.length;
    out += '\n  }';
    [keyAt, nextKeyAt] = [nextKeyAt, keyAt];
    [outAt, nextOutAt] = [nextOutAt, outAt];
    prevJson = json;
    prevOut = out;
    prevCount = m;
    return out;
  };
}

const [STRING, OPEN, CLOSE, COMMA, COLON, SPACE] = [1, 2, 3, 4, 5, 6];
/** What each ASCII character is to {@link indentJson}: 0 for nothing to do. */
const TOKEN = new Uint8Array(128);
TOKEN[34] = STRING;
TOKEN[123] = TOKEN[91] = OPEN;
TOKEN[125] = TOKEN[93] = CLOSE;
TOKEN[44] = COMMA;
TOKEN[58] = COLON;
TOKEN[32] = TOKEN[9] = TOKEN[10] = TOKEN[13] = SPACE;

/** The first index from `i` that is not JSON whitespace. */
function skip(s: string, i: number): number {
  let c = s.charCodeAt(i);
  while (c === 32 || c === 10 || c === 13 || c === 9) c = s.charCodeAt(++i);
  return i;
}

/** Index just past the value starting at `i`. */
function valueEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 34) return stringEnd(s, i) + 1;
  if (c === 123 || c === 91) {
    let depth = 0;
    for (let j = i; ; j++) {
      const d = s.charCodeAt(j);
      if (d === 34) j = stringEnd(s, j);
      else if (d === 123 || d === 91) depth++;
      else if ((d === 125 || d === 93) && --depth === 0) return j + 1;
    }
  }
  // null, true, false or a number: up to the next separator or space.
  let j = i + 1;
  for (let d = s.charCodeAt(j); d > 32 && d !== 44 && d !== 125 && d !== 93; d = s.charCodeAt(++j));
  return j;
}

/** The key of the string at `open` (its opening quote) and the index of its closing quote. */
function keyAt(s: string, open: number): [string, number] {
  const close = stringEnd(s, open);
  const raw = s.slice(open + 1, close);
  return [raw.includes('\\') ? (JSON.parse(s.slice(open, close + 1)) as string) : raw, close];
}

/** Calls `entry` for each member of a JSON object's text, with the bounds of its value. */
export function forEachEntry(json: string, entry: (key: string, start: number, end: number) => void): void {
  let i = skip(json, skip(json, 0) + 1);
  if (json.charCodeAt(i) === 125) return;
  for (;;) {
    const [key, close] = keyAt(json, i);
    const start = skip(json, skip(json, close + 1) + 1);
    const end = valueEnd(json, start);
    entry(key, start, end);
    i = skip(json, end);
    if (json.charCodeAt(i) !== 44) return;
    i = skip(json, i + 1);
  }
}

/**
 * The value of the JSON text `json.slice(start, end)`: null and plain strings without JSON.parse,
 * unless `fresh` (a cut-out string keeps the whole record's text alive while it is kept).
 */
function valueAt(json: string, start: number, end: number, fresh = false): unknown {
  const c = json.charCodeAt(start);
  if (c === 110) return null;
  if (c === 34 && !fresh) {
    const inner = json.slice(start + 1, end - 1);
    if (!inner.includes('\\')) return inner;
  }
  return JSON.parse(json.slice(start, end));
}

/**
 * Reads the values of `columns` out of flat records' JSON text, as `pick` reads them out of flat
 * records: a column is a member's name, or `name.inner` for a member of an included record.
 * With `keep`, the values share no memory with the text (rows kept for a while: the table's first page).
 */
export function columnReader(
  columns: readonly string[],
  pick: (r: Record<string, unknown>, column: string) => unknown,
  { keep = false }: { keep?: boolean } = {},
): (json: string) => unknown[] {
  const index = new Map<string, number>();
  for (const [i, c] of columns.entries()) if (!index.has(c)) index.set(c, i);
  // Columns with a dot that may read into a member: the member's name, and the columns that do.
  const inner = new Map<string, number[]>();
  columns.forEach((c, i) => {
    const dot = c.indexOf('.');
    if (dot > 0) inner.set(c.slice(0, dot), [...(inner.get(c.slice(0, dot)) ?? []), i]);
  });
  const dupes = columns.map((c, i) => [i, index.get(c)!] as const).filter(([i, j]) => i !== j);
  // Records of a listing have the same members in the same order: the member names seen at each
  // position last time are checked in place, and only a name that differs is cut out and looked up.
  const seen: (string | undefined)[] = [];
  const columnAt: number[] = [];
  const innerAt: (string | undefined)[] = [];
  return (json) => {
    const values: unknown[] = new Array<unknown>(columns.length);
    const found: boolean[] | undefined = inner.size ? new Array<boolean>(columns.length).fill(false) : undefined;
    let members: Map<string, unknown> | undefined;
    let i = skip(json, skip(json, 0) + 1);
    let m = 0;
    while (json.charCodeAt(i) !== 125) {
      const known = seen[m];
      let close = known === undefined ? -1 : i + 1 + known.length;
      if (close < 0 || json.charCodeAt(close) !== 34 || !json.startsWith(known!, i + 1)) {
        let key: string;
        [key, close] = keyAt(json, i);
        // A name written with escapes is looked up each time.
        seen[m] = json.slice(i + 1, close).includes('\\') ? undefined : key;
        columnAt[m] = index.get(key) ?? -1;
        innerAt[m] = inner.has(key) ? key : undefined;
      }
      // Compact text has the value right after the colon; a server's spaces are skipped.
      let start = close + 1;
      if (json.charCodeAt(start) !== 58) start = skip(json, start);
      if (json.charCodeAt(++start) <= 32) start = skip(json, start);
      const end = json.charCodeAt(start) === 110 ? start + 4 : valueEnd(json, start);
      const col = columnAt[m]!;
      const into = innerAt[m];
      if (col >= 0 || into !== undefined) {
        const v = valueAt(json, start, end, keep);
        if (col >= 0) {
          values[col] = v;
          if (found) found[col] = true;
        }
        if (into !== undefined) (members ??= new Map()).set(into, v);
      }
      m++;
      i = end;
      if (json.charCodeAt(i) !== 44) {
        i = skip(json, i);
        if (json.charCodeAt(i) !== 44) break;
      }
      if (json.charCodeAt(++i) !== 34) i = skip(json, i);
    }
    if (members) {
      for (const [name, list] of inner) {
        const v = members.get(name);
        if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
        for (const i of list) if (!found![i]) values[i] = pick(v as Record<string, unknown>, columns[i]!.slice(name.length + 1));
      }
    }
    for (const [i, j] of dupes) values[i] = values[j];
    return values;
  };
}

/** Names of the members of flat records' JSON text in first-seen order, `id` and `type` first. */
export function unionKeysOf(jsons: readonly string[]): string[] {
  const keys = new Set<string>(['id', 'type']);
  for (const j of jsons) forEachEntry(j, (k) => k !== 'meta' && keys.add(k));
  return [...keys];
}
