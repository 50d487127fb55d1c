/**
 * `svc auth status`: profile, URLs, where the token comes from, scopes, expiry, and who it
 * belongs to (a live `GET {base_url}`, refreshing the token first when needed).
 */
import { describeUser, parseRoot } from '../../auth/whoami.js';
import type { Connection } from '../../runtime/connection.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { AuthError } from '../../errors.js';
import { printValue } from '../shared/output.js';
import { terminalSafe } from '../../output/terminal-text.js';
import { describeExpiry } from './shared.js';

const SOURCES: Record<Connection['tokenSource'], string> = {
  profile: 'stored login (refreshed automatically)',
  env: 'SVC_TOKEN (no stored login)',
  flag: '--token (no stored login)',
  'refresh-env': 'SVC_REFRESH_TOKEN (refreshed into the profile)',
  sandbox: 'the local sandbox',
  none: 'none',
};

export async function statusHandler(ctx: Context): Promise<void> {
  const store = ctx.globals.sandbox ? undefined : await ctx.config();
  const name = store?.currentName() ?? 'sandbox';
  const profile = store?.get(name);
  if (!ctx.globals.sandbox && !ctx.globals.token && !ctx.env.SVC_REFRESH_TOKEN && !profile?.accessToken && !profile?.refreshToken) {
    const e = new AuthError(`not logged in (profile "${name}")`);
    // `--profile wrok`: the name is the likelier mistake when no profile has it.
    const names = profile || !store ? [] : store.names();
    if (names.length)
      e.hint(`there is no profile "${name}"${(await import('../../suggest.js')).didYouMean(name, names)}; profiles: ${names.join(', ')}`);
    throw e.hint(`run \`${svcAgain(ctx)} login\`, or set SVC_TOKEN`);
  }
  const conn = await ctx.connection();
  const api = await ctx.api();
  const res = await api.request({ method: 'GET', path: conn.baseUrl.replace(/\/+$/, '') });
  const root = parseRoot(res.doc);
  // Re-read: the request may have refreshed the token.
  const after = conn.tokenSource === 'profile' || conn.tokenSource === 'refresh-env' ? store?.get(name) : undefined;
  const expiresAt = after?.expiresAt ?? (root.expiresIn !== undefined ? ctx.clock.now() + root.expiresIn * 1000 : undefined);
  const scopes = root.scopes?.join(' ') ?? after?.tokenScopes ?? null;
  const value = {
    profile: conn.profileName,
    baseUrl: conn.baseUrl,
    authUrl: conn.authUrl,
    tokenSource: conn.tokenSource,
    user: root.user ?? null,
    organization: root.organization ?? null,
    scopes,
    expiresAt: expiresAt !== undefined ? new Date(expiresAt).toISOString() : null,
    refreshable: Boolean(after?.refreshToken),
    configFile: store?.path ?? null,
  };
  await printValue(ctx, ctx.output, value, () => {
    const rows: [string, string][] = [
      ['Profile', conn.profileName],
      ['Base URL', conn.baseUrl],
      ['Auth URL', conn.authUrl],
      ['Token', SOURCES[conn.tokenSource]],
      ['Logged in as', describeUser(root.user) ?? 'unknown'],
      ...(root.organization ? ([['Organization', root.organization]] as [string, string][]) : []),
      ['Scopes', scopes ?? 'unknown'],
      ['Expires', describeExpiry(expiresAt, ctx.clock.now())],
      ...(store && conn.tokenSource !== 'env' && conn.tokenSource !== 'flag' ? ([['Config', store.path]] as [string, string][]) : []),
    ];
    const w = Math.max(...rows.map(([k]) => k.length)) + 2;
    // Names and URLs come from the server and the profile: one line each, terminal-safe.
    return rows.map(([k, v]) => `${(k + ':').padEnd(w)}${terminalSafe(v)}\n`).join('');
  });
}
