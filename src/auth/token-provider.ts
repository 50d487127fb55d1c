/**
 * Token providers that never refresh: a given token (`--token`/`SVC_TOKEN`, the sandbox) and
 * the not-logged-in failure. The stored login of a profile is served by refresh.ts.
 */
import type { TokenProvider } from '../api/client.js';
import { AuthError } from '../errors.js';

/** A provider that always answers the same token (CI tokens, the sandbox). */
export function staticTokenProvider(token: string): TokenProvider {
  return { getToken: async () => token };
}

/** A provider that fails with the not-logged-in message when asked. */
export function missingTokenProvider(profile: string): TokenProvider {
  return {
    getToken: async () => {
      throw new AuthError(`not logged in (profile "${profile}")`).hint(
        'run `svc login`, set SVC_TOKEN, or try the local sandbox with `svc --sandbox ...`',
      );
    },
  };
}
