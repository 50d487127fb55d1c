/** The full-width forms of ASCII (U+FF01–U+FF5E: ０–９, －, ＋, （, ）, ．, ，, ％, Ａ…). */
const FULL_WIDTH = /[\uff01-\uff5e]/g;

/**
 * `s` with the full-width forms of ASCII as ASCII (`８５` → `85`, `－１，５` → `-1,5`), for a value
 * read as a number or a phone number: Japanese IMEs and Excel type digits full-width, and a
 * trial's Lead Score of `８５` was refused as no number. Exactly what NFKC does to that block and
 * nothing more: NFKC itself also turns `²` into `2` (`10²` would be 102) and `①` into `1`, which
 * no number field should take silently. Text fields never come here: their full-width characters stay.
 */
export function asciiForms(s: string): string {
  return s.replace(FULL_WIDTH, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
}
