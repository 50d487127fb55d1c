/**
 * OAuth scopes as the spec defines them: `<plural resource name>.<level>`, levels not additive
 * (`write` does not grant `read`), `all` grants every level.
 */
import { RESOURCES } from '../../registry/index.js';

export type ScopeLevel = 'read' | 'write' | 'delete';

/** True when the scopes allow `level` on the collection (`prospects`). */
export function hasScope(scopes: ReadonlySet<string>, collection: string, level: ScopeLevel): boolean {
  return scopes.has(`${collection}.${level}`) || scopes.has(`${collection}.all`);
}

/** The scope that would grant the request, for 403 messages. */
export function scopeName(collection: string, level: ScopeLevel): string {
  return `${collection}.${level}`;
}

/** Every scope the sandbox knows: `<collection>.all` for each type of the registry. */
export function allScopes(): string[] {
  return RESOURCES.map((r) => `${r.path}.all`);
}

/** True when `s` is a well-formed scope of a known collection. */
export function isKnownScope(s: string): boolean {
  const m = /^([A-Za-z]+)\.(read|write|delete|all)$/.exec(s);
  return !!m && RESOURCES.some((r) => r.path === m[1]);
}
