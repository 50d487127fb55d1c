/**
 * Where a reader of the events resource stands: the keyset position of the last event it
 * handed on, (createdAt, id), and the ids it handed on within the overlap window before it.
 * The window is read again on every poll (a late commit can land in it with an older time), and
 * the ids say which of its events were already handed on: none twice, none skipped.
 *
 * As text (`--since-cursor`, printed on Ctrl-C) it is one word to copy, opaque but versioned:
 * `c2.` and base64url bytes (below), or `c1.` and base64url JSON, which earlier versions printed
 * and which is still read (and written for what `c2` cannot hold exactly).
 */

/** A keyset position with the ids handed on inside the overlap window before it. */
export interface EventCursor {
  /** createdAt of the last event handed on, epoch ms. */
  t: number;
  /** Its id (digits). */
  id: string;
  /** Ids handed on whose createdAt is within the overlap window before `t`, with that time. */
  seen: [id: string, t: number][];
  /**
   * Events before this time were never to be handed on (the reader started at a time inside
   * the window): without it, a continuation would take them for late commits.
   */
  floor?: number;
}

const JSON_PREFIX = 'c1.';
const PACKED_PREFIX = 'c2.';

/**
 * The cursor as one word. `c2`: the seen ids sorted, each written as its distance from the one
 * before and its time as an offset back from `t`, in variable-length integers. A bulk run's
 * burst of events fills the window with thousands of near-consecutive ids: as JSON (`c1`) its
 * cursor was some 20 bytes an id (53 KB after a run of 2,000 rows, past what a CI variable
 * holds), packed 2–3 (API times are whole seconds) or 4–5 (milliseconds).
 */
export function encodeCursor(c: EventCursor): string {
  const packed = packCursor(c);
  return packed
    ? PACKED_PREFIX + packed.toString('base64url')
    : JSON_PREFIX + Buffer.from(JSON.stringify(cursorToJson(c))).toString('base64url');
}

/** Reads a cursor word back (either form); undefined when it is not one (the caller says how to get one). */
export function decodeCursor(text: string): EventCursor | undefined {
  const word = text.trim();
  try {
    if (word.startsWith(PACKED_PREFIX)) return unpackCursor(Buffer.from(word.slice(PACKED_PREFIX.length), 'base64url'));
    if (!word.startsWith(JSON_PREFIX)) return undefined;
    const body = JSON.parse(Buffer.from(word.slice(JSON_PREFIX.length), 'base64url').toString('utf8')) as unknown;
    return cursorFromJson(body);
  } catch {
    return undefined;
  }
}

/**
 * The furthest a Date reaches either side of 1970, in ms (ECMA-262), less a day: a time past it is
 * no event's, and a reader's window (an hour at most) starts before it. A word at Date's first
 * instant passed, and the first poll's window start threw "Invalid time value" (exit 1).
 */
const MAX_INSTANT = 8.64e15 - 86_400_000;

/**
 * The cursor when each of its times is one a Date holds, else undefined: a word made by hand
 * (or cut and pasted wrong) decoded to t = 2^53 - 1, and the first poll's filter threw
 * "Invalid time value" writing it (exit 1) instead of the usage error naming the word.
 */
function withinDates(c: EventCursor): EventCursor | undefined {
  const ok = (t: number) => Number.isFinite(t) && Math.abs(t) <= MAX_INSTANT;
  return ok(c.t) && (c.floor === undefined || ok(c.floor)) && c.seen.every(([, t]) => ok(t)) ? c : undefined;
}

/** An id `c2` holds exactly: digits without a leading zero (a number's own spelling). */
const packable = (id: string) => /^(0|[1-9]\d*)$/.test(id);

/**
 * `c2`'s bytes: t, id, flags (a floor; offsets in seconds), the floor's offset, the number of
 * seen ids, then each seen id's distance from the one before (ascending) and its time's offset
 * back from t. Times are whole milliseconds; undefined when a cursor holds anything else (then
 * `c1` is written).
 */
function packCursor(c: EventCursor): Buffer | undefined {
  if (!Number.isSafeInteger(c.t) || c.t < 0 || !packable(c.id)) return undefined;
  if (c.floor !== undefined && !Number.isSafeInteger(c.floor)) return undefined;
  if (c.seen.some(([id, t]) => !packable(id) || !Number.isSafeInteger(t))) return undefined;
  const seen = c.seen.map(([id, t]) => ({ id: BigInt(id), t })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // The API's times are whole seconds: offsets are then written in seconds (one byte each).
  const unit = [c.t, ...(c.floor !== undefined ? [c.floor] : []), ...seen.map((e) => e.t)].every((t) => t % 1000 === 0) ? 1000 : 1;
  const out: number[] = [];
  writeUint(out, BigInt(c.t));
  writeUint(out, BigInt(c.id));
  writeUint(out, BigInt((c.floor !== undefined ? 1 : 0) | (unit === 1000 ? 2 : 0)));
  if (c.floor !== undefined) writeInt(out, (c.t - c.floor) / unit);
  writeUint(out, BigInt(seen.length));
  let previous = 0n;
  for (const e of seen) {
    writeUint(out, e.id - previous);
    writeInt(out, (c.t - e.t) / unit);
    previous = e.id;
  }
  return Buffer.from(out);
}

/** A `c2` cursor back; undefined when the bytes are not one whole. */
function unpackCursor(bytes: Buffer): EventCursor | undefined {
  const r = { at: 0 };
  const t = Number(readUint(bytes, r));
  const id = readUint(bytes, r).toString();
  const flags = readUint(bytes, r);
  if (flags > 3n || !Number.isSafeInteger(t)) return undefined;
  const unit = flags & 2n ? 1000 : 1;
  const floor = flags & 1n ? t - readInt(bytes, r) * unit : undefined;
  const count = Number(readUint(bytes, r));
  // Each seen id takes two bytes at least: a count past that is not this cursor's.
  if (count > bytes.length) return undefined;
  const seen: [string, number][] = [];
  let previous = 0n;
  for (let i = 0; i < count; i++) {
    previous += readUint(bytes, r);
    seen.push([previous.toString(), t - readInt(bytes, r) * unit]);
  }
  if (r.at !== bytes.length) return undefined;
  return withinDates({ t, id, seen, ...(floor !== undefined ? { floor } : {}) });
}

/** An unsigned integer, 7 bits a byte, low bits first. */
function writeUint(out: number[], n: bigint): void {
  let v = n;
  while (v > 127n) {
    out.push(Number(v & 127n) | 128);
    v >>= 7n;
  }
  out.push(Number(v));
}

/** A signed whole number of milliseconds, zigzagged (offsets are ≥ 0 but for a clock that went back). */
function writeInt(out: number[], n: number): void {
  writeUint(out, n >= 0 ? BigInt(n) * 2n : BigInt(-n) * 2n - 1n);
}

function readUint(bytes: Buffer, r: { at: number }): bigint {
  let v = 0n;
  let shift = 0n;
  for (;;) {
    if (r.at >= bytes.length || shift > 140n) throw new Error('cut cursor');
    const b = bytes[r.at++]!;
    v |= BigInt(b & 127) << shift;
    if (b < 128) return v;
    shift += 7n;
  }
}

function readInt(bytes: Buffer, r: { at: number }): number {
  const z = readUint(bytes, r);
  const n = Number(z & 1n ? -(z + 1n) / 2n : z / 2n);
  if (!Number.isSafeInteger(n)) throw new Error('bad offset');
  return n;
}

/** A cursor from its JSON form (a cursor word's body, or a cursor file's member); undefined when malformed. */
export function cursorFromJson(body: unknown): EventCursor | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { t, id, s, f } = body as { t?: unknown; id?: unknown; s?: unknown; f?: unknown };
  if (f !== undefined && (typeof f !== 'number' || !Number.isFinite(f))) return undefined;
  if (typeof t !== 'number' || !Number.isFinite(t) || typeof id !== 'string' || !/^\d+$/.test(id) || !Array.isArray(s)) return undefined;
  const seen: [string, number][] = [];
  for (const e of s) {
    if (!Array.isArray(e) || typeof e[0] !== 'string' || !/^\d+$/.test(e[0]) || typeof e[1] !== 'number') return undefined;
    seen.push([e[0], t - e[1]]);
  }
  return withinDates({ t, id, seen, ...(typeof f === 'number' ? { floor: t - f } : {}) });
}

/** The JSON form of a cursor (what a cursor file keeps). */
export function cursorToJson(c: EventCursor): { t: number; id: string; s: [string, number][]; f?: number } {
  return { t: c.t, id: c.id, s: c.seen.map(([id, t]) => [id, c.t - t]), ...(c.floor !== undefined ? { f: c.t - c.floor } : {}) };
}

/** Orders two keyset positions: by time, then by id as a number (ids past 2^53 stay exact). */
export function compareKeys(a: { t: number; id: string }, b: { t: number; id: string }): number {
  if (a.t !== b.t) return a.t < b.t ? -1 : 1;
  const x = BigInt(a.id);
  const y = BigInt(b.id);
  return x === y ? 0 : x < y ? -1 : 1;
}

/**
 * The position of a reader as it hands events on: the last key and the ids within the overlap
 * window before it. `webhooks listen --catch-up` keeps one for what the receiver took (saved
 * after each delivery) apart from the one of what was read.
 */
export class CursorState {
  private last: { t: number; id: string } | undefined;
  private readonly seen = new Map<string, number>();
  /** Events before this are not to be handed on (see {@link EventCursor.floor}). */
  private readonly floor: number;

  /** @param floor a reader that starts at a time: nothing before it */
  constructor(
    readonly overlapMs: number,
    start?: EventCursor,
    floor?: number,
  ) {
    this.floor = start?.floor ?? floor ?? Number.NEGATIVE_INFINITY;
    if (start) {
      this.last = { t: start.t, id: start.id };
      for (const [id, t] of start.seen) this.seen.set(id, t);
    }
  }

  /** True when the event was handed on already. */
  has(id: string): boolean {
    return this.seen.has(id);
  }

  /** True when an event at `t` is before the window of this position (handed on, or too late to tell). */
  beforeWindow(t: number): boolean {
    return t < this.floor || (this.last !== undefined && t < this.last.t - this.overlapMs);
  }

  /** Records an event handed on. */
  mark(e: { t: number; id: string }): void {
    this.seen.set(e.id, e.t);
    if (!this.last || compareKeys(e, this.last) > 0) this.last = { t: e.t, id: e.id };
  }

  /** Forgets ids that fell out of the window. */
  prune(): void {
    if (!this.last) return;
    const floor = this.last.t - this.overlapMs;
    for (const [id, t] of this.seen) if (t < floor) this.seen.delete(id);
  }

  /** The earliest time a poll must read again (the window's start), or undefined before any event. */
  windowStart(): number | undefined {
    return this.last ? this.last.t - this.overlapMs : undefined;
  }

  /** The cursor word's content; undefined before any event when the start was no time. */
  cursor(): EventCursor | undefined {
    // Nothing handed on yet: where the reader started is still a position (a listener killed
    // before its first delivery must not start again at "now").
    if (!this.last) return Number.isFinite(this.floor) ? { t: this.floor, id: '0', seen: [], floor: this.floor } : undefined;
    const floor = this.last.t - this.overlapMs;
    const seen = [...this.seen].filter(([, t]) => t >= floor);
    return { t: this.last.t, id: this.last.id, seen, ...(this.floor > floor ? { floor: this.floor } : {}) };
  }
}
