/**
 * Handler of `svc events replay --since T [--until T] --to URL`: the events of a window,
 * rebuilt as the webhook deliveries of a payload version (events/deliveries.ts), signed, sent
 * in order at no more than `--rate` a second, each until the receiver takes it (a few
 * attempts with growing pauses). `--plan` counts them and sends nothing.
 */
import { InterruptedError, SvcError, UsageError } from '../../errors.js';
import { rebuildDelivery, sendUntilTaken, describeResult, receiverDid } from '../../events/deliveries.js';
import { EventFollower, type FollowedEvent } from '../../events/follow.js';
import { isoTime } from '../../events/since.js';
import { forwardTargetProblem } from '../../webhooks/forward.js';
import type { Context } from '../../runtime/context.js';
import { parseWholeNumber } from '../../runtime/option-parsers.js';
import { PLAN_FORMATS, printJsonResult, refuseOutput } from '../shared/output.js';
import { parseHttpUrl, parsePayloadVersion } from '../webhooks/flags.js';
import { eventFilters, pacedClient, timeFlags } from './event-query.js';
import { checkSecretAgainstWebhooks } from './secret-check.js';

/** Options of `events replay`. */
interface ReplayFlags {
  since: string;
  until?: string;
  to: string;
  secret?: string;
  payloadVersion?: string;
  name?: string[];
  prospect?: string;
  rate?: string;
  plan?: boolean;
}

/** Attempts per delivery before the replay stops. */
const MAX_ATTEMPTS = 6;

/** The flags read and checked, before anything is sent. */
function readReplayFlags(ctx: Context, flags: ReplayFlags) {
  const time = timeFlags(ctx);
  const since = time(flags.since, '--since');
  const until = flags.until !== undefined ? time(flags.until, '--until', true) : ctx.clock.now();
  if (until < since) throw new UsageError(`--until ${flags.until} is before --since ${flags.since}`);
  const to = parseHttpUrl(flags.to, '--to');
  const problem = forwardTargetProblem(to);
  if (problem) throw new UsageError(`--to ${flags.to}: ${problem}`);
  const secret = flags.secret ?? ctx.env.SVC_WEBHOOK_SECRET;
  if (secret === '') throw new UsageError('--secret: empty secret');
  ctx.addSecret(secret);
  return {
    since,
    until,
    to,
    secret,
    payloadVersion: parsePayloadVersion(flags.payloadVersion ?? '2'),
    rate: parseWholeNumber(flags.rate ?? '10', '--rate', 1, 1000),
    filters: eventFilters(flags.name, flags.prospect, (m) => ctx.warn(m)),
  };
}

/** `--plan`: how many events the window holds, and how long sending them takes at the rate. */
async function printPlan(
  ctx: Context,
  follower: EventFollower,
  window: { since: string; until: string },
  to: URL,
  rate: number,
): Promise<void> {
  let events = 0;
  do for await (const batch of follower.poll()) events += batch.length;
  while (follower.more && !ctx.signal.aborted);
  const plan = { ...window, events, to: to.toString(), rate, seconds: Math.ceil(events / rate) };
  if (!(await printJsonResult(ctx, plan)))
    ctx.info(
      `would replay ${events} event${events === 1 ? '' : 's'} from ${window.since} to ${window.until} to ${to} (about ${plan.seconds} s at ${rate}/s); nothing sent`,
    );
}

/** Replays the window; exit 1 when a delivery is not taken after its attempts. */
export async function replayHandler(ctx: Context, flags: ReplayFlags): Promise<void> {
  refuseOutput(ctx, 'svc events replay', PLAN_FORMATS);
  const o = readReplayFlags(ctx, flags);
  const client = await pacedClient(ctx, undefined);
  const window = { since: isoTime(o.since), until: isoTime(o.until) };
  const follower = new EventFollower(client, { filters: o.filters, start: { from: o.since }, until: o.until, signal: ctx.signal });

  if (flags.plan || ctx.globals.dryRun) return printPlan(ctx, follower, window, o.to, o.rate);

  await checkSecretAgainstWebhooks(client, [o.to.toString()], o.secret, ctx.signal);
  if (!o.secret) ctx.warn('no --secret: deliveries are not signed');
  const counts = { delivered: 0, skipped: 0 };
  /** Where the rest of the window starts: the first event not yet taken (a receiver may see one again). */
  let resumeAt = o.since;
  const resumeHint = () =>
    `resume with --since ${isoTime(resumeAt)}${flags.until ? ` --until ${window.until}` : ''} (the receiver may see a few again: Svc-Event-Id tells)`;
  const started = ctx.clock.now();
  const sleep = (ms: number) => ctx.clock.sleep(ms, ctx.signal);
  /** Sends one event (throttled); throws when the receiver does not take it. */
  const send = async (e: FollowedEvent) => {
    resumeAt = e.t;
    const d = rebuildDelivery(e.record, {
      payloadVersion: o.payloadVersion,
      now: ctx.clock.now(),
      ...(o.secret ? { secret: o.secret } : {}),
    });
    if ('skip' in d) {
      counts.skipped++;
      return ctx.trace(`skipped ${d.skip}`);
    }
    // Throttle: the n-th delivery leaves no earlier than n / rate seconds after the first.
    await sleep(started + (counts.delivered * 1000) / o.rate - ctx.clock.now());
    if (ctx.signal.aborted) return;
    const { result, attempts } = await sendUntilTaken(o.to, d, {
      sleep,
      stopped: () => ctx.signal.aborted,
      maxAttempts: MAX_ATTEMPTS,
      onRetry: (r, n, wait) => ctx.warn(`event ${d.eventId}: the receiver ${receiverDid(r)} (attempt ${n}); again in ${wait} ms`),
    });
    if ('status' in result && result.status >= 200 && result.status < 300) {
      counts.delivered++;
      return;
    }
    if (ctx.signal.aborted) return;
    throw new SvcError(
      `event ${d.eventId} (${d.eventName}) not taken by ${o.to} after ${attempts} attempts (${describeResult(result)}); ${counts.delivered} delivered before it`,
      1,
    ).hint(resumeHint());
  };
  do
    for await (const batch of follower.poll()) {
      for (const e of batch) if (!ctx.signal.aborted) await send(e);
      if (ctx.signal.aborted) break;
    }
  while (follower.more && !ctx.signal.aborted);
  const summary = { ...window, ...counts, to: o.to.toString(), interrupted: ctx.signal.aborted };
  const printed = await printJsonResult(ctx, summary);
  // Ctrl-C is not a finished replay: exit 130, as the README's table says, so a script does not go on as if it were.
  if (ctx.signal.aborted) throw new InterruptedError(`interrupted: ${counts.delivered} delivered`).hint(resumeHint());
  if (!printed)
    ctx.info(
      `replayed ${counts.delivered} event${counts.delivered === 1 ? '' : 's'} to ${o.to}${counts.skipped ? ` (${counts.skipped} without a record skipped)` : ''}`,
    );
}
