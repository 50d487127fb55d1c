/**
 * One `svc sync` run over a list of types (README.md, "Questions about your org"). Per type:
 *
 * - a run in progress (a killed sync) continues from its cursor, as the kind of run it was;
 * - else the first run reads every record (`full`), and later runs the records whose `updatedAt`
 *   is at or after the watermark less an overlap (`incremental`: same-second updates, clock
 *   skew). A type whose `updatedAt` cannot be filtered is read in full every time;
 * - every run reads in id order by keyset from its cursor (listing/pages.ts, paginate's keyset mode), so
 *   nothing is cut at the offset cap and an unsorted page moves the cursor past its largest id;
 * - each page is upserted and the cursor moved past it in one transaction (store.ts);
 * - at the end the watermark becomes the highest `updatedAt` the run committed (never the last
 *   row's), but never later than the run's start: a record stamped in the future is fetched again
 *   rather than letting the watermark run ahead of the clock.
 *
 * Order: the tables take turns. A table a run left unfinished goes first (it continues), then the
 * rest by their last finished sync, the stalest (or never synced) first; ties keep the order
 * asked. A sync within a budget smaller than one refresh of every table (`--budget`) then
 * refreshes each within a few runs, instead of the first tables of the list every time (a CI
 * engineer's nightly sync at `--budget 12` never refreshed mailings, tasks, calls, opportunities).
 * No table needs another synced first: relationships are ids, never checked against the other
 * table (no foreign keys), and a delete unlinks the rows that refer to it whichever is read when.
 *
 * Deletes: first, before any table, the `<type>_destroyed` events since the last run's cursor
 * (moved page by page), so that every run that reaches a table has the deletes up to its start,
 * whatever its budget (read after the tables, they were never reached by a run that stopped in
 * them, night after night); a delete during the run is among the next run's events. A mirror's
 * first run only notes where its events start. Because events need not be complete (a server may
 * cascade silently), a `reconcile` run — ids only — every {@link RECONCILE_EVERY_MS} per table or
 * with `--reconcile`, in the table's turn, right after its read (at the end it too was never
 * reached under a small budget).
 *
 * A run stopped on the way (the caller's `stoppedBy`: its `--budget` spent, Ctrl-C) still says
 * what it did: the tables finished, the one it stopped in with what it wrote so far, and those it
 * did not reach. Every page it committed is kept; the next run continues.
 */
import { ApiError } from '../errors.js';
import type { Filter } from '../api/filter.js';
import type { ResourceObject } from '../api/jsonapi.js';
import { largestId, MAX_PAGE_SIZE, paginate, type PageClient } from '../api/paginate.js';
import { listPages } from '../listing/pages.js';
import type { ListQuery } from '../api/query.js';
import { findAttribute, type ResourceType } from '../registry/index.js';
import { sqlId, type TableSpec } from './naming.js';
import { UNREADABLE, type MirrorStore, type RunKind } from './store.js';
import { apiDateTime, apiTime } from '../api-time.js';
import { missingScope } from '../api/scope-hint.js';

/** How far before the watermark an incremental run starts. */
const OVERLAP_MS = 60_000;
/** How often a table's ids are reconciled without `--reconcile`. */
const RECONCILE_EVERY_MS = 24 * 3_600_000;

/** What one type's run did. */
interface TypeResult {
  table: string;
  kind: RunKind;
  /** The run continued one a killed sync left. */
  resumed: boolean;
  /** Records written (upserted) by this invocation. */
  written: number;
  /**
   * Of those, the records updated since the mirror last had the table: an incremental run reads
   * a minute before its watermark again, so `written` counts records it already had.
   */
  changed: number;
  /** Rows deleted: not seen by a full or reconcile read, or told by events. */
  deleted: number;
  /** Not read: the token lacks this scope (a sync of types it did not name, `skipUnreadable`); said by the caller. */
  skipped?: string;
  /** Another syncer of the same mirror synced the table since this one started. */
  byOther?: boolean;
  /** The sync stopped inside this table (its run is left for the next sync to continue), and why. */
  stopped?: StopReason;
}

/** Why a sync stopped before its end: the hour's budget (`--budget`) spent, or Ctrl-C / SIGTERM. */
type StopReason = 'budget' | 'interrupted';

/** What {@link syncTables} did. */
interface SyncOutcome {
  /** In the order asked: every table's result; stopped, those it finished and the one it stopped in. */
  tables: TypeResult[];
  /** Set when the sync stopped before its end. */
  stop?: {
    reason: StopReason;
    /** What stopped it, for the caller to report. */
    error: unknown;
    /** Tables the sync did not come to, in the order asked. */
    notReached: string[];
    /** It stopped before the tables, while reading the API's delete events. */
    inEvents: boolean;
    /** Rows the delete events removed from tables the sync did not come to, by table. */
    deletedNotReached: Map<string, number>;
  };
}

/** The table a sync is in, counted page by page: what a stop reports of it. */
interface Tally {
  table: string;
  kind: RunKind;
  resumed: boolean;
  written: number;
  changed: number;
}

/** Options of {@link syncTables}. */
interface SyncOptions {
  store: MirrorStore;
  client: PageClient;
  tables: readonly { rt: ResourceType; spec: TableSpec }[];
  now: () => number;
  signal?: AbortSignal;
  pageSize?: number;
  /** Reconcile every table's ids now. */
  reconcile?: boolean;
  /**
   * A table the token may not read (403 for a missing scope) is skipped (its result says the
   * scope) instead of ending the sync: for the default types and --all-types, which the token did
   * not choose.
   */
  skipUnreadable?: boolean;
  /** After each page: records written so far, of `total` when the server counted them. */
  progress: (table: string, written: number, kind: RunKind, total: number | undefined) => void;
  warn: (line: string) => void;
  /** A line for `--verbose`: the order the tables are read in. */
  trace?: (line: string) => void;
  /**
   * Whether an error is a stop rather than a failure, and which (the budget is the caller's, not
   * the mirror's): the sync then returns what it did instead of throwing.
   */
  stoppedBy?: (err: unknown) => StopReason | undefined;
}

/** Where a sync is: the results so far, the table in hand, and the deletes that events told of. */
interface Progress {
  byTable: Map<string, TypeResult>;
  /** The table being read (its result not yet in `byTable`) or reconciled (already in it). */
  current?: Tally;
  /** Rows deleted by events, by table, not yet added to the results. */
  fromEvents: Map<string, number>;
  inEvents: boolean;
}

/**
 * Syncs the tables one after the other, then applies the deletes events tell of. Stopped on the
 * way ({@link SyncOptions.stoppedBy}), returns what it did with the stop.
 */
export async function syncTables(opts: SyncOptions): Promise<SyncOutcome> {
  const at: Progress = { byTable: new Map(), fromEvents: new Map(), inEvents: false };
  try {
    await syncAll(opts, at);
  } catch (err) {
    const reason = opts.stoppedBy?.(err);
    if (reason === undefined) throw err;
    const cut = at.current;
    const tables = opts.tables.flatMap((t): TypeResult[] => {
      const done = at.byTable.get(t.spec.table);
      if (done) return [done.table === cut?.table ? { ...done, stopped: reason } : done];
      if (t.spec.table !== cut?.table) return [];
      const { table, kind, resumed, written, changed } = cut;
      return [{ table, kind, resumed, written: kind === 'reconcile' ? 0 : written, changed, deleted: 0, stopped: reason }];
    });
    addDeletes(tables, at.fromEvents);
    const notReached = opts.tables.map((t) => t.spec.table).filter((name) => !tables.some((r) => r.table === name));
    return { tables, stop: { reason, error: err, notReached, inEvents: at.inEvents, deletedNotReached: new Map(at.fromEvents) } };
  }
  const tables = opts.tables.map((t) => at.byTable.get(t.spec.table)!);
  addDeletes(tables, at.fromEvents);
  return { tables };
}

/** Adds the deletes events told of to the results, once; those of tables not in them are left. */
function addDeletes(results: readonly TypeResult[], fromEvents: Map<string, number>): void {
  for (const r of results) {
    r.deleted += fromEvents.get(r.table) ?? 0;
    fromEvents.delete(r.table);
  }
}

async function syncAll(opts: SyncOptions, at: Progress): Promise<void> {
  const { store } = opts;
  // Each table's last sync as this run saw it at its start, and after each of its own runs: a
  // later one is another syncer's (see leased).
  const seen = new Map<string, string | null>();
  const waiting = leaseWaits(opts);
  const states = new Map<string, Awaited<ReturnType<typeof store.state>>>();
  for (const t of opts.tables) {
    const state = await store.state(t.spec.table);
    states.set(t.spec.table, state);
    seen.set(t.spec.table, state?.syncedAt ?? null);
  }
  // Where the events of this run start.
  let eventsFrom = (await store.meta()).get('events_from');
  let noted = false;
  if (eventsFrom === undefined) {
    eventsFrom = await latestEventId(opts);
    // Kept at once: a sync killed while reading the types still reads these events next time.
    // Another syncer of the same mirror may have kept its own since this one looked (it started
    // first, or ended meanwhile): the earlier of the two is read from, so that a delete after the
    // other's last events and before this one's first is read by this one.
    const mine = eventsFrom;
    eventsFrom = await store.tx(async () => {
      const kept = (await store.meta()).get('events_from');
      if (kept !== undefined && /^\d+$/.test(kept) && BigInt(kept) <= BigInt(mine)) return kept;
      await store.setMeta('events_from', mine);
      return mine;
    });
    // This run's own note of the newest event: there is nothing before the tables to read.
    noted = eventsFrom === mine;
  }
  const order = turns(opts.tables, states);
  opts.trace?.(
    `order: ${noted ? '' : 'delete events, '}${order
      .map((t) => `${t.spec.table}${states.get(t.spec.table)?.runKind ? ' (unfinished)' : ''}`)
      .join(', ')} (stalest first)`,
  );
  if (!noted) {
    at.inEvents = true;
    await applyDeleteEvents(opts, eventsFrom, at.fromEvents);
    at.inEvents = false;
  }
  const { byTable } = at;
  const marked = new Set([...(await store.meta()).keys()].filter((k) => k.startsWith(UNREADABLE)).map((k) => k.slice(UNREADABLE.length)));
  for (const t of order) {
    const tally: Tally = { table: t.spec.table, kind: 'full', resumed: false, written: 0, changed: 0 };
    at.current = tally;
    try {
      byTable.set(t.spec.table, await leased(t.spec, opts, seen, waiting, () => syncTable(t.rt, t.spec, opts, tally)));
      if (marked.has(t.spec.table)) await store.setUnreadable(t.spec.table, null);
    } catch (err) {
      const named = opts.skipUnreadable ? missingScope(err) : undefined;
      if (named === undefined) throw err;
      // Refused on its first page: a run it started holds nothing and is ended; a run an earlier
      // sync left unfinished keeps its place, for a token that can read the table.
      if (!states.get(t.spec.table)?.runKind) await store.endEmptyRun(t.spec.table);
      // Kept in the mirror: its readers say this sync did not refresh the table (its rows, if an
      // earlier sync left any, are as old as that sync), not that a sync would. The caller says
      // it once for every table skipped, with the fix.
      const scope = named || `${t.rt.path}.read`;
      await store.setUnreadable(t.spec.table, scope);
      byTable.set(t.spec.table, { table: t.spec.table, kind: 'full', resumed: false, written: 0, changed: 0, deleted: 0, skipped: scope });
      continue;
    }
    // Its reconcile when due, in its turn. Stopped there, the table's result is marked and its
    // reconcile left unfinished: the next run continues it first.
    at.current = { table: t.spec.table, kind: 'reconcile', resumed: false, written: 0, changed: 0 };
    const r = await leased(t.spec, opts, seen, waiting, async () => {
      const state = await store.state(t.spec.table);
      const due = opts.reconcile || !state?.reconciledAt || opts.now() - apiTime(state.reconciledAt) > RECONCILE_EVERY_MS;
      return due && !state?.runKind ? runKind(t.rt, t.spec, 'reconcile', opts) : undefined;
    });
    byTable.get(t.spec.table)!.deleted += r?.deleted ?? 0;
  }
  at.current = undefined;
}

/**
 * The order of a run's tables: one a run left unfinished first, then by their last finished sync,
 * the oldest (or never) first; ties (`synced_at` is to the second) keep the order asked.
 */
function turns<T extends { spec: TableSpec }>(
  tables: readonly T[],
  states: ReadonlyMap<string, { runKind: RunKind | null; syncedAt: string | null } | undefined>,
): T[] {
  const key = (t: T) => {
    const state = states.get(t.spec.table);
    // Unfinished before never synced (0, the epoch) before any sync.
    return state?.runKind ? -1 : state?.syncedAt ? apiTime(state.syncedAt) : 0;
  };
  // Array sort is stable: equal keys keep the order asked.
  return [...tables].sort((a, b) => key(a) - key(b));
}

/**
 * Runs `fn` holding the table's lease (store.lease): another syncer of the same mirror is never
 * inside the same table. One that finds the table synced by another since this run started (its
 * last sync is not the one `seen` holds) does not read it again: the other's pages are as fresh
 * as its own would be. That holds whether it waited for the lease or came after the other had
 * let it go: started together, the one that waited on a table came to the next one late, after
 * the other had synced a small table whole. A run the other left unfinished (it crashed) is
 * continued.
 */
async function leased<T>(
  spec: TableSpec,
  opts: SyncOptions,
  seen: Map<string, string | null>,
  waiting: (table: string) => void,
  fn: () => Promise<T>,
): Promise<T | TypeResult> {
  const release = await opts.store.lease(spec.table, () => waiting(spec.table));
  try {
    const state = await opts.store.state(spec.table);
    if (state?.syncedAt && !state.runKind && state.syncedAt !== seen.get(spec.table)) {
      seen.set(spec.table, state.syncedAt);
      return { table: spec.table, kind: 'incremental', resumed: false, written: 0, changed: 0, deleted: 0, byOther: true };
    }
    const result = await fn();
    seen.set(spec.table, (await opts.store.state(spec.table))?.syncedAt ?? null);
    return result;
  } finally {
    await release();
  }
}

/** How long a sync that waits again and again for another syncer stays silent before it says so again. */
const WAIT_NOTE_EVERY_MS = 5 * 60_000;

/**
 * What one sync says of its waits for another syncer of the same mirror: the first wait, then at
 * most a line every few minutes. Two syncs side by side take turns table by table, each table's
 * lease (and its reconcile's) a wait: a line for each was some 30 lines of the same (a trial).
 */
function leaseWaits(opts: SyncOptions): (table: string) => void {
  let said: number | undefined;
  return (table) => {
    const now = opts.now();
    if (said !== undefined && now - said < WAIT_NOTE_EVERY_MS) return;
    opts.warn(
      said === undefined
        ? `${table}: another svc sync is writing this table; waiting for it (the two take turns, table by table)`
        : `still taking turns with another svc sync (waiting for ${table})`,
    );
    said = now;
  };
}

/** Syncs one table; `tally` counts its pages as they are committed. */
async function syncTable(rt: ResourceType, spec: TableSpec, opts: SyncOptions, tally: Tally): Promise<TypeResult> {
  const state = await opts.store.state(spec.table);
  if (state?.runKind === 'reconcile') {
    // A reconcile a killed sync left: finish it, then read as usual.
    await runKind(rt, spec, 'reconcile', opts, tally);
  } else if (state?.runKind) {
    const r = await runKind(rt, spec, state.runKind, opts, tally);
    return { ...r, resumed: true };
  }
  const fresh = await opts.store.state(spec.table);
  const incremental = fresh?.watermark && findAttribute(rt, 'updatedAt')?.filterable;
  return runKind(rt, spec, incremental ? 'incremental' : 'full', opts, tally);
}

/** Runs (or resumes) one kind of run over a table; `tally`, when given, counts its pages. */
async function runKind(rt: ResourceType, spec: TableSpec, kind: RunKind, opts: SyncOptions, tally?: Tally): Promise<TypeResult> {
  const { store } = opts;
  let state = (await store.state(spec.table))!;
  const resumed = state.runKind === kind;
  if (tally) Object.assign(tally, { kind, resumed, written: 0, changed: 0 });
  if (!resumed) {
    const since = kind === 'incremental' && state.watermark ? apiDateTime(apiTime(state.watermark) - OVERLAP_MS) : null;
    await store.startRun(spec.table, kind, since, apiDateTime(opts.now()), kind === 'incremental' ? state.watermark : null);
    state = (await store.state(spec.table))!;
  }
  const startedAt = state.runStartedAt ? apiTime(state.runStartedAt) : opts.now();
  let runMax = state.runMax;
  // Counted on the first page only: the progress shows how far along the run is.
  const query: ListQuery = { sort: ['id'], filters: listFilters(rt, state.runSince), count: kind !== 'reconcile' };
  // Ids only: an empty sparse fieldset returns no attributes.
  if (kind === 'reconcile') query.fields = { [rt.type]: [] };
  let written = 0;
  let changed = 0;
  // The last finished run's watermark (it stays so until this run finishes): records stamped at
  // or before it are changed only where the mirror holds another `updatedAt` (store.ts,
  // changedOfOverlap). A full run of a table synced before (its `updatedAt` not filterable, as
  // email_addresses') takes it too: without it, every row read again counted as changed on every
  // sync (a trial: `25 changed` of 25, three times over). A first sync and a --rebuild have no
  // watermark (all are new); a reconcile writes no rows.
  const changedAfter = kind !== 'reconcile' && state.watermark ? apiTime(state.watermark) : undefined;
  let total: number | undefined;
  // The listing's pages (parsed from their bytes, attributes left as text for the store to read):
  // each is committed before the next is asked for, when its memory is handed back.
  for await (const page of listPages(opts.client, spec.path, {
    query,
    all: true,
    pageSize: opts.pageSize ?? MAX_PAGE_SIZE,
    keyset: { after: idBefore(state.runCursor ?? '0') },
    warn: opts.warn,
    ...(opts.signal ? { signal: opts.signal } : {}),
  })) {
    const records = page.records;
    const count = (page.doc.meta as { count?: unknown } | undefined)?.count;
    if (total === undefined && typeof count === 'number') total = count;
    if (records.length === 0) continue;
    const committed = await store.commitPage(spec, records, nextCursor(records), runMax, kind, changedAfter);
    runMax = committed.runMax;
    changed += committed.changed;
    written += records.length;
    if (tally) Object.assign(tally, { written, changed });
    if (kind !== 'reconcile') opts.progress(spec.table, written, kind, total);
  }
  // Never later than the run's start: a future `updatedAt` would hide later changes.
  const watermark = runMax && apiTime(runMax) > startedAt ? apiDateTime(startedAt) : runMax;
  const deleted = await store.finishRun(spec, kind, watermark, apiDateTime(opts.now()));
  return {
    table: spec.table,
    kind,
    resumed,
    written: kind === 'reconcile' ? 0 : written,
    changed: kind === 'reconcile' ? 0 : changed,
    deleted,
  };
}

/**
 * The filters of a read: accounts the index hides unless filtered by `named` are asked for with
 * both values; an incremental read's lower bound on `updatedAt`.
 */
function listFilters(rt: ResourceType, since: string | null): Filter[] {
  const filters: Filter[] = [];
  if (rt.type === 'account') filters.push({ path: ['named'], kind: 'list', values: ['true', 'false'], escaped: false });
  if (since) filters.push({ path: ['updatedAt'], kind: 'range', values: [], from: since, escaped: false });
  return filters;
}

/** The keyset's `after` for a cursor (the next id to read): none before id 0. */
function idBefore(cursor: string): string | undefined {
  return cursor === '0' ? undefined : String(BigInt(cursor) - 1n);
}

/** One past the largest id of a page: where the next page (or a resumed run) starts. */
function nextCursor(records: readonly ResourceObject[]): string {
  const largest = largestId(records);
  // Ids that are not integers cannot be paged by keyset: paginate stops on them before here.
  return largest === undefined ? '0' : String(BigInt(largest) + 1n);
}

/** The id of the newest event, where deletes of the next run start; '0' when there are none or events cannot be read. */
async function latestEventId(opts: SyncOptions): Promise<string> {
  try {
    for await (const page of paginate(opts.client, 'events', {
      query: { sort: ['-id'], fields: { event: [] } },
      limit: 1,
      ...(opts.signal ? { signal: opts.signal } : {}),
    })) {
      const id = page.records[0]?.id;
      return id !== undefined ? String(BigInt(String(id)) + 1n) : '0';
    }
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 403 && err.status !== 404)) throw err;
    opts.warn(`events cannot be read (${err.status}): deletes are found by reconciling ids instead`);
  }
  return '0';
}

/**
 * Deletes the rows `<type>_destroyed` events name, from `from` (an event id) on, and moves the
 * cursor past the events read, each page in one transaction with its deletes. Counts the rows
 * deleted by table into `out` page by page (a stop keeps the count of the pages done).
 */
async function applyDeleteEvents(opts: SyncOptions, from: string, out: Map<string, number>): Promise<void> {
  const byName = new Map(opts.tables.map((t) => [`${t.rt.type}_destroyed`, t.spec]));
  const names = [...byName.keys()];
  if (names.length === 0) return;
  const at = apiDateTime(opts.now());
  let cursor = from;
  try {
    for await (const page of paginate(opts.client, 'events', {
      query: {
        sort: ['id'],
        filters: [{ path: ['name'], kind: 'list', values: names, escaped: false }],
        fields: { event: ['name', 'payload'] },
      },
      all: true,
      pageSize: opts.pageSize ?? MAX_PAGE_SIZE,
      keyset: { after: idBefore(from) },
      ...(opts.signal ? { signal: opts.signal } : {}),
    })) {
      if (page.records.length === 0) continue;
      cursor = nextCursor(page.records);
      const deleted = new Map<string, number>();
      await opts.store.tx(async () => {
        deleted.clear();
        for (const ev of page.records) {
          const spec = byName.get(String(ev.attributes?.name));
          const id = sqlId((ev.attributes?.payload as { id?: unknown } | undefined)?.id);
          if (!spec || id === null) continue;
          const n = await opts.store.deleteFromEvents(spec, [id], at);
          deleted.set(spec.table, (deleted.get(spec.table) ?? 0) + n);
        }
        await opts.store.setMeta('events_from', cursor);
      });
      // Counted once the page's transaction has committed.
      for (const [table, n] of deleted) out.set(table, (out.get(table) ?? 0) + n);
    }
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 403 && err.status !== 404)) throw err;
    opts.warn(`events cannot be read (${err.status}): deletes are found by reconciling ids instead`);
  }
  await opts.store.tx(() => opts.store.setMeta('events_from', cursor));
}
