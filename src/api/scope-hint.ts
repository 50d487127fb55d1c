/**
 * A 403 `unauthorizedOauthScope` names the scope the request needed and the command that grants
 * it. The scope comes from the request itself (the collection it addressed and its method: read
 * for GET, write for POST and PATCH, delete for DELETE; `<collection>.all` covers all three), so
 * the hint holds whatever the server's message says.
 */
import type { ApiError } from '../errors.js';
import { findResource } from '../registry/index.js';

const LEVELS: Record<string, string> = { GET: 'read', HEAD: 'read', POST: 'write', PATCH: 'write', PUT: 'write', DELETE: 'delete' };

/** The scope a request needs (`prospects.read`), when its path names a known collection. */
export function scopeForRequest(method: string, url: URL, baseUrl: URL): string | undefined {
  const base = baseUrl.pathname.replace(/\/+$/, '');
  if (!url.pathname.startsWith(`${base}/`)) return undefined;
  const collection = url.pathname.slice(base.length + 1).split('/')[0] ?? '';
  const rt = findResource(collection);
  const level = LEVELS[method.toUpperCase()];
  if (!rt || !level || rt.path !== collection) return undefined;
  return `${rt.path}.${level}`;
}

/** Adds the scope and the login command to an `unauthorizedOauthScope` refusal. */
export function addScopeHint(err: ApiError, method: string, url: URL, baseUrl: URL): void {
  if (err.status !== 403 || !err.errors.some((e) => e.id === 'unauthorizedOauthScope')) return;
  const scope = scopeForRequest(method, url, baseUrl);
  if (!scope) {
    err.hint('log in again with the scopes this needs: `svc login --scopes "…"` (`svc auth status` shows the scopes you have)');
    return;
  }
  const all = scope.replace(/\.\w+$/, '.all');
  err.hint(`this request needs the scope ${scope} (or ${all})`);
  err.hint(
    `log in again asking for it with the scopes you use: \`svc login --scopes "${all} …"\` (\`svc auth status\` shows the scopes you have)`,
  );
}
