/**
 * Whether an object in a record's field is a record itself (an included one, as `flatten` puts it
 * in its relationship's field) or a value of its own that merely has `type` and `id` members. A
 * CSV cell shows the first as its id and the second as JSON: an event's `payload` (`{type, id,
 * action, changed, before}`) had been written as `10`, its action and changes lost (a trial).
 */
import { allAttributes, resourceByType, type ResourceType } from '../registry/index.js';

/** The field names a flattened record of a type may carry, by type (the registry is fixed). */
const fieldsOf = new WeakMap<ResourceType, Set<string>>();

function fields(rt: ResourceType): Set<string> {
  let s = fieldsOf.get(rt);
  if (s === undefined) {
    s = new Set(['id', 'type', 'meta', ...allAttributes(rt).map((a) => a.name), ...rt.relationships.map((r) => r.name)]);
    fieldsOf.set(rt, s);
  }
  return s;
}

/**
 * True for a record as `flatten` makes it: `type` names a resource type and every other member is
 * one of its fields. An object of a type the registry does not know counts by `type` and `id` alone.
 */
export function isFlatRecord(o: Record<string, unknown>): boolean {
  if (o['id'] === undefined || typeof o['type'] !== 'string') return false;
  const rt = resourceByType(o['type']);
  if (!rt) return true;
  const known = fields(rt);
  for (const k in o) if (!known.has(k)) return false;
  return true;
}
