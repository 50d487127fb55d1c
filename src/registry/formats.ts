/**
 * Formats the spec gives to text attributes, as rules every layer applies alike: the CLI before
 * it sends a row or an `--attr` (api/validate.ts), enroll reading addresses, the sandbox on every
 * write (sandbox/query/validate.ts), and the sandbox's OpenAPI document says them. One rule each, so that a value one command accepts is never refused by another.
 */
import { asciiForms } from '../ascii-forms.js';

/**
 * An e-mail address: one `@` with text on both sides, no spaces (`not-an-email` and `a @b` are
 * refused). Deliberately no more than that: what a mail server takes is its business, but a value
 * without an `@` can never be an address.
 */
const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+$/;

/** True when `s` is an e-mail address by the rule above. */
export function isEmailAddress(s: string): boolean {
  return EMAIL_ADDRESS.test(s);
}

/** This machine's names: plain http to them is an HTTPS URL's one exception (see {@link httpsUrlProblem}). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Why `s` is not an HTTPS URL (the `https-url` format: a webhook's `url`), as a phrase after the
 * field's name; undefined when it is one. Plain `http://` is accepted to this machine only: the
 * sandbox delivers there to a local receiver (`webhooks listen --register`); a real service,
 * which could not reach such an address anyway, refuses it itself.
 */
export function httpsUrlProblem(s: string): string | undefined {
  // The URL parser drops a space at either end and tabs or line breaks inside, so the check would
  // pass while the value stored, and used for every delivery, keeps them (a trial: a pasted URL).
  if (/\s/.test(s)) return `must not contain spaces or line breaks (got ${JSON.stringify(s)})`;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return `must be an absolute HTTPS URL (got ${JSON.stringify(s)})`;
  }
  if (u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname))) return undefined;
  return `must use HTTPS (got ${JSON.stringify(s)}; plain http only to 127.0.0.1 or localhost)`;
}

/** `4,5` or `-0,25`: a number written with a decimal comma. */
const DECIMAL_COMMA = /^[-+]?\d+,\d+$/;
/** `1.234`, `1.234.567` or `1.234,5`: thousands grouped with dots, as Excel writes numbers where the comma is the decimal separator. */
const GROUPED_DOT = /^[-+]?[1-9]\d{0,2}(\.\d{3})+(,\d+)?$/;
/** `1,234`, `1,234,567` or `1,234.5`: thousands grouped with commas (English). */
const GROUPED_COMMA = /^[-+]?[1-9]\d{0,2}(,\d{3})+(\.\d+)?$/;

/**
 * A number as typed, read with the decimal comma rule: `4,5` becomes `4.5` in a `;`-separated file
 * (`semicolonFile` true: spreadsheets write numbers so where the comma is the decimal separator);
 * in a comma-separated file (false) or a flag (undefined) it is refused with the fix, since there
 * `4,5` is as likely a list or a typo. Thousands marks are read where the number is plain: both
 * marks (`1.234,5`, `1,234.5`: 1234.5), or the same mark twice (`1.234.567`). In a `;` file, one
 * dot before three digits (`2.500`) is 2500 to the file's own convention and 2.5 to another, so it
 * is refused with both readings: a German file's `2.500` had been written as 2.5 (a trial). One
 * dot elsewhere is a decimal point, whatever the digits (`0.125`, `2.500` in a comma file or a
 * flag). Full-width digits and marks are read as theirs ({@link asciiForms}). Any other text is
 * returned as it is, for the caller to judge.
 */
export function decimalCommaNumber(text: string, semicolonFile: boolean | undefined): string | { problem: string } {
  const t = asciiForms(text).trim();
  const dots = GROUPED_DOT.test(t);
  const commas = GROUPED_COMMA.test(t);
  if (dots && t.includes(',')) return t.replaceAll('.', '').replace(',', '.');
  if (commas && t.includes('.')) return t.replaceAll(',', '');
  if (dots && t.indexOf('.') !== t.lastIndexOf('.')) return t.replaceAll('.', '');
  if (commas && t.indexOf(',') !== t.lastIndexOf(',')) return t.replaceAll(',', '');
  if (dots && semicolonFile) {
    const whole = t.replace('.', '');
    return {
      problem: `"${text}" is ${whole} with . as the thousands separator (as this ;-separated file writes numbers) or ${t} with it as the decimal point: write ${whole}, or ${t.replace('.', ',')} for the decimal`,
    };
  }
  if (!DECIMAL_COMMA.test(t)) return text;
  const point = t.replace(',', '.');
  if (semicolonFile) return point;
  // A comma before three digits (`1,200`) may group thousands: `1.200` was the wrong fix to suggest
  // (where the dot groups thousands it reads as 1200 again, a trial). Each reading is written so
  // that no convention reads it otherwise: the digits alone, and the decimal without its trailing
  // zeros (1.2), or no decimal spelled out where three digits are left (`1,205`).
  const decimal = point.replace(/\.?0+$/, '');
  const fix = commas
    ? `${t.replace(',', '')} if it groups thousands, or ${/\.\d{3}$/.test(decimal) ? 'use a decimal point' : decimal} if it is a decimal comma`
    : point;
  const what = commas ? 'a comma' : 'a decimal comma';
  return {
    problem:
      semicolonFile === false
        ? `"${text}" has ${what}: write ${fix}, or save the file ;-separated (as spreadsheets do where the comma is the decimal separator), where 4,5 reads as 4.5`
        : `"${text}" has ${what}: write ${fix}`,
  };
}
