/**
 * `webhooks listen --forward-to URL --catch-up`: what reaches the receiver comes from the events
 * resource, in order, each event once, whether or not its live delivery reached this listener
 * (a laptop asleep, a listener down, no tunnel at all). On start it delivers what happened since
 * its durable cursor (cursor-file.ts), then keeps polling; a live delivery only makes the next
 * poll start at once. Each event is rebuilt as the delivery of the payload version
 * (events/deliveries.ts), signed with `--secret`, its id in `Svc-Event-Id`; one the receiver
 * does not take (5xx, a timeout, down) is sent again after growing pauses, and the cursor does
 * not pass it.
 */
import type { Filter } from '../../api/filter.js';
import { UsageError } from '../../errors.js';
import { CursorState, type EventCursor } from '../../events/cursor.js';
import { rebuildDelivery, receiverDid, sendUntilTaken } from '../../events/deliveries.js';
import { DEFAULT_OVERLAP_MS, EventFollower, type FollowedEvent } from '../../events/follow.js';
import { expandNameGlobs } from '../../events/names.js';
import { parseEvery, PollPacer } from '../../events/pace.js';
import type { EventSelector } from '../../webhooks/events.js';
import type { ForwardResult } from '../../webhooks/forward.js';
import type { Context } from '../../runtime/context.js';
import { ownerApi, runOwner } from '../shared/org-owner.js';
import { pacedClient, transientReadError } from '../events/event-query.js';
import { checkSecretAgainstWebhooks } from '../events/secret-check.js';
import { defaultCursorFile, readCursorFile, writeCursorFile, type CursorOwner } from './cursor-file.js';
import { RunLock } from '../../bulk/run/run-lock.js';

/** What the catch-up relay needs from `listen`. */
interface CatchUpPlan {
  forwardTo: URL;
  secret?: string;
  payloadVersion: 1 | 2;
  selectors: EventSelector[];
  cursorFile?: string;
  every?: string;
  /** Addresses of webhooks that deliver to this listener (its own, a public one): their secret is checked. */
  hookUrls: string[];
}

/** A running relay. */
export interface CatchUp {
  /** A live delivery arrived: poll now. */
  wake(): void;
  /** Stops the relay (SIGTERM, the end of the command): no delivery starts after it. */
  stop(): void;
  /** Resolves when the relay has stopped (after `stop` or the command's signal). */
  done: Promise<void>;
}

/** Server-side name filters of `--events` selectors (none for `*.*`). */
function selectorFilters(selectors: readonly EventSelector[]): Filter[] {
  if (selectors.some((s) => s.resource === '*' && s.action === '*')) return [];
  const r = expandNameGlobs(selectors.map((s) => `${s.resource}_${s.action}`));
  if ('problem' in r) throw new UsageError(`--events: ${r.problem}`);
  return [{ path: ['name'], kind: 'list', values: r.names, escaped: false }];
}

/**
 * Checks the cursor file and the secret, and starts the relay. Usage errors (a foreign cursor
 * file, a wrong secret) come before anything is sent.
 * @param print prints one delivered event (the raw body and what the receiver answered)
 */
export async function startCatchUp(
  ctx: Context,
  p: CatchUpPlan,
  print: (raw: Buffer, r: ForwardResult) => Promise<void>,
): Promise<CatchUp> {
  const filters = selectorFilters(p.selectors);
  const halt = new AbortController();
  const halted = AbortSignal.any([ctx.signal, halt.signal]);
  const sleepFor = (ms: number) => ctx.clock.sleep(ms, halted);
  const pacer = new PollPacer(parseEvery(p.every ?? '2%'), () => ctx.clock.now(), sleepFor);
  const conn = await ctx.connection();
  const who = await runOwner(ctx, 'webhooks listen');
  const owner: CursorOwner = {
    profile: conn.profileName,
    api: ownerApi(who),
    forwardTo: p.forwardTo.toString(),
  };
  const file = p.cursorFile ?? defaultCursorFile(ctx.env, owner);
  // One listener a cursor: two (a restart while the old one still ran, two CI jobs) delivered
  // every event twice (a trial).
  const lock = new RunLock(`${file}.lock`, `--cursor-file ${file}`);
  lock.take();
  try {
    return await relayFrom(ctx, p, print, { file, owner, lock, filters, halt, halted, sleepFor, pacer });
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** {@link startCatchUp} once its cursor file is locked. */
async function relayFrom(
  ctx: Context,
  p: CatchUpPlan,
  print: (raw: Buffer, r: ForwardResult) => Promise<void>,
  o: {
    file: string;
    owner: CursorOwner;
    lock: RunLock;
    filters: Filter[];
    halt: AbortController;
    halted: AbortSignal;
    sleepFor: (ms: number) => Promise<void>;
    pacer: PollPacer;
  },
): Promise<CatchUp> {
  const { file, owner, filters, halt, halted, sleepFor, pacer } = o;
  const saved = readCursorFile(file, owner);
  const client = await pacedClient(ctx, pacer);
  await checkSecretAgainstWebhooks(client, p.hookUrls, p.secret, ctx.signal);

  const from = ctx.clock.now() - DEFAULT_OVERLAP_MS;
  const follower = new EventFollower(client, { filters, start: saved ? { cursor: saved } : { from }, signal: ctx.signal });
  /** What the receiver took: the file's content. */
  const taken = new CursorState(DEFAULT_OVERLAP_MS, saved, saved ? undefined : from);
  const save = async (c: EventCursor | undefined) => {
    if (c) await writeCursorFile(file, owner, c);
  };

  if (!saved) {
    // A first run starts now: what the window holds already happened before it.
    do for await (const batch of follower.poll(() => pacer.beforeRequest())) for (const e of batch) taken.mark(e);
    while (follower.more && !ctx.signal.aborted);
    await save(taken.cursor());
    ctx.info(`no cursor yet (${file}): delivering events from now on`);
  } else {
    ctx.info(`catching up from ${new Date(saved.t).toISOString()} (${file})`);
  }

  const stopped = () => halted.aborted;
  /** Sends one event until the receiver takes it; false when stopped first (the cursor stays before it). */
  const deliver = async (e: FollowedEvent): Promise<boolean> => {
    const d = rebuildDelivery(e.record, {
      payloadVersion: p.payloadVersion,
      now: ctx.clock.now(),
      ...(p.secret ? { secret: p.secret } : {}),
    });
    if (!('skip' in d)) {
      const { result } = await sendUntilTaken(p.forwardTo, d, {
        sleep: sleepFor,
        stopped,
        onRetry: (r, n, wait) =>
          ctx.warn(`event ${d.eventId} (${d.eventName}): ${p.forwardTo} ${receiverDid(r)} (attempt ${n}); again in ${wait} ms`),
      });
      if (!('status' in result) || result.status < 200 || result.status >= 300) return false;
      await print(Buffer.from(d.body), result);
    }
    taken.mark(e);
    taken.prune();
    await save(taken.cursor());
    return true;
  };
  // A live delivery during a poll is remembered, so the wait after it is skipped.
  let nudged = false;
  let wake = () => {
    nudged = true;
  };
  /** One poll: the events delivered, or `stopped` when the run stopped in the middle of one. */
  const pollOnce = async (): Promise<number | 'stopped'> => {
    let found = 0;
    try {
      for await (const batch of follower.poll(() => pacer.beforeRequest()))
        for (const e of batch) {
          if (!(await deliver(e))) return 'stopped';
          found++;
        }
    } catch (err) {
      if (stopped()) return 'stopped';
      if (!transientReadError(err)) throw err;
      ctx.warn(`reading events: ${(err as Error).message}; trying again`);
    }
    return found;
  };
  const relay = async () => {
    while (!stopped()) {
      nudged = false;
      const found = await pollOnce();
      if (found === 'stopped') return;
      ctx.trace(`catch-up: ${found} delivered in this poll, ${follower.requests} requests so far`);
      if (nudged || follower.more) continue;
      await new Promise<void>((resolve) => {
        wake = () => {
          nudged = true;
          resolve();
        };
        void sleepFor(pacer.nextWait(found > 0)).then(resolve);
      });
    }
  };
  const done = relay().finally(() => o.lock.release());
  return {
    wake: () => wake(),
    stop: () => {
      halt.abort();
      wake();
    },
    done,
  };
}
