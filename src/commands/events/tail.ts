/**
 * Handler of `svc events tail`: the events resource read as it grows, by polling with a keyset
 * on (createdAt, id) and an overlap window (events/follow.ts), paced within a share of the
 * hourly request budget (events/pace.ts). Without `--since` or `--since-cursor` it starts with
 * the last few events; on Ctrl-C (or at the end without `--follow`) it says on stderr the cursor
 * that `--since-cursor` continues from, exactly there.
 */
import type { ResourceObject } from '../../api/jsonapi.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { ApiClient } from '../../api/client.js';
import type { Filter } from '../../api/filter.js';
import { UsageError } from '../../errors.js';
import { compareKeys, decodeCursor, encodeCursor, type EventCursor } from '../../events/cursor.js';
import { isoTime } from '../../events/since.js';
import { toSecond } from '../../output/relative-time.js';
import { DEFAULT_OVERLAP_MS, EVENT_TIME, EventFollower, type FollowedEvent } from '../../events/follow.js';
import { parseEvery, PollPacer } from '../../events/pace.js';
import { apiTime } from '../../api-time.js';
import { paginate } from '../../api/paginate.js';
import { stdoutWidth, writeOut } from '../../output/io.js';
import { zoneText } from '../../time-zone.js';
import { flatten } from '../../listing/record-text.js';
import type { Context } from '../../runtime/context.js';
import { parseTimerSeconds, parseWholeNumber } from '../../runtime/option-parsers.js';
import { recordWriter } from '../shared/output.js';
import { machineDays } from '../resource-commands/query-options.js';
import { eventFilters, pacedClient, timeFlags, transientReadError } from './event-query.js';
import { eventView } from './tail-view.js';
import { resourceByType } from '../../registry/index.js';
import { exportColumns } from '../resource-commands/export-columns.js';
import { quoteWord } from '../../shell-words.js';
import { ownerApi, runOwner } from '../shared/org-owner.js';
import { RunLock } from '../../bulk/run/run-lock.js';
import { readCursorFile, writeCursorFile, type CursorOwner } from '../webhooks/cursor-file.js';

/** Options of `events tail`. */
interface TailFlags {
  follow?: boolean;
  name?: string[];
  prospect?: string;
  since?: string;
  sinceCursor?: string;
  cursorFile?: string;
  every?: string;
  last?: string;
  overlap?: string;
}

/** The last `n` events matching the filters, oldest first (one request). */
async function lastEvents(
  client: Parameters<typeof paginate>[0],
  filters: ReturnType<typeof eventFilters>,
  n: number,
  signal: AbortSignal,
) {
  const out: ResourceObject[] = [];
  for await (const page of paginate(client, 'events', { query: { sort: [`-${EVENT_TIME}`, '-id'], filters }, limit: n, signal }))
    out.push(...page.records);
  return out.reverse();
}

/** The flags read and checked, before anything is sent. */
interface TailOptions {
  filters: Filter[];
  start: { cursor: EventCursor } | { from: number } | undefined;
  every: ReturnType<typeof parseEvery>;
  last: number;
  overlapMs: number;
}

/** How far ahead of this machine's clock a cursor's position may be: servers' clocks are not ours. */
const CURSOR_AHEAD_MS = 3_600_000;

function readTailFlags(ctx: Context, flags: TailFlags): TailOptions {
  if (flags.since !== undefined && flags.sinceCursor !== undefined)
    throw new UsageError('--since and --since-cursor: give one (a cursor already says where to continue)');
  if (flags.cursorFile !== undefined && flags.sinceCursor !== undefined)
    throw new UsageError('--since-cursor and --cursor-file: give one (the file keeps the cursor)');
  if (flags.cursorFile !== undefined && flags.cursorFile.trim() === '') throw new UsageError('--cursor-file: give a file name');
  const filters = eventFilters(flags.name, flags.prospect, (m) => ctx.warn(m));
  let start: TailOptions['start'];
  if (flags.since !== undefined) start = { from: timeFlags(ctx)(flags.since, '--since') };
  if (flags.sinceCursor !== undefined) {
    const cursor = decodeCursor(flags.sinceCursor);
    if (!cursor)
      throw new UsageError(
        `--since-cursor: "${flags.sinceCursor.slice(0, 40)}" is not a cursor (svc events tail prints one on Ctrl-C: c2.…)`,
      );
    // A position past the machine's clock by more than servers' clocks drift (a cursor of another
    // API, or edited) showed nothing, for ever, without a word (a trial). Its floor too: the
    // first poll reads from it (a floor in the year 275760 was sent, and refused by the API).
    const at = Math.max(cursor.t, cursor.floor ?? cursor.t);
    if (at > ctx.clock.now() + CURSOR_AHEAD_MS)
      throw new UsageError(
        `--since-cursor: its position (${toSecond(isoTime(at))}) is in the future (now is ${toSecond(isoTime(ctx.clock.now()))}): a cursor of another API, or a clock far off`,
      ).hint('start again with --since (e.g. --since 1h)');
    start = { cursor };
  }
  return {
    filters,
    start,
    every: parseEvery(flags.every ?? '2%'),
    last: parseWholeNumber(flags.last ?? '10', '--last', 0, 1000),
    overlapMs: flags.overlap !== undefined ? parseTimerSeconds(flags.overlap, '--overlap', 3600) : DEFAULT_OVERLAP_MS,
  };
}

/** Writes batches of events in the output format: the one-line view for `table`, else the record writer. */
function eventPrinter(ctx: Context) {
  const human = ctx.output === 'table';
  const terminal = human && ctx.io.stdoutIsTTY;
  // People read their own clock: on a terminal the times are the machine's zone's (a trial: UTC
  // times without a zone in Sydney); a file keeps UTC, as it always did.
  const zone = terminal ? machineDays(ctx).zone() : undefined;
  const view = eventView({ relative: terminal, width: human ? stdoutWidth(ctx.io) : undefined, zone });
  // A CSV of no event is its header, as `list` writes one: a 0-byte file CSV readers refuse.
  const events = resourceByType('event');
  const emptyColumns = ctx.output === 'csv' && events ? { emptyColumns: () => exportColumns(events, undefined, true).columns } : {};
  const writer = human ? undefined : recordWriter(ctx, { format: ctx.output, io: ctx.io, ...emptyColumns });
  const p = {
    printed: 0,
    async emit(batch: { record: ResourceObject; t: number }[]): Promise<void> {
      if (batch.length === 0) return;
      p.printed += batch.length;
      if (writer) {
        const records = batch.map((e) => e.record);
        return writer.page(
          { data: records },
          records.map((r) => flatten(r)),
        );
      }
      return writeOut(
        ctx.io.stdout,
        view(batch, ctx.clock.now())
          .map((l) => l + '\n')
          .join(''),
      );
    },
    end: async () => writer?.end(),
    /** `times in Australia/Sydney (UTC+11:00)` when the view shows local times, said once on stderr. */
    zoneNote: zone ? `times in ${zoneText(zone, ctx.clock.now())}` : undefined,
  };
  return p;
}

/**
 * A tail from now: what the overlap window already holds is marked read, then the last few
 * events are shown (those of the window among them); anything newer comes from the polls.
 */
async function startFromNow(
  ctx: Context,
  client: ApiClient,
  o: TailOptions,
  pacer: PollPacer,
  emit: (batch: FollowedEvent[]) => Promise<void>,
): Promise<EventFollower> {
  const follower = new EventFollower(client, {
    filters: o.filters,
    start: { from: ctx.clock.now() - o.overlapMs },
    overlapMs: o.overlapMs,
    signal: ctx.signal,
  });
  const shown = new Map<string, FollowedEvent>();
  do for await (const batch of follower.poll(() => pacer.beforeRequest())) for (const e of batch) shown.set(e.id, e);
  while (follower.more && !ctx.signal.aborted);
  if (o.last > 0) {
    await pacer.beforeRequest();
    follower.requests++;
    for (const record of await lastEvents(client, o.filters, o.last, ctx.signal)) {
      const id = String(record.id);
      const t = apiTime(record.attributes?.[EVENT_TIME]);
      if (shown.has(id) || !Number.isFinite(t)) continue;
      shown.set(id, { record, t, id });
      follower.state.mark({ t, id });
    }
  }
  const ordered = [...shown.values()].sort((a, b) => compareKeys(a, b));
  await emit(ordered.slice(Math.max(0, ordered.length - o.last)));
  return follower;
}

/** Polls until done (no --follow) or Ctrl-C; a transient failure while following is said and polled again. */
async function pollLoop(
  ctx: Context,
  follower: EventFollower,
  pacer: PollPacer,
  emit: (batch: FollowedEvent[]) => Promise<void>,
  follow: boolean,
): Promise<void> {
  while (!ctx.signal.aborted) {
    let found = 0;
    try {
      for await (const batch of follower.poll(() => pacer.beforeRequest())) {
        await emit(batch);
        found += batch.length;
      }
    } catch (err) {
      if (ctx.signal.aborted) return;
      if (!follow || !transientReadError(err)) throw err;
      // What was handed on stays handed on; the next poll reads the window again.
      ctx.warn(`${(err as Error).message}; polling again`);
    }
    if (follower.more) continue;
    if (!follow) return;
    await ctx.clock.sleep(pacer.nextWait(found > 0), ctx.signal);
  }
}

/** Prints events as they come; returns when not following, or on Ctrl-C. */
export async function tailHandler(ctx: Context, flags: TailFlags): Promise<void> {
  const o = readTailFlags(ctx, flags);
  const pacer = new PollPacer(
    o.every,
    () => ctx.clock.now(),
    (ms) => ctx.clock.sleep(ms, ctx.signal),
  );
  const client = await pacedClient(ctx, pacer);
  const kept = flags.cursorFile !== undefined ? await keptCursor(ctx, flags.cursorFile) : undefined;
  try {
    const saved = kept?.read();
    if (saved) {
      o.start = { cursor: saved };
      ctx.info(`continuing from ${toSecond(isoTime(saved.t))} (${kept!.file})`);
    }
    const out = eventPrinter(ctx);
    const follower = o.start
      ? new EventFollower(client, { filters: o.filters, start: o.start, overlapMs: o.overlapMs, signal: ctx.signal })
      : await startFromNow(ctx, client, o, pacer, (b) => out.emit(b));
    // Saved once what it stands for is written out: a kill loses no event, and repeats at most a batch.
    const save = async () => kept?.write(follower.cursor());
    await save();
    if (flags.follow) ctx.info(`following events (${pacer.describe()}; Ctrl-C to stop)${out.zoneNote ? `, ${out.zoneNote}` : ''}`);
    try {
      await pollLoop(
        ctx,
        follower,
        pacer,
        async (b) => {
          await out.emit(b);
          if (b.length) await save();
        },
        flags.follow === true,
      );
    } finally {
      await out.end();
      await save();
      const c = follower.cursor();
      const n = `${out.printed} event${out.printed === 1 ? '' : 's'}${out.zoneNote && !flags.follow ? `, ${out.zoneNote}` : ''}`;
      const again = kept ? `--cursor-file ${quoteWord(kept.file)}` : c ? `--since-cursor ${encodeCursor(c)}` : undefined;
      ctx.info(
        again && c ? `${n}; continue with: ${svcAgain(ctx)} events tail ${again}` : `${n}; no event read yet, nothing to continue from`,
      );
      ctx.trace(`events tail: ${follower.requests} requests (${pacer.describe()})`);
    }
  } finally {
    kept?.release();
  }
}

/**
 * `--cursor-file`: the cursor kept as `webhooks listen --catch-up` keeps its own (owner-only,
 * atomic, saying whose it is), locked while a tail reads on from it: two tails of one file (a cron
 * job's runs overlapping) printed every event twice.
 */
async function keptCursor(ctx: Context, file: string) {
  const conn = await ctx.connection();
  const who = await runOwner(ctx, 'events tail');
  const owner: CursorOwner = {
    profile: conn.profileName,
    api: ownerApi(who),
    forwardTo: 'stdout of svc events tail',
  };
  const lock = new RunLock(`${file}.lock`, `--cursor-file ${file}`);
  lock.take();
  return {
    file,
    read: () => readCursorFile(file, owner, 'svc events tail'),
    write: async (c: EventCursor | undefined) => (c ? writeCursorFile(file, owner, c) : undefined),
    release: () => lock.release(),
  };
}
