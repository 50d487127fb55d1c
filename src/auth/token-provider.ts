/**
 * Where the access token of a request comes from: `--token`/`SVC_TOKEN`, else the profile's
 * stored login. Refreshing expired tokens is added by the login layer (refresh.ts).
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

/**
 * The stored login of a profile. Re-reads the store on every call so that a token refreshed by
 * another process is picked up.
 */
export function profileTokenProvider(read: () => { accessToken?: string } | undefined, profile: string): TokenProvider {
  return {
    getToken: async () => {
      const token = read()?.accessToken;
      if (!token) return missingTokenProvider(profile).getToken();
      return token;
    },
  };
}
