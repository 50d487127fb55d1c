/**
 * Handler of `svc webhooks listen`: a local receiver (src/webhooks/listener.ts) plus printing,
 * forwarding, and — with `--register` — webhooks created for the run and removed on exit.
 */
import { randomBytes } from 'node:crypto';
import { printDryRun } from '../shared/dry-run.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { NetworkError, UsageError } from '../../errors.js';
import { writeOut } from '../../output/io.js';
import { printLine } from '../shared/output.js';
import { terminalSafe } from '../../output/terminal-text.js';
import { deliveryRecord, describeDelivery, parseDelivery, undeliverableNote } from '../../webhooks/delivery.js';
import { eventMatches, parseEventList, type EventSelector } from '../../webhooks/events.js';
import { forwardDelivery, forwardTargetProblem, type ForwardResult } from '../../webhooks/forward.js';
import { isLoopbackHost, startListener, type Listener, type ReceivedDelivery } from '../../webhooks/listener.js';
import { parseHttpUrl, parsePayloadVersion } from './flags.js';
import { checkHeldFolder, forgetHeld, heldHooksFile, leftBehind, recordHeld } from './held-hooks.js';
import { parsePort } from '../../runtime/option-parsers.js';
import { cleanupWebhook, createWebhook, type RegisteredWebhook } from './registration.js';
import type { CatchUp } from './catch-up.js';
import { ownSigterm } from '../../runtime/sigterm.js';

/** Options of `listen`. */
interface ListenFlags {
  port?: string;
  secret?: string;
  forwardTo?: string;
  register?: boolean;
  publicUrl?: string;
  events?: string;
  payloadVersion?: string;
  catchUp?: boolean;
  cursorFile?: string;
  every?: string;
}

interface Plan {
  port: number;
  secret?: string;
  forwardTo?: URL;
  selectors: EventSelector[];
  /** Print only deliveries matching --events. */
  filter: boolean;
  register?: { publicUrl?: URL; payloadVersion: 1 | 2; baseUrl: string };
  /** `--catch-up`: the receiver is fed from the events resource (catch-up.ts). */
  catchUp?: { payloadVersion: 1 | 2; cursorFile?: string; every?: string };
}

/** `--catch-up` and the flags that go with it. */
function catchUpFlags(flags: ListenFlags, forwardTo: URL | undefined): Plan['catchUp'] {
  if (!flags.catchUp) {
    if (flags.cursorFile !== undefined || flags.every !== undefined)
      throw new UsageError(`${flags.cursorFile !== undefined ? '--cursor-file' : '--every'} only makes sense with --catch-up`);
    return undefined;
  }
  if (!forwardTo) throw new UsageError('--catch-up needs --forward-to URL: it delivers what was missed to that receiver');
  return {
    payloadVersion: parsePayloadVersion(flags.payloadVersion ?? '2'),
    ...(flags.cursorFile !== undefined ? { cursorFile: flags.cursorFile } : {}),
    ...(flags.every !== undefined ? { every: flags.every } : {}),
  };
}

/** Checks every flag before anything listens or is sent. */
async function plan(ctx: Context, flags: ListenFlags): Promise<Plan> {
  const port = parsePort(flags.port ?? '9797');
  let selectors: EventSelector[] = [{ resource: '*', action: '*' }];
  if (flags.events !== undefined) {
    const r = parseEventList(flags.events);
    if ('problem' in r) throw new UsageError(`--events ${r.problem}`);
    selectors = r.selectors;
  }
  const p: Plan = { port, selectors, filter: flags.events !== undefined };
  const secret = flags.secret ?? ctx.env.SVC_WEBHOOK_SECRET;
  if (secret !== undefined) {
    if (secret === '') throw new UsageError('--secret: empty secret');
    p.secret = secret;
  }
  if (flags.forwardTo !== undefined) {
    p.forwardTo = parseHttpUrl(flags.forwardTo, '--forward-to');
    const problem = forwardTargetProblem(p.forwardTo);
    if (problem) throw new UsageError(`--forward-to ${flags.forwardTo}: ${problem}`);
  }
  if (flags.publicUrl !== undefined && !flags.register) throw new UsageError('--public-url only makes sense with --register');
  if (flags.register) {
    const payloadVersion = parsePayloadVersion(flags.payloadVersion ?? '2');
    const { baseUrl } = await ctx.connection();
    const apiIsLocal = isLoopbackHost(new URL(baseUrl).hostname);
    let publicUrl: URL | undefined;
    if (flags.publicUrl !== undefined) {
      publicUrl = parseHttpUrl(flags.publicUrl, '--public-url');
      if (publicUrl.protocol !== 'https:' && !apiIsLocal)
        throw new UsageError('--public-url must be an HTTPS URL: the service delivers only to HTTPS addresses');
    } else if (!apiIsLocal) {
      throw new UsageError(`--register against ${new URL(baseUrl).origin} needs --public-url https://…`).hint(
        'the service cannot reach 127.0.0.1: expose this port through an HTTPS tunnel and pass its address',
      );
    }
    // A generated secret keeps every registered delivery signed; it is never printed.
    p.secret ??= randomBytes(32).toString('hex');
    p.register = { payloadVersion, baseUrl, ...(publicUrl ? { publicUrl } : {}) };
  }
  const catchUp = catchUpFlags(flags, p.forwardTo);
  if (catchUp) p.catchUp = catchUp;
  if (p.secret) ctx.addSecret(p.secret);
  return p;
}

function clockTime(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

function describeForward(r: ForwardResult, url: URL): string {
  return `→ ${url}: ${forwardOutcome(r)}`;
}

/** `202 (12 ms)`, or `failed (ECONNREFUSED)`. */
function forwardOutcome(r: ForwardResult): string {
  return 'error' in r ? `failed (${r.error})` : `${r.status} (${r.ms} ms)`;
}

/** Prints one accepted delivery in the chosen format. */
async function printDelivery(
  ctx: Context,
  d: ReceivedDelivery,
  receivedAt: number,
  forwarded: ForwardResult | undefined,
  forwardTo: URL | undefined,
): Promise<void> {
  const format = ctx.globals.output;
  if (format === 'raw' && !ctx.shape?.query) return writeOut(ctx.io.stdout, d.raw.toString('utf8').replace(/\n+$/, '') + '\n');
  const summary = parseDelivery(d.raw);
  if (format === 'json' || format === 'ndjson' || format === 'raw') {
    const rec = summary ? deliveryRecord(summary) : { event: null, body: d.raw.toString('utf8') };
    const extra: Record<string, unknown> = { receivedAt: new Date(receivedAt).toISOString(), signature: d.signature };
    if (forwarded) extra.forwarded = 'error' in forwarded ? { error: forwarded.error } : { status: forwarded.status };
    // A failed forward is said on stderr too, where a script's log sees it: in the line alone it
    // went unnoticed, the event lost (without --catch-up nothing sends it again; a trial).
    if (forwarded && forwardTo && ('error' in forwarded || forwarded.status < 200 || forwarded.status >= 300))
      ctx.warn(
        `forwarding to ${forwardTo}: ${forwardOutcome(forwarded)}; not sent again (--catch-up retries until your receiver takes it)`,
      );
    // One line per delivery as it arrives; `--json a,b` and `--query` apply to each.
    return printLine(ctx, { ...rec, ...extra });
  }
  const lines = summary ? describeDelivery(summary) : [undeliverableNote(d.raw)];
  lines[0] = `${clockTime(receivedAt)}  ${lines[0]}${d.signature === 'valid' ? '  (signature ok)' : ''}`;
  if (forwarded && forwardTo) lines.push(`  ${terminalSafe(describeForward(forwarded, forwardTo))}`);
  return writeOut(ctx.io.stdout, lines.join('\n') + '\n');
}

/**
 * Resolves on Ctrl-C (the command signal) or SIGTERM. The SIGTERM listener stays until
 * `release()`: conf's exit hook re-raises the signal, and that echo must not kill the process
 * while registered webhooks are being removed.
 */
function untilStopped(ctx: Context): { stopped: Promise<'SIGINT' | 'SIGTERM'>; release(): void } {
  let onTerm = () => {};
  let onAbort = () => {};
  const stopped = new Promise<'SIGINT' | 'SIGTERM'>((resolve) => {
    onTerm = ownSigterm(() => resolve('SIGTERM'));
    onAbort = () => resolve('SIGINT');
    if (ctx.signal.aborted) resolve('SIGINT');
    process.on('SIGTERM', onTerm);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  return {
    stopped,
    release() {
      process.off('SIGTERM', onTerm);
      ctx.signal.removeEventListener('abort', onAbort);
    },
  };
}

/** Removes `hooks` with their cleanup tokens; @returns those it could not remove (each named with its delete command). */
async function removeAll(ctx: Context, hooks: RegisteredWebhook[], baseUrl: string): Promise<RegisteredWebhook[]> {
  const kept: RegisteredWebhook[] = [];
  for (const h of hooks) {
    try {
      const outcome = await cleanupWebhook(ctx, h.cleanupToken, { baseUrl, signal: AbortSignal.timeout(15_000) });
      ctx.info(outcome === 'removed' ? `removed webhook ${h.id}` : `webhook ${h.id} was already gone`);
    } catch (err) {
      kept.push(h);
      ctx.warn(
        `could not remove webhook ${h.id} (${(err as Error).message}); remove it with: ${svcAgain(ctx)} webhooks delete ${h.id} --yes`,
      );
    }
  }
  return kept;
}

/** Keeps in `file` the webhooks still registered, for the next `--register` run to remove; forgets it when none is. */
async function holdOrForget(file: string, baseUrl: string, kept: RegisteredWebhook[]): Promise<void> {
  if (kept.length) await recordHeld(file, baseUrl, kept);
  else forgetHeld(file);
}

/** Removes the webhooks of `--register` runs that ended without removing theirs (held-hooks.ts). */
async function removeLeftBehind(ctx: Context, baseUrl: string): Promise<void> {
  for (const left of leftBehind(ctx.env, baseUrl)) {
    for (const h of left.hooks) ctx.addSecret(h.cleanupToken);
    const n = left.hooks.length;
    ctx.info(
      `removing ${n} webhook${n === 1 ? '' : 's'} left registered by an earlier listener that could not remove them (pid ${left.pid})`,
    );
    await holdOrForget(left.file, baseUrl, await removeAll(ctx, left.hooks, baseUrl));
  }
}

/** `--dry-run --register`: the webhooks that would be created (secret hidden); nothing listens. */
async function printRegistrations(ctx: Context, p: Plan): Promise<void> {
  const api = await ctx.api();
  const url = p.register?.publicUrl?.toString() ?? `http://127.0.0.1:${p.port || '<port>'}/`;
  const body = (s: EventSelector) => ({
    data: {
      type: 'webhook',
      attributes: { resource: s.resource, action: s.action, url, secret: '***', payloadVersion: p.register!.payloadVersion },
    },
  });
  await printDryRun(
    ctx,
    p.selectors.map((s) => ({ method: 'POST', url: api.resolve('webhooks'), body: body(s) })),
  );
}

/** Listens until Ctrl-C or SIGTERM; registered webhooks are removed on the way out. */
export async function listenHandler(ctx: Context, flags: ListenFlags): Promise<void> {
  const p = await plan(ctx, flags);
  if (ctx.globals.dryRun && p.register) return printRegistrations(ctx, p);
  // Deliveries are printed one after another, in arrival order, even while forwards are slow.
  let queue: Promise<void> = Promise.resolve();
  let listener: Listener;
  let catchUp: CatchUp | undefined;
  try {
    listener = await startListener({
      port: p.port,
      ...(p.secret !== undefined ? { secret: p.secret } : {}),
      onDelivery: (d) => {
        const receivedAt = ctx.clock.now();
        if (d.foreign) {
          const from =
            d.foreign.origin !== undefined
              ? `from a web page (Origin ${d.foreign.origin})`
              : `addressed to Host ${d.foreign.host || '(none)'}`;
          ctx.warn(
            `refused a request to ${d.path} ${from}: without --secret only requests to 127.0.0.1 or localhost are taken (answered 403)`,
          );
          return;
        }
        if (d.status !== 200) {
          ctx.warn(`refused a delivery to ${d.path}: ${d.signature === 'missing' ? 'no' : 'bad'} Service-Webhook-Signature (answered 401)`);
          return;
        }
        const event = parseDelivery(d.raw)?.eventName ?? '';
        if (p.filter && !eventMatches(p.selectors, event)) {
          ctx.trace(`ignored ${event || 'a delivery'} (not in --events)`);
          return;
        }
        if (p.catchUp) {
          // The relay forwards this event from the events resource, in order and once.
          ctx.trace(`live ${event || 'delivery'}: polling events now`);
          catchUp?.wake();
          return;
        }
        const forwarding = p.forwardTo ? forwardDelivery(p.forwardTo, d.raw, d.headers) : Promise.resolve(undefined);
        queue = queue
          .then(async () => printDelivery(ctx, d, receivedAt, await forwarding, p.forwardTo))
          .catch((err: Error) => ctx.warn(err.message));
      },
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new NetworkError(`port ${p.port} on 127.0.0.1 is in use`, code).hint('pass --port N, or --port 0 for any free port');
    throw err;
  }
  const registered: RegisteredWebhook[] = [];
  let heldFile: string | undefined;
  const stop = untilStopped(ctx);
  try {
    if (p.register) {
      const url = p.register.publicUrl?.toString() ?? listener.url;
      const api = await ctx.api();
      checkHeldFolder(ctx.env);
      await removeLeftBehind(ctx, p.register.baseUrl);
      heldFile = heldHooksFile(ctx.env);
      for (const s of p.selectors) {
        const hook = await createWebhook(api, { ...s, url, secret: p.secret!, payloadVersion: p.register.payloadVersion });
        ctx.addSecret(hook.cleanupToken);
        registered.push(hook);
        await recordHeld(heldFile, p.register.baseUrl, registered);
        ctx.info(`registered webhook ${hook.id} for ${s.resource}.${s.action} → ${url} (payload v${p.register.payloadVersion}, signed)`);
      }
    }
    if (p.catchUp && p.forwardTo) {
      const forwardTo = p.forwardTo;
      const { startCatchUp } = await import('./catch-up.js');
      const hookUrls = [listener.url, ...(p.register?.publicUrl ? [p.register.publicUrl.toString()] : [])];
      catchUp = await startCatchUp(
        ctx,
        { ...p.catchUp, forwardTo, selectors: p.selectors, hookUrls, ...(p.secret !== undefined ? { secret: p.secret } : {}) },
        (raw, r) => {
          const d: ReceivedDelivery = { raw, headers: {}, path: forwardTo.pathname, signature: 'unchecked', status: 200 };
          queue = queue.then(() => printDelivery(ctx, d, ctx.clock.now(), r, forwardTo)).catch((err: Error) => ctx.warn(err.message));
          return queue;
        },
      );
    }
    if (!p.secret)
      ctx.warn(
        'no --secret: signatures are not checked, and only requests addressed to 127.0.0.1 or localhost are taken (a tunnel needs --secret)',
      );
    const forward = p.forwardTo ? `, forwarding to ${p.forwardTo}` : '';
    ctx.info(`Ready: listening on ${listener.url}${forward} (Ctrl-C to stop)`);
    const how = await Promise.race([stop.stopped, ...(catchUp ? [catchUp.done.then(() => 'relay' as const)] : [])]);
    ctx.trace(`stopping (${how})`);
  } finally {
    catchUp?.stop();
    await catchUp?.done.catch(() => {});
    await listener.close();
    await queue;
    const kept = p.register && registered.length ? await removeAll(ctx, registered, p.register.baseUrl) : [];
    // A service out of reach now: the next --register run against it tries again.
    if (heldFile) await holdOrForget(heldFile, p.register!.baseUrl, kept);
    stop.release();
  }
}
