/**
 * The scopes `svc login` asks for when `--scopes` is not given: read, write and delete
 * (`<collection>.all`) on the collections most commands touch. Documented in the README; a
 * user who needs less (or more) passes `--scopes`.
 */

/** Collections whose `.all` scope is requested by default. */
const DEFAULT_SCOPE_COLLECTIONS = [
  'accounts',
  'calls',
  'emailAddresses',
  'events',
  'mailboxes',
  'mailings',
  'opportunities',
  'phoneNumbers',
  'prospects',
  'sequences',
  'sequenceStates',
  'sequenceSteps',
  'sequenceTemplates',
  'snippets',
  'tasks',
  'templates',
  'users',
  'webhooks',
] as const;

/** The default scope string (space-separated). */
export const DEFAULT_SCOPES = DEFAULT_SCOPE_COLLECTIONS.map((c) => `${c}.all`).join(' ');

/**
 * Normalises `--scopes`: commas or whitespace between scopes, duplicates dropped.
 * Returns undefined for an empty list so that callers can report it.
 */
export function normaliseScopes(input: string): string | undefined {
  const list = [...new Set(input.split(/[\s,]+/).filter(Boolean))];
  return list.length ? list.join(' ') : undefined;
}

/** True when a scope has the spec's `<plural resource name>.<level>` shape. */
export function isScopeShaped(scope: string): boolean {
  return /^[A-Za-z][A-Za-z0-9]*\.(read|write|delete|all)$/.test(scope);
}

/** `has` with `missing` added (those `has` already holds, or covers with `.all`, left out), for a `svc login --scopes` line. */
export function scopesWith(has: readonly string[], missing: readonly string[]): string {
  const out = [...new Set(has)];
  for (const m of missing) if (!out.includes(m) && !out.includes(m.replace(/\.\w+$/, '.all'))) out.push(m);
  return out.join(' ');
}
