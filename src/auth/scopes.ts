/**
 * The scopes `svc login` asks for when `--scopes` is not given: read, write and delete
 * (`<collection>.all`) on the collections most commands touch, and read (`.read`) on those
 * `svc sync` copies by default besides. Documented in docs/login.md; a user who needs less (or
 * more) passes `--scopes`.
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

/**
 * Collections only read by default: `svc sync` mirrors them with the org (prospects per stage,
 * per persona). Without them a default login's mirror could never be whole, and every
 * `svc sql` said to run a sync that could not fix it (a new user's trial).
 */
const DEFAULT_READ_COLLECTIONS = ['personas', 'stages'] as const;

/** The default scope string (space-separated). */
export const DEFAULT_SCOPES = [
  ...DEFAULT_SCOPE_COLLECTIONS.map((c) => `${c}.all`),
  ...DEFAULT_READ_COLLECTIONS.map((c) => `${c}.read`),
].join(' ');

/** The default before stages and personas joined it: a profile that asked for exactly that chose nothing. */
const EARLIER_DEFAULT = DEFAULT_SCOPE_COLLECTIONS.map((c) => `${c}.all`).join(' ');

/**
 * The scopes a login asks for: `--scopes`, else the profile's own (a login again keeps what it
 * chose), else the default. A profile holding the earlier default took it without choosing: it
 * gets today's, or it would never read what `svc sync` copies.
 */
export function scopesToAsk(flag: string | undefined, stored: string | undefined): string {
  if (flag !== undefined) return flag;
  return stored === undefined || normaliseScopes(stored) === EARLIER_DEFAULT ? DEFAULT_SCOPES : stored;
}

/** True when `has` holds `scope`, or covers it with `.all`. */
export function holdsScope(has: readonly string[], scope: string): boolean {
  return has.includes(scope) || has.includes(scope.replace(/\.\w+$/, '.all'));
}

/** `has` with `missing` added (those `has` already holds, or covers with `.all`, left out), for a `svc login --scopes` line. */
export function scopesWith(has: readonly string[], missing: readonly string[]): string {
  const out = [...new Set(has)];
  for (const m of missing) if (!holdsScope(out, m)) out.push(m);
  return out.join(' ');
}

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
