/**
 * The refreshing token provider: hands out the profile's access token, refreshing it with
 * `grant_type=refresh_token` when it expires within a minute and once after an unexpected 401.
 *
 * Parallel `svc` processes sharing a profile refresh once between them: the refresh runs under
 * the config store's lock file, and the store is re-read after taking the lock, so a process
 * that waited finds the token another one just fetched and uses it. Refresh tokens rotate (the
 * old one stops working), so the new pair is written to the store (temp file + rename) before
 * the new access token is used anywhere.
 *
 * CI: `SVC_REFRESH_TOKEN` (+ client id/secret) seeds the profile; the tokens it yields are
 * stored with the seed's hash so that later processes of the job use them instead of spending
 * the (already rotated) seed again.
 */
import { createHash } from 'node:crypto';
import type { TokenProvider } from '../api/client.js';
import { AuthError, InterruptedError, NetworkError, neverSent } from '../errors.js';
import type { ConfigStore, Profile } from './config.js';
import { LockTimeoutError, withLock } from './lock.js';
import { dropUndefined } from './store-lock.js';
import type { TokenSet } from './token-endpoint.js';
import { missingTokenProvider } from './token-provider.js';

/** Refresh this long before the stored expiry. */
const REFRESH_AHEAD_MS = 60_000;

/** Client settings from the environment (SVC_CLIENT_ID, SVC_CLIENT_SECRET, SVC_REFRESH_TOKEN). */
interface EnvCredentials {
  clientId?: string;
  clientSecret?: string;
  refreshToken?: string;
  /** SVC_TOKEN is set but empty (an unset CI secret): said when there is no login either. */
  emptyToken?: boolean;
}

/** Options of {@link refreshingTokenProvider}. */
export interface RefreshingProviderOptions {
  store: ConfigStore;
  profileName: string;
  /** Where `/oauth/token` lives when the profile does not say (flags, env, base URL origin). */
  authUrl: string;
  /** Base URL to record in a profile seeded from SVC_REFRESH_TOKEN. */
  baseUrl?: string;
  env?: EnvCredentials;
  now?: () => number;
  trace?: (line: string) => void;
  /** Told of a long wait (a rate-limited token endpoint), shown without --verbose. */
  notice?: (line: string) => void;
  /** Every new token passes through here so that traces and errors redact it. */
  addSecret?: (secret: string | undefined) => void;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** How long to wait for another process's refresh (which may wait out a 429). @default 150000 */
  lockTimeoutMs?: number;
  /** Longest Retry-After of a 429 from the token endpoint that is waited out. @default 65000 */
  maxRateLimitWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** How the hints write svc: with the command's `--profile` (runtime/svc-again.ts), so that the login they name is this profile's. @default 'svc' */
  svc?: string;
}

/** The provider, plus a way to force a fresh token (`svc auth token`). */
interface RefreshingTokenProvider extends TokenProvider {
  /** True when the access token expires within {@link REFRESH_AHEAD_MS}. */
  expiresSoon(p: Profile | undefined): boolean;
}

/** SHA-256 (hex) of a seed refresh token: stored instead of the token itself. */
export function seedHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Builds the provider. */
export function refreshingTokenProvider(opts: RefreshingProviderOptions): RefreshingTokenProvider {
  const now = opts.now ?? Date.now;
  const env = opts.env ?? {};
  const svc = opts.svc ?? 'svc';
  const seed = env.refreshToken ? seedHash(env.refreshToken) : undefined;
  const read = () => opts.store.get(opts.profileName);
  let lastToken: string | undefined;
  // One refresh at a time within this process (bulk runs send requests in parallel).
  let inflight: Promise<string> | undefined;

  const expiresSoon = (p: Profile | undefined) => p?.expiresAt !== undefined && p.expiresAt - now() < REFRESH_AHEAD_MS;
  const seeded = (p: Profile | undefined) => seed !== undefined && p?.refreshSeed === seed;
  const hand = (token: string) => {
    opts.addSecret?.(token);
    lastToken = token;
    return token;
  };

  function refresh(stale: string | undefined, reason: string): Promise<string> {
    inflight ??= (async () => {
      try {
        return await withLock(opts.store.lockPath, () => refreshLocked(stale, reason), {
          timeoutMs: opts.lockTimeoutMs ?? 150_000,
          signal: opts.signal,
          onWait: (o) => opts.trace?.(`waiting for another svc process to refresh the token${o ? ` (pid ${o.pid})` : ''}`),
        });
      } catch (err) {
        if (err instanceof LockTimeoutError) {
          throw new AuthError(`could not refresh the access token: ${err.message}`).hint(
            `if no other svc process is running, delete ${err.file} and retry`,
          );
        }
        throw err;
      } finally {
        inflight = undefined;
      }
    })();
    return inflight;
  }

  /** Runs with the lock held: re-read, maybe reuse, else refresh and store. */
  async function refreshLocked(stale: string | undefined, reason: string): Promise<string> {
    const cur = read() ?? {};
    const useSeed = seed !== undefined && !seeded(cur);
    // Another process refreshed while we waited: use its token unless it is about to lapse
    // (not "within a minute": with lifetimes under a minute every waiter would refresh again).
    const usable = cur.expiresAt === undefined || cur.expiresAt - now() > 5_000;
    if (!useSeed && cur.accessToken && cur.accessToken !== stale && usable) {
      opts.trace?.('using the token another svc process refreshed just now');
      return cur.accessToken;
    }
    const refreshToken = useSeed ? env.refreshToken : cur.refreshToken;
    if (!refreshToken) {
      throw new AuthError(`the access token of profile "${opts.profileName}" has expired and there is no refresh token`).hint(
        `run \`${svc} login\` (or \`${svc} login --with-token\`) again`,
      );
    }
    // The client that obtained the tokens refreshes them; the environment fills gaps (CI).
    const clientId = (useSeed ? env.clientId : undefined) ?? cur.clientId ?? env.clientId;
    const clientSecret = (useSeed ? env.clientSecret : undefined) ?? cur.clientSecret ?? env.clientSecret;
    if (!clientId || !clientSecret) {
      throw new AuthError(`cannot refresh the access token of profile "${opts.profileName}": no OAuth client id/secret`).hint(
        `set SVC_CLIENT_ID and SVC_CLIENT_SECRET, or run \`${svc} login\``,
      );
    }
    opts.addSecret?.(clientSecret);
    opts.trace?.(`refreshing the access token of profile "${opts.profileName}" (${reason})`);
    const tokens = await fetchTokens(opts.authUrl, clientId, clientSecret, refreshToken, useSeed);
    opts.addSecret?.(tokens.accessToken);
    opts.addSecret?.(tokens.refreshToken);
    const next: Profile = {
      ...cur,
      // Tokens from SVC_REFRESH_TOKEN belong to this run's hosts: the profile records those (a
      // profile with secrets of other hosts never gets here: the connection refuses them).
      baseUrl: useSeed ? (opts.baseUrl ?? cur.baseUrl) : (cur.baseUrl ?? opts.baseUrl),
      authUrl: useSeed ? opts.authUrl : (cur.authUrl ?? opts.authUrl),
      clientId: cur.clientId ?? clientId,
      accessToken: tokens.accessToken,
      // Rotation: keep the old refresh token only when the server did not send a new one.
      refreshToken: tokens.refreshToken ?? refreshToken,
      expiresAt: tokens.expiresAt,
      tokenScopes: tokens.scope ?? cur.tokenScopes,
      ...(useSeed || seeded(cur) ? { refreshSeed: seed } : {}),
    };
    // Written (atomically) before the new token is returned to anyone.
    await opts.store.set(opts.profileName, dropUndefined(next));
    return tokens.accessToken;
  }

  async function fetchTokens(
    authUrl: string,
    clientId: string,
    clientSecret: string,
    refreshToken: string,
    fromEnv: boolean,
  ): Promise<TokenSet> {
    // undici loads only when a refresh happens (start-up time of every other command).
    // Performance machinery (src/README.md, Build): loaded with import() when first used.
    const { requestToken, TokenEndpointError } = await import('./token-endpoint.js');
    const params = { grant_type: 'refresh_token', client_id: clientId, client_secret: clientSecret, refresh_token: refreshToken };
    // Ctrl-C does not abort a refresh on the wire: the server may already have rotated the
    // refresh token, and only its answer holds the new one. The request finishes (bounded by
    // --timeout), the tokens are stored, and the command then stops (a second Ctrl-C exits at
    // once). A refresh not yet sent is not sent after Ctrl-C.
    const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const call = async () => {
      // A connection refused (or a name not resolved) means nothing was sent: try again a few
      // times with growing pauses. Anything after sending is not repeated — the server may
      // have rotated the refresh token, and the old one would only earn an invalid_grant.
      for (let attempt = 1; ; attempt++) {
        if (opts.signal?.aborted) throw new InterruptedError();
        try {
          return await requestToken({ authUrl, params, now, timeoutMs: opts.timeoutMs, trace: opts.trace });
        } catch (err) {
          // Failed before it left: the token request may be sent again.
          if (!(err instanceof NetworkError) || !neverSent(err) || attempt >= 4) throw err;
          opts.trace?.(`retry POST ${authUrl} token request in ${250 * 2 ** (attempt - 1)} ms: nothing was sent (${err.code})`);
          await sleep(250 * 2 ** (attempt - 1));
        }
      }
    };
    try {
      try {
        return await call();
      } catch (err) {
        // One access token per user per 60 s: wait once when the server says how long.
        const wait = err instanceof TokenEndpointError && err.status === 429 ? (err.retryAfterSeconds ?? 60) * 1000 : undefined;
        if (wait === undefined || wait > (opts.maxRateLimitWaitMs ?? 65_000)) throw err;
        opts.notice?.(`The API issues one access token per minute: waiting ${Math.ceil(wait / 1000)} s to refresh the token…`);
        await sleep(wait);
        return await call();
      }
    } catch (err) {
      if (err instanceof TokenEndpointError && (err.oauthError === 'invalid_grant' || err.oauthError === 'invalid_client')) {
        const what =
          err.oauthError === 'invalid_grant'
            ? 'the refresh token was rejected (invalid_grant: expired, revoked or already used)'
            : 'the OAuth client was rejected (invalid_client)';
        const e = new AuthError(`cannot refresh the login of profile "${opts.profileName}": ${what}`);
        if (fromEnv)
          e.hint('SVC_REFRESH_TOKEN works once (refresh tokens rotate): store a fresh one, or share the config directory between steps');
        if (err.oauthError === 'invalid_client') {
          // `svc login` alone would reuse the rejected client and end on "Unknown application".
          e.hint(
            `a restarted sandbox has a new OAuth client (\`svc sandbox\` prints it); a plain \`${svc} login\` picks it up from a running sandbox`,
          );
          throw e.hint(`otherwise log in with the current client: \`${svc} login --client-id ID --client-secret SECRET\``);
        }
        // With SVC_REFRESH_TOKEN (a CI job) a browser login is no fix: the hint above is the one.
        if (fromEnv) throw e;
        throw e.hint(`run \`${svc} login\` to log in again`);
      }
      throw err;
    }
  }

  return {
    expiresSoon,
    async getToken() {
      const p = read();
      if (seed !== undefined && !seeded(p)) return hand(await refresh(undefined, 'SVC_REFRESH_TOKEN'));
      if (!p?.accessToken) {
        if (p?.refreshToken) return hand(await refresh(undefined, 'no access token stored'));
        return missingTokenProvider(opts.profileName, env.emptyToken === true, svc).getToken();
      }
      if (expiresSoon(p)) return hand(await refresh(p.accessToken, 'expires within a minute'));
      return hand(p.accessToken);
    },
    async onUnauthorized() {
      const stale = lastToken;
      const p = read();
      if (!p?.refreshToken && !(seed !== undefined && !seeded(p))) return false;
      const fresh = await refresh(stale, 'the API answered 401');
      hand(fresh);
      return fresh !== stale;
    },
  };
}
