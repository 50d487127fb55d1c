/**
 * Reading the events resource without gaps: each poll asks for the events whose `createdAt` is
 * at or after the cursor's time less an overlap window, in (createdAt, id) order, through the
 * one paging loop (api/paginate.ts), and hands on those not handed on before. The window is
 * read again every time because an event can become visible after later ones (a transaction
 * that commits late, a second holding many events): the ids seen in it keep those already
 * handed on out. Events older than the window when they become visible cannot be told apart
 * from what came before the cursor; the window is the bound of that promise (`--overlap`).
 */
import type { Filter } from '../api/filter.js';
import { paginate, MAX_PAGE_SIZE, type PageClient } from '../api/paginate.js';
import type { ResourceObject } from '../api/jsonapi.js';
import { CursorState, type EventCursor } from './cursor.js';
import { apiDateTime, apiTime } from '../api-time.js';

/**
 * Records one poll reads at most: under the service's offset cap (10,000), so a window of more
 * events (`--since 7d` on a busy org) is read over several polls, each from where the last ended.
 */
const POLL_LIMIT = 5000;

/**
 * The time an event is read by. An event records something once, but its `updatedAt` moves when
 * the record is touched: a deleted prospect's events lose their link to it, and read by
 * `updatedAt` they came back after the delete's own event, a second time (a new user's trial).
 */
export const EVENT_TIME = 'createdAt';

/** Default overlap window: late commits up to this far behind are still caught. */
export const DEFAULT_OVERLAP_MS = 10_000;

/** Options of {@link EventFollower}. */
export interface FollowOptions {
  /** Filters of the user (names, prospect); the follower adds its `createdAt` bound. */
  filters: Filter[];
  /** Where to start: a cursor (continue exactly there), or a time (every event at or after it). */
  start: { cursor: EventCursor } | { from: number };
  /** @default DEFAULT_OVERLAP_MS */
  overlapMs?: number;
  /** Events read up to this time (epoch ms, inclusive); later ones are not handed on (`replay --until`). */
  until?: number;
  signal?: AbortSignal;
  /** Page size. @default 1000 */
  pageSize?: number;
  /** Records one poll reads at most. @default 5000 */
  pollLimit?: number;
}

/** One event handed on, with its keyset position. */
export interface FollowedEvent {
  record: ResourceObject;
  t: number;
  id: string;
}

/** Follows the events resource from a cursor or a time; one instance per reader. */
export class EventFollower {
  /** What was read and handed on. */
  readonly state: CursorState;
  private from: number;
  /** Where the reader started: no poll reads before it. */
  private readonly startFrom: number;
  /** Requests sent (each page is one). */
  requests = 0;
  /** The last poll stopped at its limit: poll again at once, more is there. */
  more = false;
  /** A second with more events than a poll reads, being read by id after `afterId`. */
  private dense: { t: number; afterId: string } | undefined;

  constructor(
    private readonly client: PageClient,
    private readonly opts: FollowOptions,
  ) {
    const overlap = opts.overlapMs ?? DEFAULT_OVERLAP_MS;
    if ('cursor' in opts.start) {
      this.state = new CursorState(overlap, opts.start.cursor);
      this.from = Math.max(opts.start.cursor.t - overlap, opts.start.cursor.floor ?? Number.NEGATIVE_INFINITY);
      this.startFrom = this.from;
    } else {
      this.state = new CursorState(overlap, undefined, opts.start.from);
      this.from = opts.start.from;
      this.startFrom = opts.start.from;
    }
  }

  /** Where this reader stands: what `--since-cursor` continues from. Undefined before the first event. */
  cursor(): EventCursor | undefined {
    return this.state.cursor();
  }

  /**
   * The events that became visible since the last poll, a page at a time, in (createdAt, id)
   * order (late commits inside the window come in the order read, after those handed on).
   * @param beforeRequest awaited before each page request (pacing)
   */
  async *poll(beforeRequest?: () => Promise<void>): AsyncGenerator<FollowedEvent[]> {
    const dense = this.dense;
    const timeFilter = this.timeFilter();
    const client: PageClient = {
      baseUrl: this.client.baseUrl,
      resolve: (p) => this.client.resolve(p),
      request: async (r) => {
        if (beforeRequest) await beforeRequest();
        this.requests++;
        return this.client.request(r);
      },
    };
    const limit = this.opts.pollLimit ?? POLL_LIMIT;
    let read = 0;
    let lastRead = this.from;
    let lastId = dense?.afterId ?? '0';
    for await (const page of paginate(client, 'events', {
      query: { sort: dense ? ['id'] : [EVENT_TIME, 'id'], filters: [...this.opts.filters, timeFilter] },
      limit,
      pageSize: this.opts.pageSize ?? MAX_PAGE_SIZE,
      ...(dense ? { keyset: { after: dense.afterId } } : {}),
      ...(this.opts.signal ? { signal: this.opts.signal } : {}),
    })) {
      read += page.records.length;
      const fresh: FollowedEvent[] = [];
      for (const record of page.records) {
        const e = this.take(record);
        if (!e) continue;
        lastRead = Math.max(lastRead, e.t);
        if (BigInt(e.id) > BigInt(lastId)) lastId = e.id;
        if (e.fresh) fresh.push(e);
      }
      if (fresh.length) yield fresh;
    }
    this.state.prune();
    this.advance(read >= limit, lastRead, lastId);
  }

  /**
   * The time filter of the next poll: a second holding more events than a poll reads is read by
   * id within it (the keyset's second half); otherwise everything from `from` on.
   */
  private timeFilter(): Filter {
    const base: Filter = { path: [EVENT_TIME], kind: 'range', values: [], escaped: false };
    if (this.dense) return { ...base, from: apiDateTime(this.dense.t), to: apiDateTime(this.dense.t) };
    const to = this.opts.until !== undefined ? { to: apiDateTime(this.opts.until + 999) } : {};
    return { ...base, from: apiDateTime(this.from), ...to };
  }

  /** An event read: its position, and whether it is to be handed on (marked so when it is). */
  private take(record: ResourceObject): (FollowedEvent & { fresh: boolean }) | undefined {
    const id = String(record.id);
    const t = apiTime(record.attributes?.[EVENT_TIME]);
    if (!Number.isFinite(t) || !/^\d+$/.test(id)) return undefined;
    // After --until; handed on already; or before the window of a cursor given at start.
    const fresh = !(this.opts.until !== undefined && t > this.opts.until) && !this.state.has(id) && !this.state.beforeWindow(t);
    if (fresh) this.state.mark({ t, id });
    return { record, t, id, fresh };
  }

  /**
   * Where the next poll starts: after a poll cut at its limit, from where it ended (the ids seen
   * keep what it read out), by id within the second when it did not get past one; otherwise
   * the window again.
   */
  private advance(cut: boolean, lastRead: number, lastId: string): void {
    this.more = cut || this.dense !== undefined;
    if (this.dense) {
      // The dense second read to its end: on after it.
      if (cut) this.dense = { t: this.dense.t, afterId: lastId };
      else {
        this.from = Math.max(this.from, this.dense.t + 1000);
        this.dense = undefined;
      }
      return;
    }
    if (cut) {
      if (Math.floor(lastRead / 1000) <= Math.floor(this.from / 1000)) this.dense = { t: lastRead, afterId: '0' };
      else this.from = Math.max(this.from, lastRead);
      return;
    }
    this.from = Math.max(this.startFrom, this.state.windowStart() ?? this.startFrom);
  }
}
