/**
 * A 403 `unauthorizedOauthScope` names the scope the request needed and the command that grants
 * it. The scope comes from the request itself (the collection it addressed and its method: read
 * for GET, write for POST and PATCH, delete for DELETE; `<collection>.all` covers all three), so
 * the hint holds whatever the server's message says.
 */
import { ApiError } from '../errors.js';
import { findRelationship, findResource, resourceByType, type ResourceType } from '../registry/index.js';

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

/** A scope the server's own words name (`… requires the 'accounts.read' OAuth scope`), when it names a known one. */
function scopeNamedBy(err: ApiError): string | undefined {
  for (const e of err.errors) {
    for (const m of `${e.title ?? ''} ${e.detail ?? ''}`.matchAll(/\b([a-z][A-Za-z]*)\.(read|write|delete|all)\b/g)) {
      if (findResource(m[1]!)?.path === m[1]) return `${m[1]}.${m[2]}`;
    }
  }
  return undefined;
}

/**
 * The read scopes of the types a request reaches through its filters, sort keys and includes
 * (`filter[account][name]`, `sort=account.name`, `include=account`): the server asks for those too.
 */
export function crossedScopes(url: URL, baseUrl: URL): string[] {
  const base = baseUrl.pathname.replace(/\/+$/, '');
  const rt = findResource(url.pathname.slice(base.length + 1).split('/')[0] ?? '');
  if (!rt) return [];
  const paths: string[][] = [];
  for (const [key, value] of url.searchParams) {
    if (key.startsWith('filter[')) paths.push([...key.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!));
    else if (key === 'sort') for (const k of value.split(',')) paths.push(k.replace(/^-/, '').split('.'));
    else if (key === 'include') for (const k of value.split(',')) paths.push([...k.split('.'), '']);
  }
  const out = new Set<string>();
  for (const path of paths) {
    let t: ResourceType = rt;
    for (let i = 0; i < path.length - 1; i++) {
      const rel = findRelationship(t, path[i]!);
      const target = rel?.target ? resourceByType(rel.target) : undefined;
      if (!target || (i === path.length - 2 && path[i + 1] === 'id')) break;
      out.add(`${target.path}.read`);
      t = target;
    }
  }
  return [...out];
}

/** The scope a 403 `unauthorizedOauthScope` names (`stages.read`; '' when it names none); undefined for any other error. */
export function missingScope(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 403 || !err.errors.some((e) => e.id === 'unauthorizedOauthScope')) return undefined;
  return scopeNamedBy(err) ?? '';
}

/** Adds the scope and the login command to an `unauthorizedOauthScope` refusal. */
export function addScopeHint(err: ApiError, method: string, url: URL, baseUrl: URL, held?: string): void {
  // The whole list to ask for where the token's scopes are known: a literal `…` pasted was
  // refused (a trial). A 403 says the token lacks those needed, so they are added to its own.
  const list = (needed: string[]) =>
    held ? [...new Set([...held.split(/\s+/).filter(Boolean), ...needed])].join(' ') : `${needed.join(' ')} …`;
  if (err.status !== 403 || !err.errors.some((e) => e.id === 'unauthorizedOauthScope')) return;
  const named = scopeNamedBy(err);
  const own = scopeForRequest(method, url, baseUrl);
  const crossed = named ? [] : crossedScopes(url, baseUrl).filter((c) => c !== own);
  if (!named && own && crossed.length) {
    err.hint(`this request needs the scope ${own}, and ${crossed.join(', ')} for what it filters, sorts or includes by`);
    err.hint(
      `log in again asking for them with the scopes you use: \`svc login --scopes "${list([own, ...crossed])}"\` (\`svc auth status\` shows the scopes you have)`,
    );
    return;
  }
  const scope = named ?? own;
  if (!scope) {
    err.hint('log in again with the scopes this needs: `svc login --scopes "…"` (`svc auth status` shows the scopes you have)');
    return;
  }
  const all = scope.replace(/\.\w+$/, '.all');
  err.hint(`this request needs the scope ${scope} (or ${all})`);
  err.hint(
    `log in again asking for it with the scopes you use: \`svc login --scopes "${list([all])}"\` (\`svc auth status\` shows the scopes you have)`,
  );
}
