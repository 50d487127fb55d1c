/**
 * Formats the spec gives to text attributes, as rules every layer applies alike: the CLI before
 * it sends a row or an `--attr` (api/validate.ts), enroll reading addresses, the sandbox on every
 * write. One rule each, so that a value one command accepts is never refused by another.
 */

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

/** `4,5` or `-0,25`: a number written with a decimal comma. */
const DECIMAL_COMMA = /^[-+]?\d+,\d+$/;
/** `1.234` or `1.234,5`: thousands grouped with dots, as Excel writes numbers where the comma is the decimal separator. */
const GROUPED_DOT = /^[-+]?\d{1,3}(\.\d{3})+(,\d+)?$/;
/** `1,234` or `1,234.5`: thousands grouped with commas (English). */
const GROUPED_COMMA = /^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$/;

/**
 * A number as typed, read with the decimal comma rule: `4,5` becomes `4.5` in a `;`-separated file
 * (`semicolonFile` true: spreadsheets write numbers so where the comma is the decimal separator);
 * in a comma-separated file (false) or a flag (undefined) it is refused with the fix, since there
 * `4,5` is as likely a list or a typo. Thousands separators are read where both marks make the
 * number plain (`1.234,5` and `1,234.5`: 1234.5); one mark in groups of three is 1234 to one
 * convention and 1.234 to the other, so it is refused with both readings, never guessed: a German
 * `;` file's `2.500` had been written as 2.5 (a trial). Any other text is returned as it is, for
 * the caller to judge.
 */
export function decimalCommaNumber(text: string, semicolonFile: boolean | undefined): string | { problem: string } {
  const t = text.trim();
  if (GROUPED_DOT.test(t) && t.includes(',')) return t.replaceAll('.', '').replace(',', '.');
  if (GROUPED_COMMA.test(t) && t.includes('.')) return t.replaceAll(',', '');
  const grouped = GROUPED_DOT.test(t) ? '.' : GROUPED_COMMA.test(t) ? ',' : undefined;
  if (grouped !== undefined) {
    const whole = t.replaceAll(grouped, '');
    // Two marks can only be thousands (`1.234.567`); one is either.
    if (t.indexOf(grouped) !== t.lastIndexOf(grouped)) return whole;
    const decimal = t.replace(grouped, '.');
    return {
      problem: `"${text}" is ${whole} with ${grouped} as the thousands separator, or ${decimal} with it as the decimal mark: write ${whole} or ${decimal.replace('.', semicolonFile ? ',' : '.')}`,
    };
  }
  if (!DECIMAL_COMMA.test(t)) return text;
  const point = t.replace(',', '.');
  if (semicolonFile) return point;
  return {
    problem:
      semicolonFile === false
        ? `"${text}" has a decimal comma: write ${point}, or save the file ;-separated (as spreadsheets do where the comma is the decimal separator), where 4,5 reads as 4.5`
        : `"${text}" has a decimal comma: write ${point}`,
  };
}
