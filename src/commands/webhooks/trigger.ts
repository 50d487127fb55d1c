/** Handler of `svc webhooks trigger <resource.action> --to URL`: a signed sample delivery. */
import { randomBytes } from 'node:crypto';
import { printDryRun } from '../shared/dry-run.js';
import type { Context } from '../../runtime/context.js';
import { NetworkError, SvcError, UsageError } from '../../errors.js';
import { parseConcreteEvent } from '../../webhooks/events.js';
import { postBody } from '../../webhooks/forward.js';
import { buildSampleDelivery } from '../../webhooks/samples.js';
import { CLEANUP_TOKEN_HEADER, SIGNATURE_HEADER, signBody } from '../../webhooks/signature.js';
import { parseHttpUrl, parsePayloadVersion } from './flags.js';
import { idValue } from '../../lossless-json.js';
import { PLAN_FORMATS, printJsonResult, refuseOutput } from '../shared/output.js';

/** Options of `trigger`. */
interface TriggerFlags {
  to: string;
  secret?: string;
  payloadVersion?: string;
  id?: string;
}

/** Posts one signed sample delivery; exit 0 when the receiver answers 2xx. */
export async function triggerHandler(ctx: Context, eventArg: string, flags: TriggerFlags): Promise<void> {
  refuseOutput(ctx, 'svc webhooks trigger', PLAN_FORMATS);
  const event = parseConcreteEvent(eventArg);
  if ('problem' in event) throw new UsageError(event.problem);
  const to = parseHttpUrl(flags.to, '--to');
  const payloadVersion = parsePayloadVersion(flags.payloadVersion ?? '1');
  const id = flags.id ?? '42';
  if (!/^\d+$/.test(id) || Number(id) <= 0) throw new UsageError(`--id: expected a positive integer, got "${id}"`);
  const secret = flags.secret ?? ctx.env.SVC_WEBHOOK_SECRET;
  ctx.addSecret(secret);
  // The digits as given: a Number would round an id past 2^53.
  const delivery = buildSampleDelivery({ ...event, payloadVersion, id: idValue(id.replace(/^0+(?=\d)/, '')), now: ctx.clock.now() });
  const body = JSON.stringify(delivery);
  const headers: Record<string, string> = {
    'content-type': 'application/vnd.api+json',
    'user-agent': 'svc-webhooks-trigger',
    // Real deliveries carry the webhook's cleanup token; a sample carries a random stand-in.
    [CLEANUP_TOKEN_HEADER]: `sample-${randomBytes(12).toString('hex')}`,
  };
  if (secret) headers[SIGNATURE_HEADER] = signBody(secret, body);
  if (ctx.globals.dryRun) {
    // The body exactly as sent: the signature is of these bytes, and an indented copy would not verify.
    return printDryRun(ctx, [{ method: 'POST', url: to, headers: { ...headers, [CLEANUP_TOKEN_HEADER]: '***' }, rawBody: body }]);
  }
  const result = await postBody(to, body, headers);
  const what = `${eventArg} (payload v${payloadVersion}, ${secret ? 'signed' : 'unsigned'})`;
  if ('error' in result) throw new NetworkError(`could not deliver ${what} to ${to}: ${result.error}`);
  await printJsonResult(ctx, { event: eventArg, url: to.toString(), status: result.status, ms: result.ms, payload: delivery });
  if (result.status >= 300) {
    // Exit 1 whatever the status (a 401 here is the receiver's verdict, not a login problem).
    throw new SvcError(`receiver at ${to} answered ${result.status} to ${what}`, 1);
  }
  ctx.info(`delivered ${what} to ${to}: ${result.status} (${result.ms} ms)`);
}
