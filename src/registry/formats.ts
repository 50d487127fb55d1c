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

/**
 * A number as typed, read with the decimal comma rule: `4,5` becomes `4.5` in a `;`-separated file
 * (`semicolonFile` true: spreadsheets write numbers so where the comma is the decimal separator);
 * in a comma-separated file (false) or a flag (undefined) it is refused with the fix, since there
 * `4,5` is as likely a list or a typo. Any other text is returned as it is, for the caller to judge.
 */
export function decimalCommaNumber(text: string, semicolonFile: boolean | undefined): string | { problem: string } {
  const t = text.trim();
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
