/**
 * Handler of `svc events replay --since T [--until T] --to URL`: the events of a window,
 * rebuilt as the webhook deliveries of a payload version (events/deliveries.ts), signed, sent
 * in order at no more than `--rate` a second, each until the receiver takes it (a few
 * attempts with growing pauses). `--plan` counts them and sends nothing.
 */
import { SvcError, UsageError } from '../../errors.js';
import { rebuildDelivery, sendUntilTaken, describeResult } from '../../events/deliveries.js';
import { EventFollower } from '../../events/follow.js';
import { isoTime } from '../../events/since.js';
import { forwardTargetProblem } from '../../webhooks/forward.js';
import type { Context } from '../../runtime/context.js';
import { parseWholeNumber } from '../../runtime/option-parsers.js';
import { printJsonResult } from '../shared/output.js';
import { parseHttpUrl, parsePayloadVersion } from '../webhooks/flags.js';
import { eventFilters, pacedClient, timeFlag } from './event-query.js';
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

/** Replays the window; exit 1 when a delivery is not taken after its attempts. */
export async function replayHandler(ctx: Context, flags: ReplayFlags): Promise<void> {
  const since = timeFlag(ctx, flags.since, '--since');
  const until = flags.until !== undefined ? timeFlag(ctx, flags.until, '--until') : ctx.clock.now();
  if (until < since) throw new UsageError(`--until ${flags.until} is before --since ${flags.since}`);
  const to = parseHttpUrl(flags.to, '--to');
  const problem = forwardTargetProblem(to);
  if (problem) throw new UsageError(`--to ${flags.to}: ${problem}`);
  const secret = flags.secret ?? ctx.env.SVC_WEBHOOK_SECRET;
  if (secret === '') throw new UsageError('--secret: empty secret');
  ctx.addSecret(secret);
  const payloadVersion = parsePayloadVersion(flags.payloadVersion ?? '2');
  const rate = parseWholeNumber(flags.rate ?? '10', '--rate', 1, 1000);
  const filters = eventFilters(flags.name, flags.prospect);
  const client = await pacedClient(ctx, undefined);
  const window = { since: isoTime(since), until: isoTime(until) };
  const follower = () => new EventFollower(client, { filters, start: { from: since }, until, signal: ctx.signal });

  if (flags.plan || ctx.globals.dryRun) {
    let events = 0;
    for await (const batch of follower().poll()) events += batch.length;
    const plan = { ...window, events, to: to.toString(), rate, seconds: Math.ceil(events / rate) };
    if (!(await printJsonResult(ctx, plan)))
      ctx.info(
        `would replay ${events} event${events === 1 ? '' : 's'} from ${window.since} to ${window.until} to ${to} (about ${plan.seconds} s at ${rate}/s); nothing sent`,
      );
    return;
  }

  await checkSecretAgainstWebhooks(client, [to.toString()], secret, ctx.signal);
  if (!secret) ctx.warn('no --secret: deliveries are not signed');
  let delivered = 0;
  let skipped = 0;
  const started = ctx.clock.now();
  const sleep = (ms: number) => ctx.clock.sleep(ms, ctx.signal);
  for await (const batch of follower().poll()) {
    for (const e of batch) {
      if (ctx.signal.aborted) break;
      const d = rebuildDelivery(e.record, { payloadVersion, now: ctx.clock.now(), ...(secret ? { secret } : {}) });
      if ('skip' in d) {
        skipped++;
        ctx.trace(`skipped ${d.skip}`);
        continue;
      }
      // Throttle: the n-th delivery leaves no earlier than n / rate seconds after the first.
      const due = started + (delivered * 1000) / rate - ctx.clock.now();
      if (due > 0) await sleep(due);
      if (ctx.signal.aborted) break;
      const { result, attempts } = await sendUntilTaken(to, d, {
        sleep,
        stopped: () => ctx.signal.aborted,
        maxAttempts: MAX_ATTEMPTS,
        onRetry: (r, n, wait) => ctx.warn(`event ${d.eventId}: receiver answered ${describeResult(r)} (attempt ${n}); again in ${wait} ms`),
      });
      if (!('status' in result) || result.status < 200 || result.status >= 300) {
        if (ctx.signal.aborted) break;
        throw new SvcError(
          `event ${d.eventId} (${d.eventName}) not taken by ${to} after ${attempts} attempts (${describeResult(result)}); ${delivered} delivered before it`,
          1,
        ).hint(
          `resume with --since ${isoTime(e.t)}${flags.until ? ` --until ${window.until}` : ''} (the receiver may see a few again: Svc-Event-Id tells)`,
        );
      }
      delivered++;
    }
    if (ctx.signal.aborted) break;
  }
  const summary = { ...window, delivered, skipped, to: to.toString(), interrupted: ctx.signal.aborted };
  if (!(await printJsonResult(ctx, summary)))
    ctx.info(`replayed ${delivered} event${delivered === 1 ? '' : 's'} to ${to}${skipped ? ` (${skipped} without a record skipped)` : ''}`);
}
