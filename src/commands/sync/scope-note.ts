/**
 * What to say about tables the login's scopes do not let `svc sync` read: which, the scopes
 * missing, and the one `svc login --scopes` command that adds them to those the profile has.
 * Said once by a sync, and by `svc sync --status` and `svc sql` from the marks the sync left in
 * the mirror: a rerun of `svc sync` never fills such a table, so "run svc sync" was no fix.
 */
import { DEFAULT_SCOPES, scopesWith } from '../../auth/scopes.js';
import type { Context } from '../../runtime/context.js';

/** A table skipped for a scope, and the scope its token lacked. */
export interface UnreadableTable {
  table: string;
  scope: string;
}

/**
 * `svc login --scopes "…"` asking for the profile's scopes (those its token was granted, else
 * those it asked for, else the defaults) and `missing` besides; `--profile NAME` unless it is the
 * default profile.
 */
async function loginCommand(ctx: Context, missing: readonly string[]): Promise<string> {
  const store = await ctx.config();
  const name = store.currentName();
  const profile = store.get(name);
  const has = (profile?.tokenScopes ?? profile?.scopes ?? DEFAULT_SCOPES).split(/\s+/).filter(Boolean);
  return `svc login${name === 'default' ? '' : ` --profile ${name}`} --scopes "${scopesWith(has, missing)}"`;
}

/**
 * The fix, as a clause: log in again asking for the scopes missing too, then sync; a token given
 * by --token or SVC_TOKEN, which no login replaces, is named first.
 */
export async function scopeFix(ctx: Context, tables: readonly UnreadableTable[]): Promise<string> {
  const scopes = [...new Set(tables.map((t) => t.scope))];
  const them = scopes.length === 1 ? 'it' : 'them';
  const login = `${await loginCommand(ctx, scopes)}, then svc sync`;
  return ctx.globals.token !== undefined
    ? `give svc a token with ${them} (--token, SVC_TOKEN), or log in asking for ${them}: ${login}`
    : `log in again asking for ${them} too: ${login}`;
}

/** The one line a sync (or its plan) says for every table skipped: the tables, the scopes, the fix. */
export async function unreadableWarning(ctx: Context, tables: readonly UnreadableTable[]): Promise<string> {
  const scopes = [...new Set(tables.map((t) => t.scope))];
  return `not mirrored: ${tables.map((t) => t.table).join(', ')} (this login lacks ${scopes.join(', ')}): ${await scopeFix(ctx, tables)}`;
}
