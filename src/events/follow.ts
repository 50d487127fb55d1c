/**
 * Reading the events resource without gaps: each poll asks for the events whose `updatedAt` is
 * at or after the cursor's time less an overlap window, in (updatedAt, id) order, through the
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
import { apiTime } from './since.js';

/** Default overlap window: late commits up to this far behind are still caught. */
export const DEFAULT_OVERLAP_MS = 10_000;

/** Options of {@link EventFollower}. */
interface FollowOptions {
  /** Filters of the user (names, prospect); the follower adds its `updatedAt` bound. */
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
}

/** One event handed on, with its keyset position. */
export interface FollowedEvent {
  record: ResourceObject;
  t: number;
  id: string;
}

/** `YYYY-MM-DDThh:mm:ssZ` (seconds: what the API's filters take). */
function isoSecondsFloor(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** Follows the events resource from a cursor or a time; one instance per reader. */
export class EventFollower {
  /** What was read and handed on. */
  readonly state: CursorState;
  private from: number;
  /** Requests sent (each page is one). */
  requests = 0;

  constructor(
    private readonly client: PageClient,
    private readonly opts: FollowOptions,
  ) {
    const overlap = opts.overlapMs ?? DEFAULT_OVERLAP_MS;
    if ('cursor' in opts.start) {
      this.state = new CursorState(overlap, opts.start.cursor);
      this.from = Math.max(opts.start.cursor.t - overlap, opts.start.cursor.floor ?? Number.NEGATIVE_INFINITY);
    } else {
      this.state = new CursorState(overlap, undefined, opts.start.from);
      this.from = opts.start.from;
    }
  }

  /** Where this reader stands: what `--since-cursor` continues from. Undefined before the first event. */
  cursor(): EventCursor | undefined {
    return this.state.cursor();
  }

  /**
   * The events that became visible since the last poll, a page at a time, in (updatedAt, id)
   * order (late commits inside the window come in the order read, after those handed on).
   * @param beforeRequest awaited before each page request (pacing)
   */
  async *poll(beforeRequest?: () => Promise<void>): AsyncGenerator<FollowedEvent[]> {
    const filters: Filter[] = [
      ...this.opts.filters,
      {
        path: ['updatedAt'],
        kind: 'range',
        values: [],
        from: isoSecondsFloor(this.from),
        ...(this.opts.until !== undefined ? { to: isoSecondsFloor(this.opts.until + 999) } : {}),
        escaped: false,
      },
    ];
    const client: PageClient = {
      baseUrl: this.client.baseUrl,
      resolve: (p) => this.client.resolve(p),
      request: async (r) => {
        if (beforeRequest) await beforeRequest();
        this.requests++;
        return this.client.request(r);
      },
    };
    for await (const page of paginate(client, 'events', {
      query: { sort: ['updatedAt', 'id'], filters },
      all: true,
      pageSize: this.opts.pageSize ?? MAX_PAGE_SIZE,
      ...(this.opts.signal ? { signal: this.opts.signal } : {}),
    })) {
      const fresh: FollowedEvent[] = [];
      for (const record of page.records) {
        const id = String(record.id);
        const t = apiTime(record.attributes?.['updatedAt'] ?? record.attributes?.['createdAt']);
        if (!Number.isFinite(t) || !/^\d+$/.test(id)) continue;
        if (this.opts.until !== undefined && t > this.opts.until) continue;
        // Handed on already, or before the window of a cursor given at start.
        if (this.state.has(id) || this.state.beforeWindow(t)) continue;
        this.state.mark({ t, id });
        fresh.push({ record, t, id });
      }
      if (fresh.length) yield fresh;
    }
    this.state.prune();
    // The next poll reads the window again, never earlier than this one did.
    this.from = Math.max(this.from, this.state.windowStart() ?? this.from);
  }
}
