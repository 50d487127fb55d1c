/** Handler of `svc sandbox`: start, announce, serve until SIGINT/SIGTERM, shut down cleanly. */
import type { Context } from '../../cli/context.js';
import { UsageError } from '../../errors.js';
import { parsePositiveInt } from '../resource/args.js';
import type { SandboxFlags } from './command.js';
import { clearState, writeState } from './state-file.js';

function num(v: string | undefined, flag: string, min = 0): number | undefined {
  return v === undefined ? undefined : parsePositiveInt(v, flag, min);
}

export async function sandboxHandler(ctx: Context, flags: SandboxFlags): Promise<void> {
  if (flags.maintenanceUntil !== undefined && Number.isNaN(Date.parse(flags.maintenanceUntil))) {
    throw new UsageError(`--maintenance-until: "${flags.maintenanceUntil}" is not an ISO time`);
  }
  const interval = num(flags.tokenInterval, '--token-interval');
  // Performance machinery (README.md, Build): loaded with import() when first used.
  const { startSandbox } = await import('../../sandbox/index.js');
  const sb = await startSandbox({
    host: flags.host,
    port: num(flags.port, '--port') ?? 0,
    dataFile: flags.data,
    seed: num(flags.seed, '--seed'),
    latencyMs: num(flags.latency, '--latency'),
    rateLimit: num(flags.rateLimit, '--rate-limit', 1),
    tokenIssueIntervalMs: interval === undefined ? undefined : interval * 1000,
    maintenanceUntil: flags.maintenanceUntil,
  });
  const info = { baseUrl: sb.baseUrl, authUrl: sb.authUrl, clientId: sb.clientId, clientSecret: sb.clientSecret, token: sb.token };
  // The sandbox's own credentials are printed on purpose: they are what a newcomer needs.
  if (ctx.output === 'json' || ctx.output === 'ndjson') ctx.io.stdout.write(JSON.stringify(info) + '\n');
  else {
    ctx.io.stdout.write(
      [
        `baseUrl       ${info.baseUrl}`,
        `authUrl       ${info.authUrl}`,
        `clientId      ${info.clientId}`,
        `clientSecret  ${info.clientSecret}`,
        `token         ${info.token}`,
        '',
        `try: curl -H "Authorization: Bearer ${info.token}" ${info.baseUrl}/prospects`,
        '',
      ].join('\n'),
    );
    ctx.info('sandbox running; Ctrl-C stops it');
  }
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(flags.host);
  if (loopback) writeState(ctx.env, { pid: process.pid, baseUrl: sb.baseUrl, authUrl: sb.authUrl, token: sb.token, clientId: sb.clientId, clientSecret: sb.clientSecret });
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    process.once('SIGTERM', () => resolve());
  });
  if (loopback) clearState(ctx.env, process.pid);
  await sb.close();
  ctx.info('sandbox stopped');
}
