/**
 * Whose a side file is: the org a journal's rows were done in, or an export's `.part` was read
 * from, and the command that did it. A side file is only ever continued by the same owner: the
 * rows a rehearsal did on a copy, or a staging run did, are not done in production.
 *
 * The org is where the rows went — the API (its base URL; for a local sandbox, whose port can
 * change between runs, the org's own instance id instead), the org id and the user the token
 * acts for — as `GET {base_url}` tells them. A leaf module: data and comparisons only.
 */

/** The owner of a side file. */
export interface SideOwner {
  /** The API's base URL. */
  api: string;
  /** A local sandbox org's instance id: set, it stands for the org in place of the base URL. */
  instance?: string;
  /** The org id, when the API says it. */
  org?: string;
  /** The org's name, for messages only. */
  orgName?: string;
  /** The id of the user the token acts for, when the API says it. */
  user?: string;
  /** The command: `prospects upsert`, `enroll`, `prospects export`. */
  command: string;
}

/** The base URL as compared: scheme and host in lower case, no trailing slash. */
function apiKey(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`.toLowerCase();
  } catch {
    return url;
  }
}

/** What two owners must share to be one: the org (instance, or API + org id), the user and the command. */
export function ownerKey(o: SideOwner): string {
  const where = o.instance !== undefined ? `sandbox:${o.instance}` : apiKey(o.api);
  return JSON.stringify([where, o.org ?? null, o.user ?? null, o.command]);
}

export function sameOwner(a: SideOwner, b: SideOwner): boolean {
  return ownerKey(a) === ownerKey(b);
}

/** `prospects upsert on org "Acme" (1) at https://api.example.com/api/v2 as user 3`. */
export function describeOwner(o: SideOwner): string {
  const org =
    o.orgName !== undefined
      ? `org "${o.orgName}"${o.org !== undefined ? ` (${o.org})` : ''}`
      : o.org !== undefined
        ? `org ${o.org}`
        : 'the org';
  const where = o.instance !== undefined ? `the local sandbox org ${o.instance}` : o.api;
  return `${o.command} on ${org} at ${where}${o.user !== undefined ? ` as user ${o.user}` : ''}`;
}

/** An owner as read back from a file; undefined when it is not one. */
export function parseOwner(v: unknown): SideOwner | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.api !== 'string' || typeof o.command !== 'string') return undefined;
  const out: SideOwner = { api: o.api, command: o.command };
  for (const k of ['instance', 'org', 'orgName', 'user'] as const) if (typeof o[k] === 'string') out[k] = o[k];
  return out;
}
