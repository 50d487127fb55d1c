/**
 * Building the org schema from what the service returns, and using it: custom-field labels as
 * attribute names, checks of custom values and of attributes the spec does not show.
 */
import { checkValue } from '../api/validate.js';
import { UsageError } from '../errors.js';
import { findAttribute, resourceByType, RESOURCES, type AttributeSpec, type ResourceType } from '../registry/index.js';
import { looseName } from '../registry/name-match.js';
import { checkCustomValue, fieldName, holdsNumbers } from './custom-values.js';
import { attributesFromOpenApi } from './openapi-fields.js';
import { ORG_SCHEMA_VERSION, type CustomField, type OrgSchema, type OrgType } from './types.js';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Custom fields from a `GET /types` document, by type then field name. */
export function customFieldsFromTypes(doc: unknown): Map<string, Record<string, CustomField>> {
  const out = new Map<string, Record<string, CustomField>>();
  const data = isObject(doc) && Array.isArray(doc.data) ? doc.data : [];
  for (const entry of data) {
    if (!isObject(entry) || typeof entry.type !== 'string') continue;
    const validations = isObject(entry.meta) && isObject(entry.meta.validations) ? entry.meta.validations : {};
    const fields: Record<string, CustomField> = {};
    for (const [name, v] of Object.entries(validations)) {
      if (!isObject(v)) continue;
      const def = v.definition;
      fields[name] = {
        name,
        type: typeof v.type === 'string' ? v.type : 'string',
        required: v.required === true,
        label: typeof v.label === 'string' ? v.label : '',
        definition:
          typeof def === 'string' || (Array.isArray(def) && def.every((d) => typeof d === 'string')) ? (def as string | string[]) : null,
      };
    }
    out.set(entry.type, fields);
  }
  return out;
}

/** Builds the cache content from the OpenAPI document and the `/types` document. */
export function buildOrgSchema(openapi: unknown, typesDoc: unknown, info: { profile: string; baseUrl: string; now: number }): OrgSchema {
  const fromOpenApi = attributesFromOpenApi(openapi, (t) => resourceByType(t)?.path);
  const custom = customFieldsFromTypes(typesDoc);
  const types: Record<string, OrgType> = {};
  const unknown = new Set<string>();
  for (const name of new Set([...fromOpenApi.keys(), ...custom.keys()])) {
    const rt = resourceByType(name);
    if (!rt) {
      unknown.add(name);
      continue;
    }
    const extraAttributes = (fromOpenApi.get(name) ?? []).filter((a) => !findAttribute(rt, a.name));
    const customFields = custom.get(name) ?? {};
    if (extraAttributes.length || Object.keys(customFields).length) types[name] = { extraAttributes, customFields };
  }
  return {
    version: ORG_SCHEMA_VERSION,
    profile: info.profile,
    baseUrl: info.baseUrl,
    pulledAt: new Date(info.now).toISOString(),
    types,
    unknownTypes: [...unknown].sort(),
  };
}

/** A problem with one field (same shape as the api layer's FieldProblem). */
interface OrgFieldProblem {
  field: string;
  reason: string;
}

/**
 * The attribute a name means. `holdsNumbers`: a custom field whose values are numbers written as
 * text (numerical, percentage, currency), whose filters read full-width digits as `--attr` does.
 */
interface ResolvedName {
  name: string;
  spec: AttributeSpec;
  holdsNumbers?: true;
}

/** One type seen through the org schema. */
export interface OrgTypeView {
  /**
   * The attribute a name given by a user means, when the registry does not know it as written:
   * a custom-field label (case and spacing ignored) or an attribute only the org shows.
   */
  resolve(key: string): ResolvedName | undefined;
  /**
   * Checks (and normalises in place) attributes about to be written: custom values against
   * their validation type, org-only attributes against their type; on create, required custom
   * fields must be present.
   */
  /** `semicolonFile`: values of a `;`-separated CSV file, where a number may have a decimal comma. */
  apply(attributes: Record<string, unknown>, forUpdate: boolean, semicolonFile?: boolean): OrgFieldProblem[];
  /** Labelled custom fields. */
  customFields: CustomField[];
  /** Attributes only the org shows. */
  extraAttributes: AttributeSpec[];
}

/** Labels match as every name does (registry/name-match.ts): case, spaces and punctuation aside. */
const normLabel = looseName;

/** The view of one type; undefined when the org adds nothing to it. */
/** The registry's type of a custom field whose org type says more: its dates are dates. */
const DATED: Record<string, AttributeSpec['type']> = { date: 'date', date_time: 'date-time' };

/**
 * A custom field's attribute, with a picklist's (`inclusion`) options as its enum, and a date or
 * date-time field typed so: a filter's `today` or `7d..` on it was sent as written and matched
 * nothing (a trial), where the registry's date fields have them turned into days.
 */
function withOptions(rt: ResourceType, f: CustomField): AttributeSpec {
  const base = findAttribute(rt, f.name) ?? { name: f.name, type: 'string' as const };
  const dated = Object.hasOwn(DATED, f.type) ? DATED[f.type] : undefined;
  const spec = dated ? { ...base, type: dated } : base;
  const options = f.type === 'inclusion' && Array.isArray(f.definition) ? f.definition.filter((o) => typeof o === 'string') : undefined;
  return options?.length ? { ...spec, enum: options } : spec;
}

/** What a custom field's name or label resolves to. */
function customName(rt: ResourceType, f: CustomField): ResolvedName {
  const spec = withOptions(rt, f);
  return holdsNumbers(f) ? { name: f.name, spec, holdsNumbers: true } : { name: f.name, spec };
}

export function orgTypeView(schema: OrgSchema, rt: ResourceType): OrgTypeView | undefined {
  const t = schema.types[rt.type];
  if (!t) return undefined;
  const customFields = Object.values(t.customFields);
  const extras = new Map(t.extraAttributes.map((a) => [a.name, a]));
  return {
    customFields,
    extraAttributes: t.extraAttributes,
    resolve(key) {
      const extra = extras.get(key);
      if (extra) return { name: key, spec: extra };
      // A picklist by its field name: its options as the spec's enum, so that a filter's value is
      // folded to an option's case or refused, as `--attr` does (`custom1=webinar` matched
      // nothing, a review).
      const own = Object.hasOwn(t.customFields, key) ? t.customFields[key] : undefined;
      if (own) return customName(rt, own);
      const wanted = normLabel(key);
      // A name of punctuation alone is no label's.
      const hits = wanted === '' ? [] : customFields.filter((f) => f.label && normLabel(f.label) === wanted);
      if (hits.length > 1) {
        throw new UsageError(
          `"${key}" is the label of several custom fields of ${rt.type} (${hits.map((f) => f.name).join(', ')}): use the field name`,
        );
      }
      if (hits.length === 1) return customName(rt, hits[0]!);
      return undefined;
    },
    apply(attributes, forUpdate, semicolonFile) {
      const problems: OrgFieldProblem[] = [];
      for (const [name, value] of Object.entries(attributes)) {
        const f = Object.hasOwn(t.customFields, name) ? t.customFields[name] : undefined;
        if (f) {
          const r = checkCustomValue(f, value, semicolonFile);
          if ('problem' in r) problems.push({ field: fieldName(f), reason: r.problem });
          else attributes[name] = r.value;
          continue;
        }
        const extra = extras.get(name);
        if (!extra) continue;
        if (extra.readOnly) problems.push({ field: name, reason: `is read-only on ${rt.type}` });
        else {
          const reason = checkValue(extra, value);
          if (reason) problems.push({ field: name, reason });
        }
      }
      if (!forUpdate) {
        for (const f of customFields) {
          if (f.required && (attributes[f.name] === undefined || attributes[f.name] === null || attributes[f.name] === '')) {
            problems.push({ field: fieldName(f), reason: 'is required by your organization' });
          }
        }
      }
      return problems;
    },
  };
}

/** Labels that more than one custom field of a type shares (they cannot be used as names). */
export function ambiguousLabels(schema: OrgSchema): { type: string; label: string; fields: string[] }[] {
  const out: { type: string; label: string; fields: string[] }[] = [];
  for (const rt of RESOURCES) {
    const t = schema.types[rt.type];
    if (!t) continue;
    const byLabel = new Map<string, string[]>();
    for (const f of Object.values(t.customFields)) {
      if (!f.label) continue;
      const k = normLabel(f.label);
      if (k === '') continue;
      byLabel.set(k, [...(byLabel.get(k) ?? []), f.name]);
    }
    for (const [, fields] of byLabel) if (fields.length > 1) out.push({ type: rt.type, label: t.customFields[fields[0]!]!.label, fields });
  }
  return out;
}
