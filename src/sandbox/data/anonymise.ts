/**
 * Anonymising a copy of an org: names, e-mail local parts, phone numbers, addresses, free text
 * and string custom fields are replaced by deterministic fakes — an HMAC of the value under a key
 * drawn for the copy — so that the same value gives the same fake everywhere in one copy and
 * joins and duplicates survive, while nothing of the value is kept. Values the org's rules act
 * on (inclusion lists, numbers, dates, states, ids) are kept.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { CustomFieldValidation } from './org.js';

/** What a field holds, and so how it is faked. */
type FieldKind = 'name' | 'company' | 'email' | 'phone' | 'address' | 'domain' | 'url' | 'handle' | 'text' | 'html';

/** Fields replaced in every type that has them. */
const COMMON: Record<string, FieldKind> = {
  firstName: 'name',
  lastName: 'name',
  middleName: 'name',
  nickname: 'name',
  naturalName: 'company',
  company: 'company',
  emails: 'email',
  email: 'email',
  smtpUsername: 'email',
  ccRecipients: 'email',
  addressCity: 'address',
  addressCountry: 'address',
  addressState: 'address',
  addressStreet: 'address',
  addressZip: 'address',
  region: 'address',
  locality: 'address',
  domain: 'domain',
  websiteUrl: 'url',
  websiteUrl1: 'url',
  websiteUrl2: 'url',
  websiteUrl3: 'url',
  socialNetUrl: 'url',
  socialNet2Url: 'url',
  proNetUrl: 'url',
  codeHostUrl: 'url',
  qaSiteUrl: 'url',
  qaSite2Url: 'url',
  microblogUrl: 'url',
  codeHostUsername: 'handle',
  microblogUsername: 'handle',
  proNetSlug: 'handle',
  proNetId: 'handle',
  qaSiteId: 'handle',
  personalNote1: 'text',
  personalNote2: 'text',
  description: 'text',
  taskNote: 'text',
  subject: 'text',
  specialties: 'text',
  school: 'text',
  degree: 'text',
  eventName: 'text',
  emailSignature: 'html',
  optOutMessage: 'text',
  optOutSignature: 'html',
  bodyHtml: 'html',
  bodyText: 'text',
  note: 'text',
};

/** Fields whose meaning depends on the type. */
const BY_TYPE: Record<string, Record<string, FieldKind>> = {
  prospect: { name: 'name' },
  user: { name: 'name', username: 'handle' },
  account: { name: 'company' },
  // Mail servers are named after the org's domain: mapped like it.
  mailbox: {
    username: 'email',
    smtpHost: 'domain',
    imapHost: 'domain',
    ewsEndpoint: 'url',
    mailRelayWebhookUrl: 'url',
    prospectEmailExclusions: 'text',
  },
  phoneNumber: { number: 'phone' },
};

/** Validation types whose values are the org's own vocabulary or numbers, not personal data. */
const KEPT_CUSTOM = new Set([
  'inclusion',
  'multi_inclusion',
  'numerical',
  'currency',
  'percentage',
  'date',
  'boolean',
  'integer',
  'decimal',
]);

/** The kind of a field, or undefined when it is kept as it is. */
export function fieldKind(type: string, attr: string, custom?: Record<string, CustomFieldValidation>): FieldKind | undefined {
  if (/^custom\d+$/.test(attr)) {
    const v = custom?.[attr];
    if (v && KEPT_CUSTOM.has(v.type)) return undefined;
    return v?.type === 'url' ? 'url' : 'text';
  }
  if (/Phones$/.test(attr)) return 'phone';
  return BY_TYPE[type]?.[attr] ?? COMMON[attr];
}

/** Options of an {@link Anonymiser}. */
interface AnonymiseOptions {
  /** Hex key; a new random one when absent (a resumed copy passes the one it started with). */
  key?: string;
  /** Keep e-mail and web domains as they are instead of mapping them to fake ones. */
  keepDomains?: boolean;
}

/** Deterministic fakes for one copy. */
export class Anonymiser {
  readonly key: string;
  private readonly keepDomains: boolean;

  constructor(opts: AnonymiseOptions = {}) {
    this.key = opts.key ?? randomBytes(32).toString('hex');
    this.keepDomains = opts.keepDomains === true;
  }

  private hash(kind: string, value: string, n = 10): string {
    return createHmac('sha256', Buffer.from(this.key, 'hex')).update(`${kind}\0${value}`).digest('hex').slice(0, n);
  }

  /** A domain kept or mapped: the same domain always maps to the same fake one. */
  domain(d: string): string {
    const norm = d.trim().toLowerCase();
    return this.keepDomains ? norm : `d${this.hash('domain', norm, 8)}.example`;
  }

  private email(v: string): string {
    const at = v.lastIndexOf('@');
    // Addresses compare without case: the fake must too, or duplicates would be lost.
    const norm = v.trim().toLowerCase();
    if (at < 0) return `u${this.hash('email', norm)}`;
    return `u${this.hash('email', norm.slice(0, norm.lastIndexOf('@')))}@${this.domain(norm.slice(norm.lastIndexOf('@') + 1))}`;
  }

  private phone(v: string): string {
    // Formatting differs between records of one number: the digits identify it.
    // +999 is no country's code: a fake can never be someone's real number.
    const digits = BigInt(`0x${this.hash('phone', v.replace(/\D/g, ''), 12)}`) % 10_000_000_000n;
    const s = digits.toString().padStart(10, '0');
    return `+999 ${s.slice(0, 3)} ${s.slice(3, 6)} ${s.slice(6)}`;
  }

  private url(v: string): string {
    let host = 'example.invalid';
    try {
      host = this.domain(new URL(v).hostname.replace(/^www\./, ''));
    } catch {
      /* not a URL: a fake path on a fake host still passes a url validation */
    }
    return `https://${host}/${this.hash('url', v, 8)}`;
  }

  /** The fake of one string value of a field of `kind`. */
  fake(kind: FieldKind, v: string): string {
    switch (kind) {
      case 'name':
        return `Name ${this.hash('name', v, 8)}`;
      case 'company':
        return `Company ${this.hash('company', v, 8)}`;
      case 'email':
        return this.email(v);
      case 'phone':
        return this.phone(v);
      case 'address':
        return `Place ${this.hash('address', v, 8)}`;
      case 'domain':
        return this.domain(v);
      case 'url':
        return this.url(v);
      case 'handle':
        return `h${this.hash('handle', v, 10)}`;
      case 'html':
        return `<p>anonymised ${this.hash('text', v, 12)}</p>`;
      case 'text':
        return `anonymised ${this.hash('text', v, 12)}`;
    }
  }

  /** A value of a field: strings and lists of strings are faked, anything else kept. */
  value(kind: FieldKind, v: unknown): unknown {
    if (typeof v === 'string') return v === '' ? v : this.fake(kind, v);
    if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' && x !== '' ? this.fake(kind, x) : x));
    return v;
  }

  /** A record's attributes with every anonymised field replaced (a new object). */
  attributes(type: string, attrs: Record<string, unknown>, custom?: Record<string, CustomFieldValidation>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(attrs)) {
      const kind = fieldKind(type, k, custom);
      out[k] = kind ? this.value(kind, v) : v;
    }
    return out;
  }
}
