/** Handler of `svc webhooks cleanup --cleanup-token T`. */
import type { Context } from '../../runtime/context.js';
import { printDryRun } from '../shared/dry-run.js';
import { UsageError } from '../../errors.js';
import { readAll } from '../shared/read-data.js';
import { cleanupWebhook } from './registration.js';
import { PLAN_FORMATS, printJsonResult, refuseOutput } from '../shared/output.js';

/** Options of `cleanup`. */
interface CleanupFlags {
  cleanupToken?: string;
}

async function readToken(ctx: Context, flags: CleanupFlags): Promise<string> {
  let token = flags.cleanupToken ?? ctx.env.SVC_WEBHOOK_CLEANUP_TOKEN;
  if (token === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError('--cleanup-token -: stdin is a terminal; pipe the token in');
    token = (await readAll(ctx.io.stdin)).trim();
  }
  token = token?.trim();
  if (!token) throw new UsageError('--cleanup-token is required (the cleanupToken returned when the webhook was created)');
  if (/\s/.test(token)) throw new UsageError('--cleanup-token: a token has no spaces');
  return token;
}

/** Removes a webhook with its cleanup token; says plainly whether it was removed or already gone. */
export async function cleanupHandler(ctx: Context, flags: CleanupFlags): Promise<void> {
  refuseOutput(ctx, 'svc webhooks cleanup', PLAN_FORMATS);
  const token = await readToken(ctx, flags);
  ctx.addSecret(token);
  const { baseUrl } = await ctx.connection();
  const url = new URL('webhooks/cleanup', baseUrl.replace(/\/+$/, '') + '/');
  if (ctx.globals.dryRun) {
    return printDryRun(ctx, [{ method: 'POST', url, headers: { Authorization: 'Bearer ***' } }]);
  }
  const outcome = await cleanupWebhook(ctx, token, { baseUrl, signal: ctx.signal });
  ctx.info(outcome === 'removed' ? 'webhook removed' : 'webhook already gone (404): nothing to remove');
  await printJsonResult(ctx, { removed: outcome === 'removed', alreadyGone: outcome === 'gone' });
}
