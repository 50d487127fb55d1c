/**
 * `--attr k=v` / `--attr k:=<json>` and `--rel name=...` flags → a flat record, coerced by the
 * registry's types so that `--attr employees=12` sends a number.
 */
import { coerceString } from '../../api/validate.js';
import { UsageError } from '../../errors.js';
import { findAttribute, type AttributeSpec, type ResourceType } from '../../registry/index.js';
import { ownField, setField } from '../../own-field.js';
import { parseJson } from '../../lossless-json.js';
import { matchFieldName } from '../../registry/name-match.js';

/** Splits `k=v` at the first `=`; `k:=json` marks a raw JSON value. */
function splitPair(flag: string, what: string): { key: string; value: string; json: boolean } {
  const eq = flag.indexOf('=');
  if (eq <= 0) throw new UsageError(`${what} "${flag}": expected name=value`);
  let key = flag.slice(0, eq).trim();
  const json = key.endsWith(':');
  if (json) key = key.slice(0, -1);
  if (!key) throw new UsageError(`${what} "${flag}": expected name=value`);
  return { key, value: flag.slice(eq + 1), json };
}

/**
 * Names the registry does not know as written: custom-field labels and fields only the org's
 * schema shows (`svc schema pull`; see src/org-schema/org-schema.ts).
 */
export interface AttributeNames {
  /** `holdsNumbers`: a custom field of numbers (written as text), whose filters read full-width digits. */
  resolve(key: string): { name: string; spec: AttributeSpec; holdsNumbers?: true } | undefined;
}

/** Attributes from `--attr` flags; repeated list attributes accumulate. */
export function attributesFromFlags(rt: ResourceType, flags: string[], names?: AttributeNames): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const flag of flags) {
    const pair = splitPair(flag, '--attr');
    const { value, json } = pair;
    // A name spelled another way (`firstname`) is the registry's field, as in every flag.
    const loose = findAttribute(rt, pair.key) ? undefined : matchFieldName(rt, pair.key);
    const known = findAttribute(rt, loose && 'match' in loose ? loose.match.field : pair.key);
    const resolved = known ? undefined : names?.resolve(pair.key);
    const key = known?.name ?? resolved?.name ?? pair.key;
    const spec = known ?? resolved?.spec;
    let v: unknown;
    if (json) {
      try {
        v = parseJson(value);
      } catch {
        throw new UsageError(`--attr ${key}:=…: not valid JSON`);
      }
    } else {
      const r = coerceString(spec, value);
      if ('problem' in r) throw new UsageError(`attribute "${key}" of ${rt.type}: ${r.problem}`);
      v = r.value;
    }
    const prev = ownField(out, key);
    setField(out, key, spec?.type === 'string[]' && Array.isArray(prev) && Array.isArray(v) ? [...(prev as unknown[]), ...v] : v);
  }
  return out;
}

/** Relationship values from `--rel` flags (`name=id`, `name=type:id`, `name=null`, `name=1,2`). */
export function relationshipsFromFlags(flags: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const flag of flags) {
    const { key, value } = splitPair(flag, '--rel');
    setField(out, key, value === 'null' ? null : value);
  }
  return out;
}
