/**
 * Records built from names that come from outside (attribute names of a server's records, CSV
 * headers, `--attr` flags) hold every name as an own property. `record[name] = value` would not:
 * with `name === '__proto__'` it replaces the object's prototype instead, so the attribute
 * vanishes from JSON and CSV, and an object value's members start to show through `in` and
 * property reads. A leaf module, like errors.ts: every layer may use it.
 */

/** Sets `key` as an own, enumerable data property of `target`, whatever its name. */
export function setField(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/** The own property `key` of `target` (never one inherited from its prototype, like `constructor`). */
export function ownField(target: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}
