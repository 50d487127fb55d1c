/**
 * Anonymising a copy of an org, by an allow-list: only values known to carry no personal data
 * are copied as they are — numbers, booleans, timestamps, values of the spec's closed sets, the
 * API's own vocabulary in setting fields, time zones, and custom fields whose validation keeps
 * them to the org's vocabulary or numbers. Every other string (names, addresses, phone numbers,
 * free text, tags, the names of sequences, templates and teams, fields the registry types as
 * text) is replaced by a deterministic fake — an HMAC of the value under a key drawn for the
 * copy — so that the same value gives the same fake everywhere in one copy and joins and
 * duplicates survive, while nothing of the value is kept. Personal dates (date of birth) and
 * attributes the registry does not know (an org's fields beyond the published spec) are dropped.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { findAttribute, resourceByType, type AttributeSpec } from './registry/index.js';
import type { CustomFieldValidation } from './sandbox/data/org.js';

/** What a field holds, and so how it is faked. */
type FieldKind = 'name' | 'company' | 'email' | 'phone' | 'address' | 'domain' | 'url' | 'handle' | 'label' | 'tag' | 'text' | 'html';

/** Fields replaced in every type that has them, by their kind (any other string is 'text'). */
const COMMON: Record<string, FieldKind> = {
  firstName: 'name',
  lastName: 'name',
  middleName: 'name',
  nickname: 'name',
  naturalName: 'company',
  company: 'company',
  emails: 'email',
  email: 'email',
  externalOwner: 'email',
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
  externalId: 'handle',
  sharingTeamId: 'handle',
  tags: 'tag',
  emailSignature: 'html',
  optOutSignature: 'html',
  bodyHtml: 'html',
};

/** Fields whose meaning depends on the type. */
const BY_TYPE: Record<string, Record<string, FieldKind>> = {
  prospect: { name: 'name' },
  user: { name: 'name', username: 'handle' },
  account: { name: 'company' },
  // The org's own names: a rehearsal finds them through the copy's key (`--sequence NAME`).
  team: { name: 'label' },
  ruleset: { name: 'label' },
  stage: { name: 'label' },
  persona: { name: 'label' },
  sequence: { name: 'label' },
  sequenceStep: { displayName: 'label' },
  template: { name: 'label' },
  // Mail servers are named after the org's domain: mapped like it.
  mailbox: {
    username: 'email',
    smtpHost: 'domain',
    imapHost: 'domain',
    ewsEndpoint: 'url',
    mailRelayWebhookUrl: 'url',
  },
  phoneNumber: { number: 'phone' },
};

/**
 * String fields holding the API's own vocabulary (settings the sandbox's rules act on), kept
 * when the value is such a word ({@link VOCABULARY}); anything else in them is faked.
 */
const SETTINGS: Record<string, ReadonlySet<string>> = {
  ruleset: new Set(['callOptOutAction', 'emailOptOutAction', 'meetingBookedAction', 'smsOptOutAction', 'smsReceivedAction']),
  sequence: new Set(['primaryReplyAction']),
  mailbox: new Set(['emailProvider', 'providerType', 'sendMethod', 'syncMethod', 'exchangeVersion']),
  emailAddress: new Set(['emailType', 'status']),
  phoneNumber: new Set(['phoneType']),
  sequenceState: new Set(['pauseReason']),
  prospect: new Set(['externalSource']),
  account: new Set(['externalSource']),
};
/** A word or snake_case token of letters: the shape of the API's vocabulary (`opted_out`, `Valid`), not of a person's data. */
const VOCABULARY = /^[A-Za-z]{1,32}(?:_[A-Za-z]{1,32}){0,4}$/;
/** Time-zone fields: kept when the value names a time zone. */
const TIME_ZONES = new Set(['timeZone', 'timeZoneIana', 'timeZoneInferred']);
/** Dates that are schedules, not facts about a person (a prospect's `dateOfBirth` is dropped). */
const KEPT_DATES: Record<string, ReadonlySet<string>> = { sequenceStep: new Set(['date']) };
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NUMBER = /^-?\d{1,15}(?:\.\d{1,6})?$/;

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

function isTimeZone(v: string): boolean {
  if (v.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: v });
    return true;
  } catch {
    return false;
  }
}

/** True when `v` holds no string anywhere (numbers, booleans, null, lists and objects of those). */
function noStrings(v: unknown): boolean {
  if (typeof v === 'string') return false;
  if (Array.isArray(v)) return v.every(noStrings);
  if (v && typeof v === 'object') return Object.values(v).every(noStrings);
  return true;
}

/** A custom field's value that its validation keeps to the org's vocabulary or a number. */
function validCustom(v: CustomFieldValidation, value: unknown): boolean {
  if (typeof value === 'number' || typeof value === 'boolean') return true;
  if (typeof value !== 'string' && !Array.isArray(value)) return false;
  const items = Array.isArray(value) ? value : [value];
  if (!items.every((x) => typeof x === 'string')) return false;
  switch (v.type) {
    case 'inclusion':
    case 'multi_inclusion': {
      const allowed = Array.isArray(v.definition) ? new Set(v.definition) : undefined;
      const parts = v.type === 'multi_inclusion' && !Array.isArray(value) ? String(value).split(/\s*[;,]\s*/) : items;
      return allowed !== undefined && (parts as string[]).every((p) => p === '' || allowed.has(p));
    }
    case 'date':
      return items.every((x) => DATE_TIME.test(x as string));
    case 'boolean':
      return items.every((x) => /^(true|false)$/i.test(x as string));
    default:
      return items.every((x) => NUMBER.test((x as string).replace(/[$€£%\s]/g, '')));
  }
}

/** What the copy does with one attribute's value. */
type CopyRule = { keep: (v: unknown) => boolean } | { fake: FieldKind } | { drop: true };

const KEEP_ANY = { keep: () => true };
const DROP = { drop: true } as const;

/** The rule of one attribute of the registry. */
function registryRule(type: string, spec: AttributeSpec): CopyRule {
  const name = spec.name;
  const kind = BY_TYPE[type]?.[name] ?? COMMON[name] ?? (/Phones$/.test(name) ? 'phone' : undefined);
  if (kind) return { fake: kind };
  switch (spec.type) {
    case 'integer':
    case 'number':
      return { keep: (v) => typeof v === 'number' };
    case 'boolean':
      return { keep: (v) => typeof v === 'boolean' };
    case 'date-time':
      return { keep: (v) => typeof v === 'string' && DATE_TIME.test(v) };
    case 'date':
      return KEPT_DATES[type]?.has(name) ? { keep: (v) => typeof v === 'string' && DATE.test(v) } : DROP;
    case 'object':
    case 'array':
      return { keep: noStrings };
    case 'string[]':
      return { fake: 'text' };
    case 'string': {
      const values = spec.enum;
      if (values) return { keep: (v) => typeof v === 'string' && values.includes(v) };
      if (TIME_ZONES.has(name)) {
        // Each check builds an Intl formatter (~0.1 ms): a copy asks it once per record of the
        // few zones an org uses. The rule lives as long as its Anonymiser, so does what it saw.
        const seen = new Map<string, boolean>();
        return {
          keep: (v) => {
            if (typeof v !== 'string') return false;
            let ok = seen.get(v);
            if (ok === undefined) seen.set(v, (ok = isTimeZone(v)));
            return ok;
          },
        };
      }
      if (SETTINGS[type]?.has(name)) return { keep: (v) => typeof v === 'string' && VOCABULARY.test(v) };
      return { fake: 'text' };
    }
  }
}

/** The rule of an attribute of `type`: custom fields by their validation, the rest by the registry; unknown ones are dropped. */
function copyRule(type: string, attr: string, custom?: Record<string, CustomFieldValidation>): CopyRule {
  if (/^custom\d+$/.test(attr)) {
    const v = custom?.[attr];
    if (v && KEPT_CUSTOM.has(v.type)) return { keep: (value) => validCustom(v, value) };
    return { fake: v?.type === 'url' ? 'url' : 'text' };
  }
  const rt = resourceByType(type);
  const spec = rt ? findAttribute(rt, attr) : undefined;
  if (!spec || spec.writeOnly || spec.sensitive) return DROP;
  if (attr === 'id') return KEEP_ANY;
  return registryRule(type, spec);
}

/**
 * The kind of a field whose values a copy fakes, or undefined when it keeps (or drops) them:
 * what a rehearsal turns an input value of that field into.
 */
export function fieldKind(type: string, attr: string, custom?: Record<string, CustomFieldValidation>): FieldKind | undefined {
  const rule = copyRule(type, attr, custom);
  return 'fake' in rule ? rule.fake : undefined;
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
  /** type → attribute → its rule: a copy asks for the same few hundred thousands of times. */
  private readonly rules = new Map<string, Map<string, CopyRule>>();
  /** Names of attributes dropped because the registry does not know them, by type. */
  readonly dropped = new Map<string, Set<string>>();

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
    if (this.keepDomains && /^[a-z0-9.-]+$/.test(norm)) return norm;
    return `d${this.hash('domain', norm, 8)}.example`;
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
      case 'label':
        return `Label ${this.hash('label', v, 8)}`;
      case 'tag':
        return `tag-${this.hash('tag', v, 8)}`;
      case 'html':
        return `<p>anonymised ${this.hash('text', v, 12)}</p>`;
      case 'text':
        return `anonymised ${this.hash('text', v, 12)}`;
    }
  }

  /** The fake of the org's name (`shortName` too): the copy says nothing of whose it is. */
  orgName(v: string, short = false): string {
    return short ? `org-${this.hash('company', v, 8)}` : `Company ${this.hash('company', v, 8)}`;
  }

  /** A value of a field: strings and lists of strings are faked, anything else kept. */
  value(kind: FieldKind, v: unknown): unknown {
    if (typeof v === 'string') return v === '' ? v : this.fake(kind, v);
    if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' && x !== '' ? this.fake(kind, x) : x));
    return v;
  }

  private rule(type: string, attr: string, custom?: Record<string, CustomFieldValidation>): CopyRule {
    let byAttr = this.rules.get(type);
    if (!byAttr) this.rules.set(type, (byAttr = new Map()));
    let r = byAttr.get(attr);
    if (!r) byAttr.set(attr, (r = copyRule(type, attr, custom)));
    return r;
  }

  /** The kind an input value of `type.attr` is faked as in the copy, or undefined when the copy keeps it. */
  kind(type: string, attr: string, custom?: Record<string, CustomFieldValidation>): FieldKind | undefined {
    const r = this.rule(type, attr, custom);
    return 'fake' in r ? r.fake : undefined;
  }

  /**
   * Input values of a rehearsal as the copy holds them (a new object): values of faked fields
   * turned into their fakes, every other value as written — so that the copy's validation
   * refuses what production's would (an inclusion value outside its list is not dropped here).
   */
  input(type: string, attrs: Record<string, unknown>, custom?: Record<string, CustomFieldValidation>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(attrs)) {
      const kind = this.kind(type, k, custom);
      out[k] = kind ? this.value(kind, v) : v;
    }
    return out;
  }

  /**
   * A record's attributes as the copy holds them (a new object): kept where the allow-list
   * keeps the value, faked where the field is faked, dropped otherwise (a kept field holding
   * what it should not, such as text in a number field, is dropped too).
   */
  attributes(type: string, attrs: Record<string, unknown>, custom?: Record<string, CustomFieldValidation>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined) continue;
      const r = this.rule(type, k, custom);
      if ('fake' in r) {
        // A number where a string belongs (a phone number sent as digits) is faked like its text.
        const faked = this.value(r.fake, typeof v === 'number' ? String(v) : v);
        if (onlyFakes(faked)) out[k] = faked;
      } else if ('keep' in r) {
        if (r.keep(v)) out[k] = v;
      } else if (!/^custom\d+$/.test(k) && !findAttributeOf(type, k)) {
        let names = this.dropped.get(type);
        if (!names) this.dropped.set(type, (names = new Set()));
        names.add(k);
      }
    }
    return out;
  }
}

/** A faked value is a string or a list of strings: anything else in a faked field (an object) is dropped, not copied. */
function onlyFakes(faked: unknown): boolean {
  return typeof faked === 'string' || (Array.isArray(faked) && faked.every((x) => typeof x === 'string' || x === null));
}

function findAttributeOf(type: string, attr: string): AttributeSpec | undefined {
  const rt = resourceByType(type);
  return rt ? findAttribute(rt, attr) : undefined;
}
