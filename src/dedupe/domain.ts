/**
 * An account's domain as a duplicate key: the registrable domain of a domain or web address,
 * lower-cased, without scheme, port, path, `www.` or any other subdomain: `https://www.acme.com/about`,
 * `ACME.com` and `eu.acme.com` are all `acme.com`; `shop.acme.co.uk` is `acme.co.uk`.
 *
 * The registrable domain is the label before the public suffix. Rather than the whole public
 * suffix list, {@link MULTI_LABEL_SUFFIXES} holds the two-label suffixes under which companies
 * commonly register (`co.uk`, `com.au`, …); any other domain's suffix is its last label. A
 * domain under a suffix missing here keeps one label too many (`acme.gov.xx` stays as is),
 * which can only miss a match, never make a false one.
 */
const MULTI_LABEL_SUFFIXES = new Set([
  'co.uk',
  'org.uk',
  'ac.uk',
  'gov.uk',
  'ltd.uk',
  'plc.uk',
  'me.uk',
  'com.au',
  'net.au',
  'org.au',
  'co.nz',
  'org.nz',
  'co.jp',
  'ne.jp',
  'or.jp',
  'co.in',
  'net.in',
  'org.in',
  'co.za',
  'com.br',
  'com.mx',
  'com.cn',
  'com.sg',
  'com.hk',
  'co.kr',
  'com.tr',
  'co.il',
  'com.ar',
  'co.at',
  'or.at',
]);

/** The registrable domain of a domain or URL, or undefined when there is none. */
export function registrableDomain(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  let s = raw.trim().toLowerCase();
  if (!s) return undefined;
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  s = s.replace(/^[^@/]*@/, '');
  s = s.split(/[/?#:]/, 1)[0]!.replace(/\.+$/, '');
  const labels = s.split('.');
  if (labels.length < 2 || labels.some((l) => !/^[a-z0-9-]+$/.test(l))) return undefined;
  const take = labels.length >= 3 && MULTI_LABEL_SUFFIXES.has(labels.slice(-2).join('.')) ? 3 : 2;
  return labels.slice(-take).join('.');
}
