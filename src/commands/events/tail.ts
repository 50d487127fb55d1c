/**
 * Handler of `svc events tail`: the events resource read as it grows, by polling with a keyset
 * on (updatedAt, id) and an overlap window (events/follow.ts), paced within a share of the
 * hourly request budget (events/pace.ts). Without `--since` or `--since-cursor` it starts with
 * the last few events; on Ctrl-C (or at the end without `--follow`) it says on stderr the cursor
 * that `--since-cursor` continues from, exactly there.
 */
import type { ResourceObject } from '../../api/jsonapi.js';
import { ApiError, NetworkError, UsageError } from '../../errors.js';
import { decodeCursor, encodeCursor } from '../../events/cursor.js';
import { DEFAULT_OVERLAP_MS, EventFollower, type FollowedEvent } from '../../events/follow.js';
import { parseEvery, PollPacer } from '../../events/pace.js';
import { apiTime } from '../../events/since.js';
import { paginate } from '../../api/paginate.js';
import { writeOut } from '../../output/io.js';
import { flatten } from '../../listing/record-text.js';
import type { Context } from '../../runtime/context.js';
import { parseTimerSeconds, parseWholeNumber } from '../../runtime/option-parsers.js';
import { recordWriter } from '../shared/output.js';
import { eventFilters, pacedClient, timeFlag } from './event-query.js';
import { eventLine } from './tail-view.js';

/** Options of `events tail`. */
interface TailFlags {
  follow?: boolean;
  name?: string[];
  prospect?: string;
  since?: string;
  sinceCursor?: string;
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
  for await (const page of paginate(client, 'events', { query: { sort: ['-updatedAt', '-id'], filters }, limit: n, signal }))
    out.push(...page.records);
  return out.reverse();
}

/** Prints events as they come; returns when not following, or on Ctrl-C. */
export async function tailHandler(ctx: Context, flags: TailFlags): Promise<void> {
  if (flags.since !== undefined && flags.sinceCursor !== undefined)
    throw new UsageError('--since and --since-cursor: give one (a cursor already says where to continue)');
  const filters = eventFilters(flags.name, flags.prospect);
  const since = flags.since !== undefined ? timeFlag(ctx, flags.since, '--since') : undefined;
  const cursor = flags.sinceCursor !== undefined ? decodeCursor(flags.sinceCursor) : undefined;
  if (flags.sinceCursor !== undefined && !cursor)
    throw new UsageError(
      `--since-cursor: "${flags.sinceCursor.slice(0, 40)}" is not a cursor (svc events tail prints one on Ctrl-C: c1.…)`,
    );
  const every = parseEvery(flags.every ?? '2%');
  const last = parseWholeNumber(flags.last ?? '10', '--last', 0, 1000);
  const overlapMs = flags.overlap !== undefined ? parseTimerSeconds(flags.overlap, '--overlap', 3600) : DEFAULT_OVERLAP_MS;
  const sleep = (ms: number) => ctx.clock.sleep(ms, ctx.signal);
  const pacer = new PollPacer(every, () => ctx.clock.now(), sleep);
  const client = await pacedClient(ctx, pacer);

  const human = ctx.output === 'table';
  const relative = human && ctx.io.stdoutIsTTY;
  const writer = human ? undefined : recordWriter(ctx, { format: ctx.output, io: ctx.io });
  let printed = 0;
  const emit = async (batch: { record: ResourceObject; t: number }[]) => {
    if (batch.length === 0) return;
    printed += batch.length;
    if (writer) {
      const records = batch.map((e) => e.record);
      return writer.page(
        { data: records },
        records.map((r) => flatten(r)),
      );
    }
    const now = ctx.clock.now();
    return writeOut(ctx.io.stdout, batch.map((e) => eventLine(e.record, e.t, { now, relative }) + '\n').join(''));
  };

  let follower: EventFollower;
  if (cursor) follower = new EventFollower(client, { filters, start: { cursor }, overlapMs, signal: ctx.signal });
  else if (since !== undefined) follower = new EventFollower(client, { filters, start: { from: since }, overlapMs, signal: ctx.signal });
  else {
    // From now: what the window already holds is marked read (silently), then the last few
    // are shown; anything newer comes from the polls.
    follower = new EventFollower(client, { filters, start: { from: ctx.clock.now() - overlapMs }, overlapMs, signal: ctx.signal });
    const inWindow: FollowedEvent[] = [];
    for await (const batch of follower.poll(() => pacer.beforeRequest())) inWindow.push(...batch);
    const shown = new Map(inWindow.map((e) => [e.id, e]));
    if (last > 0) {
      await pacer.beforeRequest();
      follower.requests++;
      for (const record of await lastEvents(client, filters, last, ctx.signal)) {
        const id = String(record.id);
        const t = apiTime(record.attributes?.['updatedAt'] ?? record.attributes?.['createdAt']);
        if (!shown.has(id) && Number.isFinite(t)) {
          shown.set(id, { record, t, id });
          follower.state.mark({ t, id });
        }
      }
    }
    const ordered = [...shown.values()].sort((a, b) => a.t - b.t || (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    await emit(ordered.slice(Math.max(0, ordered.length - last)));
  }

  if (flags.follow) ctx.info(`following events (${pacer.describe()}; Ctrl-C to stop)`);
  try {
    for (;;) {
      let found = 0;
      try {
        for await (const batch of follower.poll(() => pacer.beforeRequest())) {
          await emit(batch);
          found += batch.length;
        }
      } catch (err) {
        if (ctx.signal.aborted) break;
        const transient = err instanceof NetworkError || (err instanceof ApiError && (err.status >= 500 || err.status === 429));
        if (!flags.follow || !transient) throw err;
        // What was handed on stays handed on; the next poll reads the window again.
        ctx.warn(`${(err as Error).message}; polling again`);
      }
      if (!flags.follow || ctx.signal.aborted) break;
      await sleep(pacer.nextWait(found > 0));
      if (ctx.signal.aborted) break;
    }
  } finally {
    await writer?.end();
    const c = follower.cursor();
    ctx.info(
      c
        ? `${printed} event${printed === 1 ? '' : 's'}; continue with: svc events tail --since-cursor ${encodeCursor(c)}`
        : `${printed} events; no event read yet, nothing to continue from`,
    );
    ctx.trace(`events tail: ${follower.requests} requests (${pacer.describe()})`);
  }
}
