/**
 * `--sandbox`: find the user's running sandbox, or serve the zero-set-up one whose org persists
 * in the data directory — one process at a time (org-share.ts). Only this module and the
 * `sandbox` command import the sandbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { getOnce, isResponseTimeout, ResponseTooLarge } from '../api/bounded-response.js';
import type { Context } from '../runtime/context.js';
import { ExitCode, InterruptedError, SvcError, UsageError } from '../errors.js';
import { ClientMark, clientShare, orgHolder, ownerShare, tryOwn } from './org-share.js';
import { defaultOrgFile, orgLockFile, ownerStateFile, readState, type SandboxState } from './state-file.js';

/** The sandbox a command talks to. */
interface AttachedSandbox {
  baseUrl: string;
  authUrl: string;
  token: string;
}

/** The root document of a sandbox is a few hundred bytes; a larger answer is still an answer. */
const PROBE_MAX_BYTES = 1024 * 1024;

/** How long a process waits for the org's owner to hand it over (it lets its users finish first). */
const WAIT_MS = 20_000;
/** A sandbox that answers within this is used at once; a slower one is waited for, with a line saying so. */
const QUICK_MS = 1_500;
/** How long a live sandbox that is slow to answer (`svc sandbox --latency`, a loaded machine) is waited for. */
const SLOW_MS = 60_000;

/**
 * Whether the server a state file announces answers: `slow` when it accepts the connection but
 * has not answered in `ms` (alive: waited for, never replaced by another org), `no` when
 * nothing listens there (a state file left by a process that is gone).
 */
async function answers(baseUrl: string, token: string, ms: number, signal: AbortSignal): Promise<'yes' | 'slow' | 'no'> {
  try {
    await getOnce(
      new URL(baseUrl),
      { authorization: `Bearer ${token}` },
      { timeoutMs: ms, maxBytes: PROBE_MAX_BYTES, signal, what: `GET ${baseUrl}` },
    );
    // Any answer is a live sandbox's: one in maintenance (`--maintenance-until`) answers 503, and
    // was replaced by the data directory's org without a word; the command meets the 503 itself.
    return 'yes';
  } catch (err) {
    if (signal.aborted) throw new InterruptedError();
    if (err instanceof ResponseTooLarge) return 'yes';
    return isResponseTimeout(err) ? 'slow' : 'no';
  }
}

/**
 * True when the sandbox `s` answers; a live one that is slow is waited for, said on stderr.
 *
 * Slow is measured on the clock, not by which of the probe's timer and the answer the event loop
 * runs first: a process that gets the CPU back after QUICK_MS (a loaded machine, a busy test
 * process) can find both due and read the answer first (shown with a timer callback that keeps
 * the loop busy across the moment). That answer was taken for a quick one, and a 1.5 s sandbox
 * was waited for without the line (sandbox-slow-owner in CI; sandbox-slow-probe.test.ts).
 */
export async function usable(ctx: Pick<Context, 'info' | 'signal'>, s: SandboxState): Promise<boolean> {
  const started = Date.now();
  const first = await answers(s.baseUrl, s.token, QUICK_MS, ctx.signal);
  const slow = `the sandbox at ${s.baseUrl} (pid ${s.pid}) is slow to answer; waiting for it`;
  if (first === 'yes' && Date.now() - started >= QUICK_MS) {
    // Answered, late: it was waited for; nothing more to wait for.
    ctx.info(slow);
    return true;
  }
  if (first !== 'slow') return first === 'yes';
  ctx.info(slow);
  const second = await answers(s.baseUrl, s.token, SLOW_MS, ctx.signal);
  if (second === 'slow')
    throw new SvcError(`the sandbox at ${s.baseUrl} (pid ${s.pid}) has not answered for ${SLOW_MS / 1000} s`, ExitCode.API).hint(
      `it is still running: wait for it to answer, or stop it (kill ${s.pid}) and retry`,
    );
  return second === 'yes';
}

/**
 * Uses a running sandbox (a `svc sandbox`, or another `svc --sandbox` process serving the
 * default org), or serves the default org in this process until the command ends; while another
 * process is handing the org over, waits for it. With `--sandbox-data FILE` the same holds for
 * that org file: one process serves it at a time, the others use its server.
 */
export async function attachSandbox(ctx: Context): Promise<AttachedSandbox> {
  const copy = ctx.globals.sandboxData;
  const orgFile = copy === undefined ? defaultOrgFile(ctx.env) : path.resolve(copy);
  // A named org file is a copy made on purpose (`svc sandbox --from-profile`): starting a demo
  // org in its place would rehearse against the wrong org without saying so.
  if (copy !== undefined && !fs.existsSync(orgFile)) {
    throw new UsageError(`--sandbox-data ${copy}: no such org file`).hint(
      'make one with `svc sandbox --from-profile NAME --data FILE`, or check SVC_SANDBOX_DATA',
    );
  }
  const e = { env: ctx.env, orgFile, trace: (l: string) => ctx.trace(l), warn: (l: string) => ctx.warn(l) };
  // Announced before looking, so that an owner about to exit waits for this process.
  const mark = new ClientMark(ctx.env);
  const deadline = Date.now() + WAIT_MS;
  let told = false;
  try {
    for (;;) {
      mark.set('attaching');
      // A running `svc sandbox` serves its own org, not the copy named by --sandbox-data.
      const running = copy === undefined ? readState(ctx.env) : undefined;
      if (running && (await usable(ctx, running))) {
        ctx.trace(`using the sandbox at ${running.baseUrl} (pid ${running.pid})`);
        // A `svc sandbox` someone started serves an org of its own: the default org's records
        // seemed gone and writes went elsewhere without a word (a trial). Said on a terminal when
        // there is a default org it stands in front of; scripts and CI logs keep their lines.
        if (ctx.io.stderrIsTTY && fs.existsSync(orgFile))
          ctx.info(
            `--sandbox: using the svc sandbox running at ${running.baseUrl} (pid ${running.pid}), which serves its own org; stop it to use the org in ${orgFile}`,
          );
        mark.remove();
        return running;
      }
      const owner = readState(ctx.env, ownerStateFile(ctx.env, orgFile));
      if (owner && (await usable(ctx, owner))) {
        ctx.trace(`using the sandbox at ${owner.baseUrl} (pid ${owner.pid})`);
        const share = clientShare(e, owner, mark);
        ctx.onClose(() => share.leave());
        return share.state;
      }
      mark.set('waiting');
      const owned = await tryOwn(e, 0);
      if (owned) {
        const share = ownerShare(e, owned, mark);
        ctx.onClose(() => share.leave());
        ctx.trace(`serving the sandbox org ${e.orgFile} at ${owned.state.baseUrl}`);
        return share.state;
      }
      const holder = orgHolder(ctx.env, orgFile);
      if (!told) {
        told = true;
        ctx.info(`${orgFile} is being handed over by another svc process${holder ? ` (pid ${holder})` : ''}; waiting for it`);
      }
      if (Date.now() > deadline) {
        // A live holder's lock is never to be deleted: it would let two processes write one org.
        if (holder)
          throw new SvcError(
            `${orgFile}: served by svc process ${holder}, which has not handed it over in ${WAIT_MS / 1000} s`,
            ExitCode.API,
          ).hint(`it is still running: wait for it to finish, or stop it (kill ${holder}) and retry`);
        throw new SvcError(`${orgFile}: locked, but by no running process`, ExitCode.API).hint(
          `no svc process holds ${orgLockFile(ctx.env, orgFile)}: delete it and retry`,
        );
      }
      await ctx.clock.sleep(100, ctx.signal);
      if (ctx.signal.aborted) throw new InterruptedError();
    }
  } catch (err) {
    mark.remove();
    throw err;
  }
}
