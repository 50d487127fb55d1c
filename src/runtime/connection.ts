/**
 * Which API a command talks to and with which token: flags, then env, then the profile — or the
 * local sandbox with `--sandbox`.
 */
import type { TokenProvider } from '../api/client.js';
import type { Profile } from '../auth/config.js';
import { staticTokenProvider } from '../auth/token-provider.js';
import { checkHttpUrl, originOf } from '../api/check-url.js';
import { AuthError, UsageError } from '../errors.js';
import type { Context } from './context.js';
import { svcAgain } from './svc-again.js';

/** The resolved target of a command. */
export interface Connection {
  profileName: string;
  baseUrl: string;
  authUrl: string;
  tokens: TokenProvider;
  /** Where the token comes from, for `auth status` (`refresh-env`: SVC_REFRESH_TOKEN). */
  tokenSource: 'flag' | 'env' | 'profile' | 'sandbox' | 'refresh-env' | 'none';
  /** The scopes the profile's token was granted (else those its login asked for); unknown for --token and SVC_TOKEN. */
  scopes?: string;
}

/** Resolves the connection of a command. */
export async function resolveConnection(ctx: Context): Promise<Connection> {
  const g = ctx.globals;
  if (g.sandbox) {
    const over = g.sandboxOverrides;
    if (over) {
      ctx.warn(
        `${over.by} is set: the local sandbox answers, not the API that ${over.names.join(', ')} name${over.names.length > 1 ? '' : 's'} (unset ${over.by} to use it)`,
      );
    }
    // Performance machinery (src/README.md, Build): loaded with import() when first used.
    const { attachSandbox } = await import('../local-sandbox/attach.js');
    const sb = await attachSandbox(ctx);
    ctx.addSecret(sb.token);
    return {
      profileName: 'sandbox',
      baseUrl: sb.baseUrl,
      authUrl: sb.authUrl,
      tokens: staticTokenProvider(sb.token),
      tokenSource: 'sandbox',
    };
  }
  const store = await ctx.config();
  const profileName = store.currentName();
  const profile = store.get(profileName);
  const baseUrl = g.baseUrl ?? profile?.baseUrl;
  if (!baseUrl && !profile && store.names().length > 0) {
    // `--profile nosuch`: the name is the problem, not the missing URL.
    throw await unknownProfile(profileName, store.names());
  }
  if (!baseUrl) {
    // Not logged in, as the README's exit codes say 3 is: a profile gets its base URL from a
    // login. It exited 2 as a usage error, where a script checking for "log in first" missed it
    // (a new user's trial). `svc login` without --base-url is login's own usage error (2).
    throw new AuthError(`no API base URL for profile "${profileName}": not logged in`).hint(
      `run \`${svcAgain(ctx)} login --base-url URL\`, or set SVC_BASE_URL (with SVC_TOKEN), or try the local sandbox with \`svc --sandbox ...\``,
    );
  }
  checkHttpUrl(
    baseUrl,
    g.baseUrl === undefined
      ? `the base URL of profile "${profileName}"`
      : ctx.env.SVC_BASE_URL === g.baseUrl
        ? 'SVC_BASE_URL'
        : '--base-url',
  );
  const authUrl = g.authUrl ?? profile?.authUrl ?? new URL(baseUrl).origin;
  checkHttpUrl(authUrl, g.authUrl !== undefined && ctx.env.SVC_AUTH_URL === g.authUrl ? 'SVC_AUTH_URL' : '--auth-url');
  if (g.token) {
    ctx.addSecret(g.token);
    const source = ctx.env.SVC_TOKEN === g.token ? 'env' : 'flag';
    // A refused token of the user's own: say which it is (a 401 said only "invalid", a trial).
    const refused =
      source === 'env'
        ? `the token sent is SVC_TOKEN's: set a valid one, or unset SVC_TOKEN to use the profile's login (\`${svcAgain(ctx)} auth status\`)`
        : `the token sent is --token's: pass a valid one, or leave it out to use the profile's login (\`${svcAgain(ctx)} auth status\`)`;
    return { profileName, baseUrl, authUrl, tokens: staticTokenProvider(g.token, refused), tokenSource: source };
  }
  ctx.addSecret(profile?.accessToken);
  ctx.addSecret(profile?.refreshToken);
  ctx.addSecret(profile?.clientSecret);
  ctx.addSecret(ctx.env.SVC_REFRESH_TOKEN);
  ctx.addSecret(ctx.env.SVC_CLIENT_SECRET);
  const tokenSource = ctx.env.SVC_REFRESH_TOKEN ? 'refresh-env' : profile?.accessToken || profile?.refreshToken ? 'profile' : 'none';
  // A token from SVC_REFRESH_TOKEN is refreshed into the profile, and its later steps use the
  // stored access token (and the stored client secret when the env has none): the same check.
  const usesStored = (tokenSource === 'profile' || tokenSource === 'refresh-env') && hasStoredSecret(profile);
  const foreign = usesStored ? foreignTarget(profileName, profile!, baseUrl, authUrl, tokenSource === 'refresh-env') : undefined;
  if (foreign) {
    // Commands that need no token (webhooks cleanup) still run; any request with it is refused.
    const refuse = async (): Promise<never> => {
      throw foreign;
    };
    return { profileName, baseUrl, authUrl, tokens: { getToken: refuse, onUnauthorized: refuse }, tokenSource };
  }
  // Refreshes expiring tokens once for all processes sharing the profile (auth/refresh.ts).
  const { refreshingTokenProvider } = await import('../auth/refresh.js');
  const tokens = refreshingTokenProvider({
    store,
    profileName,
    authUrl,
    baseUrl,
    env: {
      clientId: ctx.env.SVC_CLIENT_ID || undefined,
      clientSecret: ctx.env.SVC_CLIENT_SECRET || undefined,
      refreshToken: ctx.env.SVC_REFRESH_TOKEN || undefined,
      ...(ctx.env.SVC_TOKEN === '' ? { emptyToken: true } : {}),
    },
    now: () => ctx.clock.now(),
    svc: svcAgain(ctx),
    trace: (line) => ctx.trace(line),
    notice: (line) => ctx.info(line),
    addSecret: (s) => ctx.addSecret(s),
    timeoutMs: g.timeoutMs,
    signal: ctx.signal,
    sleep: (ms) => ctx.clock.sleep(ms, ctx.signal),
  });
  const scopes = profile?.tokenScopes ?? profile?.scopes;
  return { profileName, baseUrl, authUrl, tokens, tokenSource, ...(scopes ? { scopes } : {}) };
}

/** True when the profile holds something that must stay with its API: a token or the client secret. */
function hasStoredSecret(profile: Profile | undefined): boolean {
  return Boolean(profile?.accessToken || profile?.refreshToken || profile?.clientSecret);
}

/**
 * A stored login belongs to the API it was made against: its tokens (and, for a refresh, the
 * client secret) are sent to that profile's base and auth URLs only — never to another host
 * named by `--base-url`/`--auth-url` or SVC_BASE_URL/SVC_AUTH_URL, however the token is
 * supplied (a stored login, or SVC_REFRESH_TOKEN refreshed into the profile). The error to throw
 * when a request would go elsewhere, or undefined when the target is the profile's own.
 */
function foreignTarget(profileName: string, profile: Profile, baseUrl: string, authUrl: string, fromEnv: boolean): UsageError | undefined {
  const own = originOf(profile.baseUrl);
  const ownAuth = originOf(profile.authUrl) ?? own;
  const bad =
    own && originOf(baseUrl) !== own
      ? ['--base-url', baseUrl, own]
      : ownAuth && originOf(authUrl) !== ownAuth
        ? ['--auth-url', authUrl, ownAuth]
        : undefined;
  if (!bad) return undefined;
  const [flag, url, home] = bad as [string, string, string];
  const e = new UsageError(`${flag} ${url}: profile "${profileName}" is logged in to ${home}; its tokens are sent there only`);
  if (fromEnv)
    e.hint(
      'SVC_REFRESH_TOKEN is refreshed into this profile and its stored login is used: give a step against another API its own profile (SVC_PROFILE=NAME) or config directory',
    );
  return e.hint(`for another API use --token (or SVC_TOKEN), or log in to it with \`svc login --profile NAME --base-url ${url}\``);
}

/** `--profile NAME` that names no profile: the error, with the nearest name and how to make it. */
export async function unknownProfile(name: string, names: string[]): Promise<UsageError> {
  const { didYouMean } = await import('../suggest.js');
  return new UsageError(`no profile named "${name}"${didYouMean(name, names)} (profiles: ${names.join(', ')})`).hint(
    `create it with \`svc --profile ${name} login --base-url URL\`, or see \`svc profiles list\``,
  );
}
