/** Handler of `svc sandbox`: start, announce, serve until SIGINT/SIGTERM, shut down cleanly. */
import type { Context } from '../../runtime/context.js';
import path from 'node:path';
import { ExitCode, SvcError, UsageError } from '../../errors.js';
import { parsePort, parseWholeNumber } from '../../runtime/option-parsers.js';
import type { SandboxFlags } from './flags.js';
import { leaveOwned, orgHolder, ownWith } from '../../local-sandbox/org-share.js';
import { announceState, clearState } from '../../local-sandbox/state-file.js';
import { printJsonResult } from '../shared/output.js';
import { ownSigterm } from '../../runtime/sigterm.js';

function num(v: string | undefined, flag: string, min = 0): number | undefined {
  return v === undefined ? undefined : parseWholeNumber(v, flag, min);
}

/** `--duplicates <percent>`: 0 to 50 (each duplicate has an original and a near-miss of its own). */
function percent(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = v.trim().replace(/%$/, '');
  if (!/^\d+(\.\d+)?$/.test(t) || Number(t) > 50) throw new UsageError(`--duplicates ${v}: expected a percentage from 0 to 50`);
  return Number(t);
}

export async function sandboxHandler(ctx: Context, flags: SandboxFlags): Promise<void> {
  const copyOnly =
    (['sample', 'filter', 'keepDomains', 'budget'] as const).find((k) => flags[k] !== undefined) ??
    (flags.anonymise === false ? 'anonymise' : undefined);
  if (copyOnly)
    throw new UsageError(
      `--${copyOnly === 'anonymise' ? 'no-anonymise' : copyOnly.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} works with --from-profile NAME`,
    );
  if (flags.maintenanceUntil !== undefined && Number.isNaN(Date.parse(flags.maintenanceUntil))) {
    throw new UsageError(`--maintenance-until: "${flags.maintenanceUntil}" is not an ISO time`);
  }
  const interval = num(flags.tokenInterval, '--token-interval');
  // Performance machinery (src/README.md, Build): loaded with import() when first used.
  const { startSandbox } = await import('../../sandbox/index.js');
  const start = () =>
    startSandbox({
      host: flags.host,
      port: flags.port === undefined ? 0 : parsePort(flags.port),
      dataFile: flags.data,
      seed: num(flags.seed, '--seed'),
      duplicates: percent(flags.duplicates),
      latencyMs: num(flags.latency, '--latency'),
      rateLimit: num(flags.rateLimit, '--rate-limit', 1),
      tokenIssueIntervalMs: interval === undefined ? undefined : interval * 1000,
      maintenanceUntil: flags.maintenanceUntil,
    });
  // An org file has one owner at a time, as with `svc --sandbox-data FILE`: this process serves
  // it to those, and refuses to start while another one does.
  const share =
    flags.data === undefined
      ? undefined
      : { env: ctx.env, orgFile: path.resolve(flags.data), trace: (l: string) => ctx.trace(l), warn: (l: string) => ctx.warn(l) };
  const owned = share ? await ownWith(share, start) : undefined;
  if (share && !owned) {
    const pid = orgHolder(ctx.env, share.orgFile);
    throw new SvcError(`${flags.data!}: another svc process${pid ? ` (pid ${pid})` : ''} serves this org file`, ExitCode.USAGE).hint(
      `use it with \`svc --sandbox-data ${flags.data!} …\`, or stop that process first`,
    );
  }
  const sb = owned?.sb ?? (await start());
  // Listening for SIGTERM before announcing: a signal sent as soon as the announcement is read
  // would otherwise kill the process (default action) without a clean shutdown.
  const stopped = new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    process.once(
      'SIGTERM',
      ownSigterm(() => resolve()),
    );
  });
  const info = { baseUrl: sb.baseUrl, authUrl: sb.authUrl, clientId: sb.clientId, clientSecret: sb.clientSecret, token: sb.token };
  // Found by `svc --sandbox` before it is announced: a script that runs `svc --sandbox …` as soon
  // as it reads the announcement must find this sandbox, not serve the data directory's org itself.
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(flags.host);
  if (loopback) announceState(ctx.env, { pid: process.pid, ...info });
  // The sandbox's own credentials are printed on purpose: they are what a newcomer needs.
  if (!(await printJsonResult(ctx, info))) {
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
  await stopped;
  if (loopback) clearState(ctx.env, process.pid);
  if (share && owned) await leaveOwned(share, owned);
  else await sb.close();
  ctx.info('sandbox stopped');
}
