/**
 * Which API a command talks to and with which token: flags, then env, then the profile — or the
 * local sandbox with `--sandbox`.
 */
import type { TokenProvider } from '../api/client.js';
import { profileTokenProvider, staticTokenProvider } from '../auth/token-provider.js';
import { UsageError } from '../errors.js';
import type { Context } from './context.js';

/** The resolved target of a command. */
export interface Connection {
  profileName: string;
  baseUrl: string;
  authUrl: string;
  tokens: TokenProvider;
  /** Where the token comes from, for `auth status`. */
  tokenSource: 'flag' | 'env' | 'profile' | 'sandbox' | 'none';
}

/** Resolves the connection of a command. */
export async function resolveConnection(ctx: Context): Promise<Connection> {
  const g = ctx.globals;
  if (g.sandbox) {
    const { attachSandbox } = await import('../commands/sandbox/attach.js');
    const sb = await attachSandbox(ctx);
    ctx.addSecret(sb.token);
    return { profileName: 'sandbox', baseUrl: sb.baseUrl, authUrl: sb.authUrl, tokens: staticTokenProvider(sb.token), tokenSource: 'sandbox' };
  }
  const store = await ctx.config();
  const profileName = store.currentName();
  const profile = store.get(profileName);
  const baseUrl = g.baseUrl ?? profile?.baseUrl;
  if (!baseUrl) {
    throw new UsageError(`no API base URL for profile "${profileName}"`).hint(
      'pass --base-url or set SVC_BASE_URL, run `svc login --base-url URL`, or try the local sandbox with `svc --sandbox ...`',
    );
  }
  checkUrl(baseUrl, '--base-url');
  const authUrl = g.authUrl ?? profile?.authUrl ?? new URL(baseUrl).origin;
  checkUrl(authUrl, '--auth-url');
  if (g.token) {
    ctx.addSecret(g.token);
    const source = ctx.env.SVC_TOKEN === g.token ? 'env' : 'flag';
    return { profileName, baseUrl, authUrl, tokens: staticTokenProvider(g.token), tokenSource: source };
  }
  ctx.addSecret(profile?.accessToken);
  ctx.addSecret(profile?.refreshToken);
  ctx.addSecret(profile?.clientSecret);
  const tokens = profileTokenProvider(() => store.get(profileName), profileName);
  return { profileName, baseUrl, authUrl, tokens, tokenSource: profile?.accessToken ? 'profile' : 'none' };
}

function checkUrl(url: string, flag: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`${flag}: "${url}" is not a URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new UsageError(`${flag}: only http(s) URLs are supported`);
}
