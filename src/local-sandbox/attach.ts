/**
 * `--sandbox`: find the user's running sandbox, or serve the zero-set-up one whose org persists
 * in the data directory — one process at a time (org-share.ts). Only this module and the
 * `sandbox` command import the sandbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Context } from '../runtime/context.js';
import { ExitCode, InterruptedError, SvcError, UsageError } from '../errors.js';
import { ClientMark, clientShare, ownerShare, tryOwn } from './org-share.js';
import { defaultOrgFile, orgLockFile, ownerStateFile, readState } from './state-file.js';

/** The sandbox a command talks to. */
interface AttachedSandbox {
  baseUrl: string;
  authUrl: string;
  token: string;
}

/** How long a process waits for the org's owner to hand it over (it lets its users finish first). */
const WAIT_MS = 20_000;

async function answers(baseUrl: string, token: string): Promise<boolean> {
  try {
    const res = await fetch(baseUrl, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(1500) });
    await res.arrayBuffer();
    return res.status < 500;
  } catch {
    return false;
  }
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
      if (running && (await answers(running.baseUrl, running.token))) {
        ctx.trace(`using the sandbox at ${running.baseUrl} (pid ${running.pid})`);
        mark.remove();
        return running;
      }
      const owner = readState(ctx.env, ownerStateFile(ctx.env, orgFile));
      if (owner && (await answers(owner.baseUrl, owner.token))) {
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
      if (!told) {
        told = true;
        ctx.trace('another svc process is handing the sandbox org over; waiting');
      }
      if (Date.now() > deadline) {
        throw new SvcError(`the sandbox org is held by another svc process that does not answer`, ExitCode.API).hint(
          `if no other \`svc --sandbox\` process is running, delete ${orgLockFile(ctx.env, orgFile)} and retry`,
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
