/**
 * Where a reader of the events resource stands: the keyset position of the last event it
 * handed on, (createdAt, id), and the ids it handed on within the overlap window before it.
 * The window is read again on every poll (a late commit can land in it with an older time), and
 * the ids say which of its events were already handed on: none twice, none skipped.
 *
 * As text (`--since-cursor`, printed on Ctrl-C) it is `c1.` and base64url JSON: one word to
 * copy, opaque but versioned.
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

const PREFIX = 'c1.';

/** The cursor as one word. Times of seen ids are stored as offsets back from `t` (short). */
export function encodeCursor(c: EventCursor): string {
  return PREFIX + Buffer.from(JSON.stringify(cursorToJson(c))).toString('base64url');
}

/** Reads a cursor word back; undefined when it is not one (the caller says how to get one). */
export function decodeCursor(text: string): EventCursor | undefined {
  const word = text.trim();
  if (!word.startsWith(PREFIX)) return undefined;
  try {
    const body = JSON.parse(Buffer.from(word.slice(PREFIX.length), 'base64url').toString('utf8')) as unknown;
    return cursorFromJson(body);
  } catch {
    return undefined;
  }
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
  return { t, id, seen, ...(typeof f === 'number' ? { floor: t - f } : {}) };
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
