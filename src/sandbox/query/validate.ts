/**
 * Validation of create and update bodies against the registry: every problem becomes one
 * 422 `validationError` object whose `source.pointer` names the field.
 */
import {
  findAttribute,
  findRelationship,
  httpsUrlProblem,
  isEmailAddress,
  resourceByType,
  type AttributeSpec,
  type ResourceType,
} from '../../registry/index.js';
import { fieldError, validationError, type ErrorObject } from '../errors.js';
import type { CustomFieldValidation } from '../data/org.js';
import type { WriteInput } from '../rules/types.js';
import type { Ref, RelValue, Store } from '../data/store.js';
import { isDate, normalizeDateTime } from '../data/time.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks one attribute value; returns the stored value or an error message. */
function checkValue(spec: AttributeSpec, v: unknown): { ok: unknown } | { error: string } {
  if (v === null) return { ok: null };
  const str = (s: unknown): { ok: unknown } | { error: string } => {
    if (typeof s !== 'string') return { error: `${spec.name} must be a string.` };
    if (spec.maxLength !== undefined && [...s].length > spec.maxLength)
      return { error: `${spec.name} is too long (maximum is ${spec.maxLength} characters).` };
    if (spec.enum && !spec.enum.includes(s)) return { error: `${spec.name} must be one of: ${spec.enum.join(', ')}.` };
    if (spec.format === 'email' && !isEmailAddress(s)) return { error: `${spec.name}: ${JSON.stringify(s)} is not an e-mail address.` };
    const url = spec.format === 'https-url' ? httpsUrlProblem(s) : undefined;
    if (url) return { error: `${spec.name} ${url}.` };
    return { ok: s };
  };
  switch (spec.type) {
    case 'string':
      return str(v);
    case 'integer':
      if (!Number.isInteger(v)) return { error: `${spec.name} must be an integer.` };
      return spec.enum && !spec.enum.includes(v as number) ? { error: `${spec.name} must be one of: ${spec.enum.join(', ')}.` } : { ok: v };
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? { ok: v } : { error: `${spec.name} must be a number.` };
    case 'boolean':
      return typeof v === 'boolean' ? { ok: v } : { error: `${spec.name} must be true or false.` };
    case 'date':
      return typeof v === 'string' && isDate(v) ? { ok: v } : { error: `${spec.name} must be a date (YYYY-MM-DD).` };
    case 'date-time': {
      const n = typeof v === 'string' ? normalizeDateTime(v) : undefined;
      return n ? { ok: n } : { error: `${spec.name} must be an ISO 8601 date-time.` };
    }
    case 'string[]': {
      if (!Array.isArray(v)) return { error: `${spec.name} must be a list of strings.` };
      for (const s of v) {
        const r = str(s);
        if ('error' in r && spec.format === 'email' && typeof s === 'string' && !isEmailAddress(s)) return r;
        if ('error' in r)
          return {
            error: `${spec.name}: every element must be a string${spec.maxLength ? ` of at most ${spec.maxLength} characters` : ''}${spec.enum ? ` among ${spec.enum.join(', ')}` : ''}.`,
          };
      }
      return { ok: v };
    }
    case 'object':
      return isObject(v) ? { ok: v } : { error: `${spec.name} must be an object.` };
    case 'array':
      return Array.isArray(v) ? { ok: v } : { error: `${spec.name} must be a list.` };
  }
}

/** Checks a custom-field value against the organization's validation for it (the /types data). */
function checkCustom(name: string, v: unknown, val: CustomFieldValidation): string | undefined {
  if (v === null || v === '') return undefined;
  const s = String(v);
  const list = Array.isArray(val.definition) ? val.definition : [];
  switch (val.type) {
    case 'boolean':
      return /^(true|false)$/.test(s) ? undefined : `${name} (${val.label}) must be true or false.`;
    case 'numerical':
    case 'percentage':
    case 'currency':
      return Number.isFinite(Number(s)) ? undefined : `${name} (${val.label}) must be a number.`;
    case 'date':
      return isDate(s) ? undefined : `${name} (${val.label}) must be a date.`;
    case 'date_time':
      return normalizeDateTime(s) ? undefined : `${name} (${val.label}) must be a date-time.`;
    case 'inclusion':
      return list.includes(s) ? undefined : `${name} (${val.label}) must be one of: ${list.join(', ')}.`;
    case 'multi_inclusion':
      return s.split(';').every((x) => list.includes(x.trim()))
        ? undefined
        : `${name} (${val.label}) values must be among: ${list.join(', ')}.`;
    case 'url':
      return /^https?:\/\/\S+$/.test(s) ? undefined : `${name} (${val.label}) must be a URL.`;
    default:
      return undefined;
  }
}

function parseRef(v: unknown): Ref | 'invalid' {
  if (!isObject(v) || typeof v['type'] !== 'string') return 'invalid';
  const id = typeof v['id'] === 'string' && /^\d+$/.test(v['id']) ? Number(v['id']) : v['id'];
  return Number.isInteger(id) ? { type: v['type'], id: id as number } : 'invalid';
}

/** Options of {@link validateWrite}. */
interface ValidateOptions {
  mode: 'create' | 'update';
  /** URL id of an update. */
  id?: number;
  customValidations?: Record<string, CustomFieldValidation>;
}

/** Validates a JSON:API write body; throws a 422 with every problem found. */
export function validateWrite(store: Store, rt: ResourceType, body: unknown, opts: ValidateOptions): WriteInput {
  const errs: ErrorObject[] = [];
  const data = isObject(body) ? body['data'] : undefined;
  if (!isObject(data)) throw validationError([fieldError('/data', 'The body must be a JSON:API document with a data object.')]);
  if (data['type'] !== rt.type) errs.push(fieldError('/data/type', `data.type must be '${rt.type}'.`));
  if (opts.mode === 'create' && data['id'] !== undefined) errs.push(fieldError('/data/id', 'A create must not carry an id.'));
  if (opts.mode === 'update' && String(data['id']) !== String(opts.id))
    errs.push(fieldError('/data/id', `data.id (${String(data['id'])}) must equal the id in the URL (${opts.id}).`));
  const input: WriteInput = { attributes: {}, rels: {}, relMeta: {} };
  const attrs = data['attributes'] ?? {};
  if (!isObject(attrs)) errs.push(fieldError('/data/attributes', 'attributes must be an object.'));
  else {
    for (const [name, v] of Object.entries(attrs)) {
      const pointer = `/data/attributes/${name}`;
      const spec = findAttribute(rt, name);
      if (!spec) {
        errs.push(fieldError(pointer, `${rt.type} has no attribute '${name}'.`));
        continue;
      }
      if (spec.readOnly) {
        errs.push(fieldError(pointer, `${name} is read-only.`));
        continue;
      }
      const r = checkValue(spec, v);
      if ('error' in r) {
        errs.push(fieldError(pointer, r.error));
        continue;
      }
      const custom = opts.customValidations?.[name];
      const customErr = custom ? checkCustom(name, r.ok, custom) : undefined;
      if (customErr) {
        errs.push(fieldError(pointer, customErr));
        continue;
      }
      input.attributes[name] = r.ok;
    }
  }
  if (opts.mode === 'create' && opts.customValidations) {
    for (const [name, val] of Object.entries(opts.customValidations)) {
      if (val.required && (input.attributes[name] == null || input.attributes[name] === ''))
        errs.push(fieldError(`/data/attributes/${name}`, `${name} (${val.label}) is required.`));
    }
  }
  const rels = data['relationships'] ?? {};
  if (!isObject(rels)) errs.push(fieldError('/data/relationships', 'relationships must be an object.'));
  else {
    for (const [name, obj] of Object.entries(rels)) {
      const pointer = `/data/relationships/${name}`;
      const spec = findRelationship(rt, name);
      if (!spec) {
        errs.push(fieldError(pointer, `${rt.type} has no relationship '${name}'.`));
        continue;
      }
      if (spec.readOnly) {
        errs.push(fieldError(pointer, `${name} is read-only.`));
        continue;
      }
      if (!isObject(obj) || !('data' in obj)) {
        errs.push(fieldError(pointer, `${name} must be a relationship object with data.`));
        continue;
      }
      if (isObject(obj['meta'])) input.relMeta[name] = obj['meta'];
      const d = obj['data'];
      const refs: unknown[] | null = spec.kind === 'one' ? (d === null ? null : [d]) : Array.isArray(d) ? d : null;
      if (spec.kind === 'many' && refs === null) {
        errs.push(fieldError(pointer, `${name} is to-many: data must be a list.`));
        continue;
      }
      const out: Ref[] = [];
      let bad = false;
      for (const raw of refs ?? []) {
        const ref = parseRef(raw);
        if (ref === 'invalid') {
          errs.push(fieldError(`${pointer}/data`, `${name} needs identifiers with type and integer id.`));
          bad = true;
          break;
        }
        if (spec.target && ref.type !== spec.target) {
          errs.push(fieldError(`${pointer}/data/type`, `${name} must point at a ${spec.target}.`));
          bad = true;
          break;
        }
        if (!resourceByType(ref.type)) {
          errs.push(fieldError(`${pointer}/data/type`, `Unknown type '${ref.type}'.`));
          bad = true;
          break;
        }
        if (!store.get(ref.type, ref.id)) {
          errs.push(fieldError(`${pointer}/data/id`, `No ${ref.type} with id ${ref.id}.`));
          bad = true;
          break;
        }
        out.push(ref);
      }
      if (bad) continue;
      input.rels[name] = (spec.kind === 'one' ? (out[0] ?? null) : out) satisfies RelValue;
    }
  }
  if (errs.length) throw validationError(errs);
  return input;
}
