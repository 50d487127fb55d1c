/** Helpers shared by the login and auth commands: the root document, client credentials. */
import type { Profile } from '../../auth/config.js';
import { parseRoot, type RootInfo } from '../../auth/whoami.js';
import type { Context } from '../../runtime/context.js';
import { ApiError, AuthError, UsageError } from '../../errors.js';

/**
 * `GET {base_url}` with a given token: who it belongs to. A 401 means the token does not work
 * (AuthError); other failures are the caller's to judge.
 */
export async function fetchRootWithToken(ctx: Context, baseUrl: string, authUrl: string, token: string): Promise<RootInfo> {
  const client = await ctx.newApiClient({ baseUrl, authUrl, tokens: { getToken: async () => token } });
  try {
    const res = await client.request({ method: 'GET', path: baseUrl });
    return parseRoot(res.doc);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw new AuthError(`the API rejected the token (401): ${err.message}`);
    throw err;
  } finally {
    await client.close();
  }
}

/** The OAuth client of a login: flags, env, profile; asked for on a terminal when missing. */
export async function resolveClient(
  ctx: Context,
  flags: { clientId?: string; clientSecret?: string },
  existing: Profile | undefined,
  required: boolean,
): Promise<{ clientId?: string; clientSecret?: string }> {
  let clientId = flags.clientId ?? (ctx.env.SVC_CLIENT_ID || undefined) ?? existing?.clientId;
  let clientSecret = flags.clientSecret ?? (ctx.env.SVC_CLIENT_SECRET || undefined) ?? existing?.clientSecret;
  if (required && (!clientId || !clientSecret)) {
    const interactive = ctx.io.stdinIsTTY && ctx.io.stderrIsTTY;
    const missing = !clientId ? 'client id' : 'client secret';
    if (!interactive) {
      throw new UsageError(`no OAuth ${missing} for the login`).hint(
        'pass --client-id/--client-secret or set SVC_CLIENT_ID/SVC_CLIENT_SECRET (the credentials of your registered application)',
      );
    }
    const prompter = await ctx.prompter();
    ctx.info("svc logs in as an OAuth application: enter your application's client credentials (never your password or API key).");
    clientId ??= (await prompter.input('OAuth client id', { required: true })).trim();
    clientSecret ??= (await prompter.password('OAuth client secret')).trim();
    if (!clientId || !clientSecret) throw new UsageError(`no OAuth ${missing} given`);
  }
  ctx.addSecret(clientSecret);
  return { ...(clientId ? { clientId } : {}), ...(clientSecret ? { clientSecret } : {}) };
}

/** `1 h 59 min`, `42 s`, `expired 3 min ago`. */
export function describeExpiry(expiresAt: number | undefined, now: number): string {
  if (expiresAt === undefined) return 'unknown';
  const secs = Math.round((expiresAt - now) / 1000);
  const span = (s: number) =>
    s >= 2 * 86400
      ? `${Math.floor(s / 86400)} days`
      : s >= 3600
        ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
        : s >= 60
          ? `${Math.floor(s / 60)} min`
          : `${s} s`;
  const at = new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return secs >= 0 ? `${at} (in ${span(secs)})` : `${at} (expired ${span(-secs)} ago)`;
}
