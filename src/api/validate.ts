/**
 * Client-side checks and coercion of attribute values against the registry, shared by
 * `create`/`update` flags and bulk input rows: read-only fields, max lengths, enum values, types.
 * Unknown attributes pass through untouched (the server knows more fields than the spec shows).
 */
import { findAttribute, httpsUrlProblem, isEmailAddress, type AttributeSpec, type ResourceType } from '../registry/index.js';
import { parseJson } from '../lossless-json.js';
import { asciiForms } from '../ascii-forms.js';
import { isoDateFix } from '../api-time.js';

/** A problem with one field; `UsageError`s and bulk row reports are made from it. */
export interface FieldProblem {
  field: string;
  reason: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

function validDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
}

function validDateTime(s: string): boolean {
  return DATE_TIME.test(s) && !Number.isNaN(Date.parse(s.includes('T') ? s : s.replace(' ', 'T'))) && validDate(s.slice(0, 10));
}

/**
 * The items of a list written as JSON (`["a@x.com","b@y.com"]`), else undefined. Typed for a list
 * attribute, such text can only mean its items: split at commas it became one address
 * `["a@x.com"]`, which has an `@` and no space, so nothing refused it and the org kept it.
 */
function jsonStringList(raw: string): string[] | undefined {
  const t = raw.trim();
  if (!t.startsWith('[') || !t.endsWith(']')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Converts a command-line string to the attribute's type.
 * Lists (`string[]`) split on commas, or are read as JSON when written so; objects and arrays are JSON.
 * @returns the value, or a problem
 */
export function coerceString(spec: AttributeSpec | undefined, raw: string): { value: unknown } | { problem: string } {
  if (!spec) return { value: raw };
  switch (spec.type) {
    // Digits typed full-width (`８５`, a Japanese IME's) are theirs (src/ascii-forms.ts).
    case 'integer': {
      const t = asciiForms(raw).trim();
      return /^-?\d+$/.test(t) ? { value: Number(t) } : { problem: `expected an integer, got "${raw}"` };
    }
    case 'number': {
      const t = asciiForms(raw).trim();
      const n = Number(t);
      return t !== '' && Number.isFinite(n) ? { value: n } : { problem: `expected a number, got "${raw}"` };
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['true', 'yes', '1'].includes(v)) return { value: true };
      if (['false', 'no', '0'].includes(v)) return { value: false };
      return { problem: `expected true or false (or yes/no, 1/0), got "${raw}"` };
    }
    case 'string[]':
      return { value: jsonStringList(raw) ?? (raw === '' ? [] : raw.split(',').map((s) => s.trim())) };
    case 'object':
    case 'array':
      try {
        return { value: parseJson(raw) };
      } catch {
        return { problem: `expected JSON (${spec.type}), got "${raw}"` };
      }
    default:
      return { value: raw };
  }
}

/** Checks an already typed value (from JSON, or after coercion). */
export function checkValue(spec: AttributeSpec, value: unknown): string | undefined {
  if (value === null) return undefined;
  switch (spec.type) {
    case 'integer':
      if (!Number.isInteger(value)) return `expected an integer, got ${JSON.stringify(value)}`;
      return notAmong(spec, value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `expected a number, got ${JSON.stringify(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected true or false, got ${JSON.stringify(value)}`;
    case 'date':
      if (typeof value === 'string' && validDate(value)) return undefined;
      // `30.11.2026` from a German sheet: the one line names it as it must be written (api-time.ts).
      return (typeof value === 'string' && isoDateFix(value)) || `expected a date YYYY-MM-DD, got ${JSON.stringify(value)}`;
    case 'date-time':
      if (typeof value === 'string' && validDateTime(value)) return undefined;
      return (
        (typeof value === 'string' && isoDateFix(value, true)) || `expected a date-time YYYY-MM-DDThh:mm:ss, got ${JSON.stringify(value)}`
      );
    case 'string[]': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return `expected a list of strings`;
      if (spec.maxLength && value.some((v) => (v as string).length > spec.maxLength!))
        return `an item is longer than ${spec.maxLength} characters`;
      const bad = spec.format === 'email' ? (value as string[]).find((v) => !isEmailAddress(v)) : undefined;
      return bad === undefined ? undefined : notAnAddress(bad);
    }
    case 'object':
      return typeof value === 'object' && !Array.isArray(value) ? undefined : 'expected a JSON object';
    case 'array':
      return Array.isArray(value) ? undefined : 'expected a JSON array';
    case 'string': {
      if (typeof value !== 'string') return `expected a string, got ${JSON.stringify(value)}`;
      if (spec.maxLength !== undefined && [...value].length > spec.maxLength) {
        return `longer than ${spec.maxLength} characters (${[...value].length})`;
      }
      if (spec.enum && !spec.enum.includes(value)) return `must be one of ${spec.enum.join(', ')} (got "${value}")`;
      if (spec.format === 'email' && !isEmailAddress(value)) return notAnAddress(value);
      if (spec.format === 'https-url') return httpsUrlProblem(value);
      return undefined;
    }
  }
}

/** A number the attribute's closed set does not hold (a webhook's `payloadVersion` is 1 or 2). */
function notAmong(spec: AttributeSpec, value: unknown): string | undefined {
  return spec.enum && !spec.enum.includes(value as number) ? `must be one of ${spec.enum.join(', ')} (got ${String(value)})` : undefined;
}

/**
 * The one message for a value that is not an e-mail address (enroll's rows say the same). One
 * typed with a Japanese or Chinese input method on (`ｈａｒｕｋｉ＠example.jp`) names the address
 * it reads as: it is not sent as that, since an address is the person's, not svc's guess.
 */
export function notAnAddress(v: string): string {
  const narrow = v.normalize('NFKC');
  const typed = narrow !== v && isEmailAddress(narrow) ? ` (typed full-width: ${narrow}?)` : '';
  return `${JSON.stringify(v)} is not an e-mail address${typed}`;
}

/**
 * Checks attributes about to be written. Unknown names pass; read-only ones are refused.
 * @returns problems, empty when all is well
 */
export function checkAttributes(rt: ResourceType, attributes: Record<string, unknown>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    const spec = findAttribute(rt, name);
    if (!spec) continue;
    if (spec.readOnly) {
      problems.push({ field: name, reason: `is read-only on ${rt.type}` });
      continue;
    }
    const reason = checkValue(spec, value);
    if (reason) problems.push({ field: name, reason });
  }
  return problems;
}
