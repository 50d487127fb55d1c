/**
 * E-mail addresses as a duplicate key: trimmed and lower-cased, the `+tag` of a sub-address
 * dropped (`ada+webinar@x.com` is `ada@x.com`: providers deliver both to one mailbox), and the
 * dots of the local part dropped at the providers that ignore them ({@link DOTLESS_PROVIDERS}).
 * Role addresses (`info@`, `sales@`) are shared by a team, so they are no evidence that two
 * records are one person: {@link isRoleAddress}.
 */

/**
 * Providers that deliver `a.da@` and `ada@` to one mailbox, and the domain they are known by:
 * Google's two consumer domains are one mailbox. Other providers (Outlook, Yahoo, company
 * domains) treat dots as part of the name, so they are left alone.
 */
const DOTLESS_PROVIDERS: Readonly<Record<string, string>> = {
  'gmail.com': 'gmail.com',
  'googlemail.com': 'gmail.com',
};

/** Local parts that name a function, not a person (shared inboxes). */
const ROLE_LOCAL_PARTS = new Set([
  'admin',
  'billing',
  'careers',
  'contact',
  'enquiries',
  'hello',
  'help',
  'hr',
  'info',
  'inquiries',
  'jobs',
  'marketing',
  'noreply',
  'no-reply',
  'office',
  'postmaster',
  'sales',
  'support',
  'team',
  'webmaster',
]);

/** The normalised form of an address, or undefined when it is not one (`name@domain.tld`). */
export function normaliseEmail(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const s = raw.trim().toLowerCase();
  const at = s.lastIndexOf('@');
  if (at <= 0 || at === s.length - 1 || /\s/.test(s)) return undefined;
  let local = s.slice(0, at);
  let domain = s.slice(at + 1);
  if (!domain.includes('.')) return undefined;
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  const provider = DOTLESS_PROVIDERS[domain];
  if (provider !== undefined) {
    local = local.replace(/\./g, '');
    domain = provider;
  }
  return local ? `${local}@${domain}` : undefined;
}

/** True for a shared address (`info@`, `sales@`): given a normalised address. */
export function isRoleAddress(normalised: string): boolean {
  return ROLE_LOCAL_PARTS.has(normalised.slice(0, normalised.indexOf('@')));
}

/** The domain of a normalised address. */
export function emailDomain(normalised: string): string {
  return normalised.slice(normalised.indexOf('@') + 1);
}

/** Consumer mail domains: an address there says nothing about the company. */
export const FREE_MAIL = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'proton.me',
  'protonmail.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'mail.com',
]);
