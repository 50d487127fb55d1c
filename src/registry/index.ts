/**
 * The resource registry: every type of the API with its fields, operations and actions,
 * and the lookups the other layers use. Pure data; imports nothing outside this folder but a leaf of src/ (`ascii-forms.ts`).
 */
import { RESOURCE_TYPES } from './data/index.js';
import { camel } from './define.js';
export { kebab } from './define.js';
import { CUSTOM_FIELD_COUNT, type AttributeSpec, type ResourceType } from './types.js';

export * from './types.js';
export { decimalCommaNumber, httpsUrlProblem, isEmailAddress } from './formats.js';

/**
 * All resource types, sorted by type name (case-insensitively, then by code unit: what
 * `localeCompare` gives for these ASCII names, without the ~7 ms of loading ICU's collator at
 * every start-up).
 */
export const RESOURCES: readonly ResourceType[] = [...RESOURCE_TYPES].sort((a, b) => compareNames(a.type, b.type));

// Performance machinery (src/README.md, Build): no ICU collator at start.
function compareNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const byType = new Map(RESOURCES.map((r) => [r.type, r]));
const byName = new Map<string, ResourceType>();
for (const r of RESOURCES) {
  byName.set(r.command, r);
  byName.set(r.path, r);
}

/** Type by singular name (`sequenceState`). */
export function resourceByType(type: string): ResourceType | undefined {
  return byType.get(type);
}

/**
 * Type by any name a user may type: command (`sequence-states`), collection (`sequenceStates`),
 * or singular type (`sequenceState`, `sequence-state`).
 */
export function findResource(name: string): ResourceType | undefined {
  return byName.get(name) ?? byName.get(camel(name)) ?? byType.get(name) ?? byType.get(camel(name));
}

const customCache = new Map<string, AttributeSpec[]>();

/** `custom1`..`custom150` as attribute specs (strings, filterable as the service allows). */
function customFieldAttributes(rt: ResourceType): AttributeSpec[] {
  if (!rt.customFields) return [];
  let list = customCache.get(rt.type);
  if (!list) {
    list = [];
    const declared = new Map(rt.attributes.map((a) => [a.name, a]));
    for (let i = 1; i <= CUSTOM_FIELD_COUNT; i++) {
      const name = `custom${i}`;
      list.push(declared.get(name) ?? { name, type: 'string' });
    }
    customCache.set(rt.type, list);
  }
  return list;
}

/**
 * Names of a type's attributes whose values svc never holds (sensitive or write-only), made once a
 * type like its custom fields: a run's recorder and a sandbox copy ask for them per record, and
 * making them walks some 190 attributes.
 */
const secretCache = new Map<string, ReadonlySet<string>>();

/** Every attribute of a type, custom fields included (declared ones first, no duplicates). */
export function allAttributes(rt: ResourceType): AttributeSpec[] {
  const custom = customFieldAttributes(rt).filter((c) => !rt.attributes.some((a) => a.name === c.name));
  return [...rt.attributes, ...custom];
}

/** Names of the attributes of a type that are sensitive or write-only (never kept by svc). */
export function secretAttributeNames(rt: ResourceType): ReadonlySet<string> {
  let names = secretCache.get(rt.type);
  if (!names) {
    names = new Set(
      allAttributes(rt)
        .filter((a) => a.sensitive || a.writeOnly)
        .map((a) => a.name),
    );
    secretCache.set(rt.type, names);
  }
  return names;
}

/**
 * Attributes as output may show them: the values of sensitive and write-only ones as `***` (a dry
 * run and a plan print what they would send; a mailbox password was printed in clear, a trial).
 */
export function secretsMasked(rt: ResourceType, attributes: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const secret = secretAttributeNames(rt);
  const out = { ...attributes };
  for (const k of Object.keys(out)) if (secret.has(k) && out[k] !== null && out[k] !== undefined) out[k] = '***';
  return out;
}

/** One attribute by name, custom fields included. */
export function findAttribute(rt: ResourceType, name: string): AttributeSpec | undefined {
  const declared = rt.attributes.find((a) => a.name === name);
  if (declared) return declared;
  if (rt.customFields && /^custom([1-9]\d{0,2})$/.test(name)) {
    const n = Number(name.slice(6));
    if (n <= CUSTOM_FIELD_COUNT) return { name, type: 'string' };
  }
  return undefined;
}

/** One relationship by name. */
export function findRelationship(rt: ResourceType, name: string) {
  return rt.relationships.find((r) => r.name === name);
}

/** The spec's marks of an attribute as the tables write them: `RO WO F S max N`. */
export function attributeMarks(a: AttributeSpec): string {
  const m: string[] = [];
  if (a.readOnly) m.push('RO');
  if (a.writeOnly) m.push('WO');
  if (a.filterable) m.push('F');
  if (a.sortable) m.push('S');
  if (a.maxLength) m.push(`max ${a.maxLength}`);
  return m.join(' ');
}

/**
 * True when `name` is a field of `rt` as written: `id`, `type`, an attribute, a relationship, or
 * one of its custom filters.
 */
export function isKnownField(rt: ResourceType, name: string): boolean {
  return name === 'id' || name === 'type' || !!rt.extraFilters?.includes(name) || !!findAttribute(rt, name) || !!findRelationship(rt, name);
}
