/**
 * The one resolver of field names as people write them: CSV headers and NDJSON keys of bulk
 * input, and the names of `--filter`, `--sort`, `--fields`, `--columns`, `--json` and `--attr`.
 * A name is, in this order: a field as written; the same field spelled another way (case,
 * spaces, punctuation, a plural `s`: `First Name`, `E-mail`, `account_id`); a custom-field label
 * or an org-only attribute (the org schema, given by the caller, spelled loosely too); and, for
 * headers only, a common synonym (`Job Title` → title, `Phone` → workPhones, `Account Name` → the
 * account relationship by name). Two different fields for one name is an ambiguity the caller
 * reports, naming both: nothing is guessed.
 */
import { findAttribute, findRelationship } from './index.js';
import type { ResourceType } from './types.js';

/** What the org schema says about names (src/org-schema: an `OrgTypeView` is one). */
export interface OrgLabels {
  customFields: readonly { name: string; label: string }[];
  extraAttributes: readonly { name: string }[];
}

/** How a name was matched. */
type MatchedBy = 'name' | 'spelling' | 'label' | 'synonym' | 'map';

/** The field a name means. */
export interface FieldMatch {
  /** An attribute, a relationship, `rel.id`, `id` or `type`. */
  field: string;
  by: MatchedBy;
  /** The custom field's label, when matched by it. */
  label?: string;
  /** Cells name the related record (`Account Name` → account as `name:<cell>`). */
  named?: 'name';
}

/** A name matched to one field, to several (ambiguous), or to none. */
type NameMatch = { match: FieldMatch } | { ambiguous: FieldMatch[] } | undefined;

/**
 * `First Name`, `first_name`, `E-Mail` → `firstname`, `firstname`, `email`: the spelling ignored
 * (case, accents, width, spaces and punctuation), the letters and digits of every script kept.
 * Keeping only a-z and 0-9 made every Japanese, Cyrillic or Greek header one empty name, so a
 * `--map 会社名=company` set company from the column 部署 (a trial). NFKD folds full-width
 * `ＡＢＣ` and half-width `ﾒｰﾙ`; NFC after the accents are dropped puts back the marks that are
 * part of a letter (`ガ` is not `カ`); a final sigma is a sigma.
 */
export function looseName(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/ς/g, 'σ')
    .replace(/[^\p{L}\p{N}\p{M}]/gu, '');
}

/** Loose names equal, a final `s` on either side aside (`Work Phone` is `workPhones`). */
function sameLoose(a: string, b: string): boolean {
  if (a === b) return a !== '';
  return a.length > 1 && b.length > 1 && (a === `${b}s` || b === `${a}s`);
}

/** A synonym's target: a field, or a relationship whose cells are names; `only` limits it to one type. */
interface Target {
  field: string;
  named?: 'name';
  only?: string;
}

const t = (field: string, only?: string): Target => (only ? { field, only } : { field });
const byName = (rel: string): Target => ({ field: rel, named: 'name' });

/**
 * Headers spreadsheets and CRMs export, loosely spelled, with the fields they mean in order of
 * preference: the first one the type has is taken.
 */
const SYNONYMS: ReadonlyMap<string, readonly Target[]> = new Map(
  (
    [
      [
        ['email', 'emailaddress', 'mail', 'workemail', 'businessemail', 'emailaddresses'],
        [t('emails'), t('email')],
      ],
      [
        ['phone', 'phonenumber', 'telephone', 'tel', 'workphone', 'businessphone', 'officephone', 'directphone', 'directdial'],
        [t('workPhones'), t('phone')],
      ],
      [
        ['mobile', 'mobilephone', 'mobilenumber', 'cell', 'cellphone'],
        [t('mobilePhones'), t('mobile')],
      ],
      [
        ['company', 'companyname', 'organization', 'organisation', 'employer'],
        [t('company'), byName('account'), t('name', 'account')],
      ],
      [['accountname'], [byName('account'), t('name', 'account')]],
      [['jobtitle', 'position', 'designation'], [t('title')]],
      [['givenname', 'forename'], [t('firstName')]],
      [['surname', 'familyname'], [t('lastName')]],
      [['city', 'town'], [t('addressCity')]],
      [['state', 'province', 'stateprovince'], [t('addressState')]],
      [['country'], [t('addressCountry')]],
      [['zip', 'zipcode', 'postalcode', 'postcode'], [t('addressZip')]],
      [['street', 'address', 'streetaddress'], [t('addressStreet')]],
      [
        ['website', 'web', 'url'],
        [t('websiteUrl1'), t('websiteUrl'), t('url')],
      ],
    ] as const
  ).flatMap(([keys, targets]) => keys.map((k) => [k, targets] as const)),
);

/** The fields a type has by name: attributes, relationships, `rel.id`, `id`, `type`. */
function fieldNames(rt: ResourceType): string[] {
  return ['id', 'type', ...rt.attributes.map((a) => a.name), ...rt.relationships.flatMap((r) => [r.name, `${r.name}.id`])];
}

/** True when the type has the field as written. */
function hasField(rt: ResourceType, name: string): boolean {
  if (name === 'id' || name === 'type') return true;
  if (findAttribute(rt, name) || findRelationship(rt, name)) return true;
  return name.endsWith('.id') && findRelationship(rt, name.slice(0, -3)) !== undefined;
}

/** Distinct by field (and how its cells are read). */
function distinct(matches: FieldMatch[]): FieldMatch[] {
  const seen = new Map<string, FieldMatch>();
  for (const m of matches) {
    const key = `${m.field}${m.named ? '@name' : ''}`;
    if (!seen.has(key)) seen.set(key, m);
  }
  return [...seen.values()];
}

/**
 * The field a name means for `rt`.
 * @param org the org schema's labels and extra attributes, when known
 * @param synonyms also try the synonyms of headers (bulk input; not for flags, where names are typed)
 */
export function matchFieldName(rt: ResourceType, given: string, org?: OrgLabels, synonyms = false): NameMatch {
  const name = given.trim();
  if (name === '') return undefined;
  if (hasField(rt, name)) return { match: { field: name, by: 'name' } };
  if (org?.extraAttributes.some((a) => a.name === name)) return { match: { field: name, by: 'name' } };
  const loose = looseName(name);
  const found: FieldMatch[] = [];
  for (const f of fieldNames(rt)) if (sameLoose(looseName(f), loose)) found.push({ field: f, by: 'spelling' });
  // `Custom 2` → custom2 (custom fields are a pattern, not listed).
  const custom = /^custom([1-9]\d{0,2})$/.exec(loose);
  if (custom && findAttribute(rt, `custom${custom[1]}`)) found.push({ field: `custom${custom[1]}`, by: 'spelling' });
  for (const a of org?.extraAttributes ?? []) if (sameLoose(looseName(a.name), loose)) found.push({ field: a.name, by: 'spelling' });
  for (const f of org?.customFields ?? [])
    if (f.label && loose !== '' && looseName(f.label) === loose) found.push({ field: f.name, by: 'label', label: f.label });
  if (synonyms && !found.some((m) => m.by === 'spelling')) {
    const targets = SYNONYMS.get(loose) ?? (loose === `${looseName(rt.type)}id` ? [t('id')] : undefined);
    const hit = targets?.find((x) => (x.only === undefined || x.only === rt.type) && hasField(rt, x.field));
    if (hit) found.push({ field: hit.field, by: 'synonym', ...(hit.named ? { named: hit.named } : {}) });
  }
  const all = distinct(found);
  if (all.length === 0) return undefined;
  // `emails` and `email` both spelled alike: the one written exactly so (bar case) wins.
  if (all.length > 1) {
    const exact = all.filter((m) => m.by === 'spelling' && looseName(m.field) === loose);
    if (exact.length === 1 && all.every((m) => m.by === 'spelling')) return { match: exact[0]! };
    return { ambiguous: all };
  }
  return { match: all[0]! };
}

/** A match as a user reads it: `custom2 (label "Lead Score")`, `account (by name)`. */
export function describeMatch(m: FieldMatch): string {
  if (m.label) return `${m.field} (label "${m.label}")`;
  if (m.named) return `${m.field} (by name)`;
  return m.field;
}
