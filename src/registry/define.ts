/**
 * Small builders that keep the registry data readable: one line per attribute, flags written
 * the way the spec's tables write them (`RO F S max 255`).
 */
import type { ActionSpec, AttrType, AttributeSpec, AuthorizationMeta, Operation, RelationshipSpec, ResourceType } from './types.js';

const ALL_OPERATIONS: readonly Operation[] = ['list', 'get', 'create', 'update', 'delete'];

/**
 * An attribute from a flag string: `RO`, `WO`, `F`, `S`, `max N`, `inferred`, `onlyOnRequest`,
 * `sensitive`, and the formats `email` and `https` (formats.ts).
 * @example attr('name', 'string', 'max 255 F S')
 */
export function attr(
  name: string,
  type: AttrType,
  flags = '',
  extra: Pick<AttributeSpec, 'enum' | 'description' | 'optOut'> = {},
): AttributeSpec {
  const words = flags.split(/\s+/).filter(Boolean);
  const spec: AttributeSpec = { name, type };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === 'RO') spec.readOnly = true;
    else if (w === 'WO') spec.writeOnly = true;
    else if (w === 'F') spec.filterable = true;
    else if (w === 'S') spec.sortable = true;
    else if (w === 'inferred') spec.inferred = true;
    else if (w === 'onlyOnRequest') spec.onlyOnRequest = true;
    else if (w === 'sensitive') spec.sensitive = true;
    else if (w === 'email') spec.format = 'email';
    else if (w === 'https') spec.format = 'https-url';
    else if (w === 'max') spec.maxLength = Number(words[++i]);
    else throw new Error(`registry: unknown flag ${w} on ${name}`);
  }
  if (extra.enum) spec.enum = extra.enum;
  if (extra.description) spec.description = extra.description;
  if (extra.optOut !== undefined) spec.optOut = extra.optOut;
  return spec;
}

/** Several attributes sharing one type and flag string (the spec's `a, b, c | integer | RO` rows). */
export function attrs(names: string, type: AttrType, flags = ''): AttributeSpec[] {
  return names
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((n) => attr(n, type, flags));
}

/** `createdAt` and `updatedAt`, read-only, filterable and sortable unless flags say otherwise. */
export function timestamps(flags = 'RO F S'): AttributeSpec[] {
  return attrs('createdAt updatedAt', 'date-time', flags);
}

/**
 * A relationship from a flag string: `one`|`many`, `data`, `links`, `RO`, `inferred`, `->target`.
 * @example rel('account', 'one data links ->account')
 */
export function rel(name: string, flags: string, description?: string): RelationshipSpec {
  const words = flags.split(/\s+/).filter(Boolean);
  const spec: RelationshipSpec = {
    name,
    kind: words.includes('many') ? 'many' : 'one',
    data: words.includes('data'),
    links: words.includes('links'),
  };
  if (words.includes('RO')) spec.readOnly = true;
  if (words.includes('inferred')) spec.inferred = true;
  const target = words.find((w) => w.startsWith('->'));
  if (target) spec.target = target.slice(2);
  if (description) spec.description = description;
  return spec;
}

/** An item action. */
export function action(name: string, description: string, params: readonly string[] = []): ActionSpec {
  return { name, command: kebab(name), params, description };
}

/** Input of {@link defineType}: everything optional has a sensible default. */
interface TypeInput {
  type: string;
  description: string;
  attributes: AttributeSpec[];
  relationships?: RelationshipSpec[];
  /** @default all five */
  operations?: readonly Operation[];
  actions?: ActionSpec[];
  customFields?: boolean;
  dataConnections?: boolean;
  /** @default 'canWriteAndDelete' */
  authorizationMeta?: AuthorizationMeta;
  partial?: boolean;
  defaultColumns?: readonly string[];
  promptFields?: readonly string[];
  extraFilters?: readonly string[];
  webhookActions?: readonly string[];
  /** Collection path when the plural is irregular. */
  path?: string;
  /** CLI command when the kebab plural is taken by a built-in command. */
  command?: string;
}

/** Builds a {@link ResourceType} with derived path and command names. */
export function defineType(input: TypeInput): ResourceType {
  const path = input.path ?? pluralize(input.type);
  return {
    type: input.type,
    path,
    command: input.command ?? kebab(path),
    description: input.description,
    attributes: input.attributes,
    relationships: input.relationships ?? [],
    // Canonical order (list, get, create, update, delete) whatever order the data gives.
    operations: ALL_OPERATIONS.filter((o) => (input.operations ?? ALL_OPERATIONS).includes(o)),
    actions: input.actions ?? [],
    customFields: input.customFields ?? false,
    dataConnections: input.dataConnections ?? false,
    authorizationMeta: input.authorizationMeta ?? 'canWriteAndDelete',
    partial: input.partial ?? false,
    defaultColumns: input.defaultColumns ?? input.attributes.slice(0, 4).map((a) => a.name),
    promptFields: input.promptFields ?? [],
    ...(input.extraFilters ? { extraFilters: input.extraFilters } : {}),
    ...(input.webhookActions ? { webhookActions: input.webhookActions } : {}),
  };
}

/** `sequenceStates` → `sequence-states`. */
export function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** `sequence-states` → `sequenceStates`. */
export function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** English plural of a camelCase type name, as the API's collection paths use it. */
function pluralize(type: string): string {
  if (/[^aeiou]y$/.test(type)) return type.slice(0, -1) + 'ies';
  if (/(s|x|ch|sh)$/.test(type)) return type + 'es';
  return type + 's';
}
