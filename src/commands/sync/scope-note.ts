/**
 * What to say about tables the login's scopes do not let `svc sync` read: which, the scopes
 * missing, and the one `svc login --scopes` command that adds them to those the profile has.
 * Said once by a sync, and by `svc sync --status` and `svc sql` from the marks the sync left in
 * the mirror: a rerun of `svc sync` with that login never fills such a table, so "run svc sync"
 * was no fix; with another login that holds the scope it is ({@link markFixes}).
 */
import { DEFAULT_SCOPES, holdsScope, scopesWith } from '../../auth/scopes.js';
import type { Context } from '../../runtime/context.js';
import { svcAgain } from '../../runtime/svc-again.js';
import { quoteWord } from '../../shell-words.js';

/** A table skipped for a scope, and the scope its token lacked. */
export interface UnreadableTable {
  table: string;
  scope: string;
}

/**
 * The current profile's name and scopes: those its token was granted, else those it asked for,
 * else the defaults (what a login would ask for).
 */
async function profileScopes(ctx: Context): Promise<{ name: string; has: string[]; loggedIn: boolean }> {
  const store = await ctx.config();
  const name = store.currentName();
  const profile = store.get(name);
  const has = (profile?.tokenScopes ?? profile?.scopes ?? DEFAULT_SCOPES).split(/\s+/).filter(Boolean);
  return { name, has, loggedIn: profile?.accessToken !== undefined || profile?.refreshToken !== undefined };
}

/**
 * `svc` for the profile the note is about: the sync pasted after the login must reach the same
 * org (it said plain `svc sync` after `svc login --profile emearo …`, which synced the default
 * profile's org: a trial). As run with --sandbox or --sandbox-data, svc as the user ran it.
 */
function svcFor(ctx: Context, name: string): string {
  if (ctx.globals.sandbox || ctx.globals.sandboxData !== undefined || ctx.globals.profile !== undefined) return svcAgain(ctx);
  return name === 'default' ? 'svc' : `svc --profile ${quoteWord(name)}`;
}

/**
 * `svc login --scopes "…"` asking for the profile's scopes and `missing` besides; `--profile NAME`
 * unless it is the default profile.
 */
async function loginCommand(ctx: Context, missing: readonly string[]): Promise<string> {
  const { name, has } = await profileScopes(ctx);
  return `svc login${name === 'default' ? '' : ` --profile ${name}`} --scopes "${scopesWith(has, missing)}"`;
}

/**
 * The fix, as a clause: log in again asking for the scopes missing too, then sync; a token given
 * by --token or SVC_TOKEN, which no login replaces, is named first.
 */
async function scopeFix(ctx: Context, tables: readonly UnreadableTable[]): Promise<string> {
  const scopes = [...new Set(tables.map((t) => t.scope))];
  const them = scopes.length === 1 ? 'it' : 'them';
  const login = `${await loginCommand(ctx, scopes)}, then ${svcFor(ctx, (await profileScopes(ctx)).name)} sync`;
  return ctx.globals.token !== undefined
    ? `give svc a token with ${them} (--token, SVC_TOKEN), or log in asking for ${them}: ${login}`
    : `log in again asking for ${them} too: ${login}`;
}

/** The one line a sync (or its plan) says for every table skipped: the tables, the scopes, the fix. */
export async function unreadableWarning(ctx: Context, tables: readonly UnreadableTable[]): Promise<string> {
  const scopes = [...new Set(tables.map((t) => t.scope))];
  return `not mirrored: ${tables.map((t) => t.table).join(', ')} (this login lacks ${scopes.join(', ')}): ${await scopeFix(ctx, tables)}`;
}

/**
 * The fix for each group of tables the mirror's marks name. The marks are the mirror's, left by
 * whichever login synced last: on a shared mirror (a --db file, a PostgreSQL schema) a profile
 * that holds the scope was told it lacked it, and given a login that changed nothing. Such
 * tables get a sync with this profile instead; the others (or all, with a token of unknown
 * scopes from --token or SVC_TOKEN, or no login yet) the login fix.
 */
export async function markFixes<T extends UnreadableTable>(ctx: Context, tables: readonly T[]): Promise<{ tables: T[]; fix: string }[]> {
  const { name, has, loggedIn } = await profileScopes(ctx);
  const known = ctx.globals.token === undefined && loggedIn;
  const readable = known ? tables.filter((t) => holdsScope(has, t.scope)) : [];
  const lacking = tables.filter((t) => !readable.includes(t));
  const groups: { tables: T[]; fix: string }[] = [];
  if (lacking.length) groups.push({ tables: lacking, fix: await scopeFix(ctx, lacking) });
  if (readable.length) {
    const them = readable.length === 1 ? 'it' : 'them';
    const sync = `${svcFor(ctx, name)} sync`;
    groups.push({ tables: readable, fix: `this profile can read ${them} (another login's sync could not): ${sync} refreshes ${them}` });
  }
  return groups;
}
