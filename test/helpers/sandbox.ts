/**
 * Starts an in-process sandbox for a test file and gives the env that points `bin/svc` at it.
 */
import { startSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { tempDir } from './run-svc.js';

export type TestSandbox = Awaited<ReturnType<typeof startSandbox>>;

/** A sandbox on a random port plus an env for `runSvc` with its token and a fresh config dir. */
export async function sandboxWithEnv(opts: SandboxOptions = {}): Promise<{ sb: TestSandbox; env: () => Record<string, string> }> {
  const sb = await startSandbox({ port: 0, ...opts });
  return {
    sb,
    env: () => ({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: sb.baseUrl, SVC_AUTH_URL: sb.authUrl, SVC_TOKEN: sb.token }),
  };
}

/** Requests the sandbox received for a collection path since a mark (`sb.requests.length`). */
export function received(sb: TestSandbox, since: number, path?: string) {
  return sb.requests.slice(since).filter((r) => !path || r.path === `/api/v2/${path}` || r.path.startsWith(`/api/v2/${path}/`));
}
