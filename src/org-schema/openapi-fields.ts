/**
 * Attributes of resource types read from an OpenAPI 3 document (`GET /schema/openapi.json`):
 * each component schema whose `type` property is a one-value enum names a resource type, its
 * `attributes` properties are the fields. Filter and sort marks come from the collection's
 * `filter[...]` parameters and the `sort` parameter's enum, where the document lists them.
 */
import type { AttrType, AttributeSpec } from '../registry/index.js';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The registry type of a JSON Schema property; undefined when it cannot be told. */
function attrTypeOf(s: Json): AttrType | undefined {
  const t = Array.isArray(s.type) ? (s.type as unknown[]).find((x) => x !== 'null') : s.type;
  switch (t) {
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      return 'object';
    case 'array':
      return isObject(s.items) && s.items.type === 'string' ? 'string[]' : 'array';
    case 'string':
      return s.format === 'date' ? 'date' : s.format === 'date-time' ? 'date-time' : 'string';
    default:
      return undefined;
  }
}

/** One attribute spec from a JSON Schema property. */
function attributeFromSchema(name: string, s: Json): AttributeSpec {
  const spec: AttributeSpec = { name, type: attrTypeOf(s) ?? 'string' };
  if (s.readOnly === true) spec.readOnly = true;
  if (s.writeOnly === true) spec.writeOnly = true;
  if (typeof s.maxLength === 'number') spec.maxLength = s.maxLength;
  // A closed set of strings, or of whole numbers for an integer (a webhook's payloadVersion).
  const item = spec.type === 'integer' ? Number.isInteger : (e: unknown) => typeof e === 'string';
  if (Array.isArray(s.enum) && s.enum.every(item)) spec.enum = s.enum as (string | number)[];
  if (typeof s.description === 'string') spec.description = s.description;
  return spec;
}

/** Resource type name → its collection path, for finding list parameters. */
type PathOf = (type: string) => string | undefined;

function listParameters(doc: Json, path: string | undefined): Json[] {
  if (!path || !isObject(doc.paths)) return [];
  const item = doc.paths[`/${path}`];
  if (!isObject(item) || !isObject(item.get)) return [];
  const params = [
    ...(Array.isArray(item.parameters) ? item.parameters : []),
    ...(Array.isArray(item.get.parameters) ? item.get.parameters : []),
  ];
  return params.filter(isObject);
}

/**
 * Every resource type's attributes in the document, by type name.
 * @param pathOf collection path of a type (for F/S marks); types it does not know get none
 */
export function attributesFromOpenApi(doc: unknown, pathOf: PathOf): Map<string, AttributeSpec[]> {
  const out = new Map<string, AttributeSpec[]>();
  if (!isObject(doc) || !isObject(doc.components) || !isObject(doc.components.schemas)) return out;
  for (const schema of Object.values(doc.components.schemas)) {
    if (!isObject(schema) || !isObject(schema.properties)) continue;
    const typeProp = schema.properties.type;
    const attrs = schema.properties.attributes;
    if (!isObject(typeProp) || !Array.isArray(typeProp.enum) || typeProp.enum.length !== 1 || typeof typeProp.enum[0] !== 'string')
      continue;
    if (!isObject(attrs) || !isObject(attrs.properties)) continue;
    const type = typeProp.enum[0];
    const params = listParameters(doc, pathOf(type));
    const filterable = new Set(params.map((p) => /^filter\[([^\]]+)\]$/.exec(String(p.name))?.[1]).filter((x): x is string => !!x));
    const sortParam = params.find((p) => p.name === 'sort');
    const sortEnum = isObject(sortParam?.schema) && Array.isArray(sortParam.schema.enum) ? sortParam.schema.enum : [];
    const sortable = new Set(sortEnum.map((k) => String(k).replace(/^-/, '')));
    const list: AttributeSpec[] = [];
    for (const [name, prop] of Object.entries(attrs.properties)) {
      if (!isObject(prop)) continue;
      const spec = attributeFromSchema(name, prop);
      if (filterable.has(name)) spec.filterable = true;
      if (sortable.has(name)) spec.sortable = true;
      list.push(spec);
    }
    out.set(type, list);
  }
  return out;
}
