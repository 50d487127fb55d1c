/**
 * Client-side checks of custom-field values against the organization's validation types
 * (`GET /types`). Custom fields are string attributes, so every value is sent as a string,
 * normalised where the type has one spelling (`true`, `2024-05-01`, the option's own case).
 */
import type { CustomField } from './types.js';
import { asciiForms } from '../ascii-forms.js';
import { isoDateFix } from '../api-time.js';
import { decimalCommaNumber } from '../registry/index.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const PHONE = /^\+?[\d\s().-]{3,}(\s*(x|ext\.?)\s*\d+)?$/i;

function validDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s);
}

function isNumber(s: string): boolean {
  return /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(s);
}

/** Splits a multi-selection: `;` always separates; `,` too when every part is an option. */
function splitSelections(s: string, options: readonly string[]): string[] {
  const bySemicolon = s
    .split(';')
    .map((x) => x.trim())
    .filter(Boolean);
  if (bySemicolon.length > 1) return bySemicolon;
  const byComma = s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const known = (x: string) => options.some((o) => o.toLowerCase() === x.toLowerCase());
  return byComma.length > 1 && byComma.every(known) ? byComma : bySemicolon;
}

/** Describes a field for messages: `custom1 (Lead Source)`. */
export function fieldName(f: CustomField): string {
  return labelledName(f.name, f.label);
}

/** A field's name with its label when it has one (`custom2 (Lead Score)`), as every message and plan names it. */
export function labelledName(name: string, label: string | undefined): string {
  return label ? `${name} (${label})` : name;
}

/** The validation types whose values {@link checkCustomValue} takes as numbers (sent as text). */
const NUMBER_TYPES: ReadonlySet<string> = new Set(['numerical', 'percentage', 'currency']);

/** True when the field's values are numbers, written as text (the mirror's labelled view reads them as numbers). */
export function holdsNumbers(f: CustomField): boolean {
  return NUMBER_TYPES.has(f.type);
}

/**
 * Checks and normalises one value. `null` and `''` clear the field and always pass.
 * @returns the string to send, or a problem
 */
export function checkCustomValue(f: CustomField, value: unknown, semicolonFile?: boolean): { value: string | null } | { problem: string } {
  if (value === null || value === '') return { value: value as null | '' };
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    return { problem: `expected a single value (custom fields are strings), got ${JSON.stringify(value)}` };
  }
  const s = String(value).trim();
  const options = Array.isArray(f.definition) ? f.definition : [];
  switch (f.type) {
    case 'boolean': {
      const v = s.toLowerCase();
      if (['true', 'yes', '1'].includes(v)) return { value: 'true' };
      if (['false', 'no', '0'].includes(v)) return { value: 'false' };
      return { problem: `expected true or false (or yes/no, 1/0), got "${s}"` };
    }
    // Numbers typed full-width (`８５`, a Japanese IME's) are read as their ASCII forms
    // (asciiForms: decimalCommaNumber reads them so, and returns other text as typed).
    case 'numerical': {
      const n = decimalCommaNumber(s, semicolonFile);
      if (typeof n !== 'string') return n;
      return isNumber(asciiForms(n)) ? { value: asciiForms(n) } : { problem: `expected a number, got "${s}"` };
    }
    case 'percentage': {
      const n = decimalCommaNumber(s.replace(/\s*[%％]$/, ''), semicolonFile);
      if (typeof n !== 'string') return n;
      return isNumber(asciiForms(n))
        ? { value: asciiForms(n) }
        : { problem: `expected a percentage (a number, e.g. 40 or 40%), got "${s}"` };
    }
    case 'currency': {
      const cur = typeof f.definition === 'string' && f.definition ? f.definition : undefined;
      const n = decimalCommaNumber(cur ? s.replace(new RegExp(`^${cur}\\s*|\\s*${cur}$`, 'i'), '') : s, semicolonFile);
      if (typeof n !== 'string') return n;
      return isNumber(asciiForms(n))
        ? { value: asciiForms(n) }
        : { problem: `expected an amount${cur ? ` in ${cur}` : ''} (a number), got "${s}"` };
    }
    case 'date':
      return validDate(s) ? { value: s } : { problem: isoDateFix(s) ?? `expected a date YYYY-MM-DD, got "${s}"` };
    case 'date_time':
      return DATE_TIME.test(s) && validDate(s.slice(0, 10)) && !Number.isNaN(Date.parse(s))
        ? { value: s }
        : { problem: isoDateFix(s, true) ?? `expected a date-time YYYY-MM-DDThh:mm:ss, got "${s}"` };
    case 'url': {
      let ok = false;
      try {
        const u = new URL(s);
        ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
      } catch {
        ok = false;
      }
      return ok ? { value: s } : { problem: `expected an http(s) URL, got "${s}"` };
    }
    case 'phone_number':
      return PHONE.test(s) && (s.match(/\d/g) ?? []).length >= 3 ? { value: s } : { problem: `expected a phone number, got "${s}"` };
    case 'inclusion': {
      const hit = options.find((o) => o === s) ?? options.find((o) => o.toLowerCase() === s.toLowerCase());
      return hit !== undefined ? { value: hit } : { problem: `must be one of ${options.join(', ')} (got "${s}")` };
    }
    case 'multi_inclusion': {
      const picked: string[] = [];
      for (const part of splitSelections(s, options)) {
        const hit = options.find((o) => o === part) ?? options.find((o) => o.toLowerCase() === part.toLowerCase());
        if (hit === undefined) return { problem: `"${part}" is not among ${options.join(', ')} (separate several with ;)` };
        if (!picked.includes(hit)) picked.push(hit);
      }
      return { value: picked.join(';') };
    }
    default:
      // `string` and validation types this version does not know: the service decides.
      return { value: typeof value === 'string' ? value : s };
  }
}
