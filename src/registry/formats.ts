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
