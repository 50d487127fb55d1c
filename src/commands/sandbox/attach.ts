/**
 * `--sandbox`: find the user's running sandbox, or start one in this process whose org persists
 * in the data directory. Only this module and the `sandbox` command import the sandbox.
 */
import type { Context } from '../../cli/context.js';
import { defaultOrgFile, readState } from './state-file.js';

/** The sandbox a command talks to. */
export interface AttachedSandbox {
  baseUrl: string;
  authUrl: string;
  token: string;
}

async function answers(baseUrl: string, token: string): Promise<boolean> {
  try {
    const res = await fetch(baseUrl, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(1500) });
    await res.arrayBuffer();
    return res.status < 500;
  } catch {
    return false;
  }
}

/** Reuses a running sandbox or starts one in-process (closed when the command ends). */
export async function attachSandbox(ctx: Context): Promise<AttachedSandbox> {
  const running = readState(ctx.env);
  if (running && (await answers(running.baseUrl, running.token))) {
    ctx.trace(`using the sandbox at ${running.baseUrl} (pid ${running.pid})`);
    return running;
  }
  // Performance machinery (README.md, Build): loaded with import() when first used.
  const { startSandbox } = await import('../../sandbox/index.js');
  const sb = await startSandbox({ port: 0, dataFile: defaultOrgFile(ctx.env) });
  ctx.onClose(() => sb.close());
  ctx.trace(`started an in-process sandbox at ${sb.baseUrl}`);
  return { baseUrl: sb.baseUrl, authUrl: sb.authUrl, token: sb.token };
}
