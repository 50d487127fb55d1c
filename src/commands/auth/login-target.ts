/**
 * Where a login goes. The user approves on the auth host's consent page and the new token is
 * then sent to the base host and stored for it: the two belong to one API, and a profile keeps
 * the API it was made for. A login that would move a profile to other hosts, or whose base and
 * auth hosts differ, says so and asks on a terminal, or is refused without one (`--yes` confirms).
 */
import type { Profile } from '../../auth/config.js';
import { checkHttpUrl, originOf } from '../../api/check-url.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';

/** The URLs of a login. */
interface LoginTarget {
  baseUrl: string;
  authUrl: string;
  /**
   * True when the login moves the profile to another API: its stored OAuth client (id and
   * secret) belongs to the old one and is neither sent to the new hosts nor kept.
   */
  moved: boolean;
}

/**
 * Base and auth URL of a login: flags/env, then the profile, then the base URL's origin. A base
 * URL on another host than the profile's does not take the profile's auth URL along.
 */
export async function loginTarget(ctx: Context, existing: Profile | undefined, profileName: string): Promise<LoginTarget> {
  const g = ctx.globals;
  const baseUrl = g.baseUrl ?? existing?.baseUrl;
  if (!baseUrl) {
    throw new UsageError(`no API base URL for profile "${profileName}"`).hint(
      'pass it once: `svc login --base-url https://<host>/api/v2` (or set SVC_BASE_URL); the profile remembers it',
    );
  }
  checkHttpUrl(baseUrl, '--base-url');
  if (g.authUrl) checkHttpUrl(g.authUrl, '--auth-url');
  const base = new URL(baseUrl).origin;
  const oldBase = originOf(existing?.baseUrl);
  const oldAuth = originOf(existing?.authUrl) ?? oldBase;
  const baseMoved = oldBase !== undefined && base !== oldBase;
  const authUrl = g.authUrl ?? (baseMoved ? base : (existing?.authUrl ?? base));
  checkHttpUrl(authUrl, '--auth-url');
  const auth = new URL(authUrl).origin;
  const moved = baseMoved || (oldAuth !== undefined && auth !== oldAuth);

  const problems: string[] = [];
  if (moved) {
    const was = oldAuth !== oldBase ? `${oldBase} (auth ${oldAuth})` : oldBase;
    problems.push(`profile "${profileName}" is for the API at ${was}; this login goes to ${base}${auth !== base ? ` (auth ${auth})` : ''}`);
  }
  if (auth !== base) problems.push(`the consent page is at ${auth} but the token would be sent to ${base}`);
  if (problems.length) await confirmTarget(ctx, problems, profileName, baseUrl, moved);
  return { baseUrl: baseUrl.replace(/\/+$/, ''), authUrl: authUrl.replace(/\/+$/, ''), moved };
}

/** Asks on a terminal, goes on with `--yes`, refuses otherwise. Nothing has been sent yet. */
async function confirmTarget(ctx: Context, problems: string[], profileName: string, baseUrl: string, moved: boolean): Promise<void> {
  const what = problems.join('; and ');
  if (ctx.globals.yes) {
    ctx.warn(`${what} (confirmed with --yes)`);
    return;
  }
  if (!(ctx.io.stdinIsTTY && ctx.io.stderrIsTTY)) {
    const e = new UsageError(`login refused: ${what}`);
    if (moved) e.hint(`to log in to that API, use a profile of its own: \`svc --profile NAME login --base-url ${baseUrl}\``);
    else e.hint('pass a base URL and an auth URL of the same API (--base-url/--auth-url, SVC_BASE_URL/SVC_AUTH_URL)');
    throw e.hint('if this is really what you want, confirm with --yes');
  }
  ctx.warn(what);
  const question = moved
    ? `Move profile "${profileName}" to these hosts and log in there (its stored login and OAuth client are not reused)?`
    : 'Log in with these hosts anyway?';
  const ok = await (await ctx.prompter()).confirm(question, false);
  if (!ok) throw new UsageError(`login cancelled: profile "${profileName}" unchanged, nothing sent`);
}
