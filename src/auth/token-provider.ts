/**
 * Token providers that never refresh: a given token (`--token`/`SVC_TOKEN`, the sandbox) and
 * the not-logged-in failure. The stored login of a profile is served by refresh.ts.
 */
import type { TokenProvider } from '../api/client.js';
import { AuthError } from '../errors.js';

/** A provider that always answers the same token (CI tokens, the sandbox). */
export function staticTokenProvider(token: string, refusedHint?: string): TokenProvider {
  return { getToken: async () => token, ...(refusedHint ? { refusedHint } : {}) };
}

/**
 * A provider that fails with the not-logged-in message when asked. `emptyEnv`: SVC_TOKEN is set
 * but empty, as an unset CI secret is (a pull request from a fork): said, rather than "log in". `svc`:
 * how the hint writes svc (with the command's `--profile`, runtime/svc-again.ts).
 */
export function missingTokenProvider(profile: string, emptyEnv = false, svc = 'svc'): TokenProvider {
  return {
    getToken: async () => {
      const err = new AuthError(`not logged in (profile "${profile}")`);
      if (emptyEnv) err.hint('SVC_TOKEN is set but empty: is the CI secret it is read from available to this job?');
      throw err.hint(`run \`${svc} login\`, set SVC_TOKEN, or try the local sandbox with \`svc --sandbox ...\``);
    },
  };
}
