/**
 * Who a token belongs to, from the document of `GET {base_url}`. The spec does not show its
 * fields, so this looks where servers put them: `meta.user`, a `user` resource in `data`, or
 * `data.attributes` of the token's owner.
 */

/** The user stored in a profile and shown by `auth status`. */
interface TokenUser {
  id?: number | string;
  name?: string;
  email?: string;
}

/** What `GET {base_url}` told about the token. */
export interface RootInfo {
  user?: TokenUser;
  organization?: string;
  /** The org's id, when the server says it. */
  organizationId?: string;
  /** A local sandbox org's instance id (sandbox orgs share ids with the orgs they copy). */
  organizationInstance?: string;
  scopes?: string[];
  application?: string;
  /** Seconds the token has left, when the server says. */
  expiresIn?: number;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function userFrom(v: Record<string, unknown> | undefined): TokenUser | undefined {
  if (!v) return undefined;
  const attrs = obj(v.attributes) ?? v;
  const u: TokenUser = {};
  const id = v.id ?? attrs.id;
  if (typeof id === 'string' || typeof id === 'number') u.id = id;
  const name = attrs.name ?? ([attrs.firstName, attrs.lastName].filter((x) => typeof x === 'string').join(' ') || undefined);
  if (typeof name === 'string' && name) u.name = name;
  if (typeof attrs.email === 'string' && attrs.email) u.email = attrs.email;
  return Object.keys(u).length ? u : undefined;
}

/** Extracts what is known about the token from the root document. */
export function parseRoot(doc: unknown): RootInfo {
  const d = obj(doc) ?? {};
  const meta = obj(d.meta) ?? {};
  const data = obj(d.data);
  const info: RootInfo = {};
  const user = userFrom(obj(meta.user)) ?? (data?.type === 'user' ? userFrom(data) : undefined);
  if (user) info.user = user;
  const org = obj(meta.organization);
  if (typeof org?.name === 'string') info.organization = org.name;
  if (typeof org?.id === 'string' || typeof org?.id === 'number') info.organizationId = String(org.id);
  if (typeof org?.instance === 'string') info.organizationInstance = org.instance;
  const token = obj(meta.token);
  if (typeof token?.expiresIn === 'number') info.expiresIn = token.expiresIn;
  const scopes = token?.scopes;
  if (Array.isArray(scopes)) info.scopes = scopes.filter((s): s is string => typeof s === 'string');
  const app = obj(meta.application);
  if (typeof app?.name === 'string') info.application = app.name;
  return info;
}

/** `Ada Lovelace <ada@example.com> (user 3)`, or whatever part is known. */
export function describeUser(u: TokenUser | undefined): string | undefined {
  if (!u) return undefined;
  const parts: string[] = [];
  if (u.name) parts.push(u.name);
  if (u.email) parts.push(u.name ? `<${u.email}>` : u.email);
  if (u.id !== undefined) parts.push(parts.length ? `(user ${u.id})` : `user ${u.id}`);
  return parts.join(' ') || undefined;
}
