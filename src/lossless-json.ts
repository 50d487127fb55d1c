/**
 * JSON text → value without rounding big integers. Record ids are integers that may go past
 * 2^53, where `JSON.parse` rounds (`9007199254740993` becomes `…992`, and `delete` would remove
 * the wrong record). Here an integer literal outside Number's exact range becomes the string of
 * its digits: ids stay strings of digits end to end, and numbers in output keep their digits
 * (JSON output then shows them quoted). Every other value is what `JSON.parse` gives.
 *
 * Cheap when there is nothing to do (one regular-expression test, ~2 ms for a 3 MB page that
 * JSON.parse takes ~25 ms for), which is every page of a service whose ids fit. A leaf module.
 */

/**
 * The start of an integer literal of 16 digits or more (the shortest that may be past 2^53) where
 * a JSON value may start: a run of digits in a string (a phone number, an external id) mostly
 * does not match, so such pages skip the scan too.
 */
const LONG_DIGITS = /(?:^|[:,[])\s*-?[1-9]\d{15}/;

/** `JSON.parse(text)`, with integers beyond ±(2^53 − 1) as strings of their digits. */
export function parseJson(text: string): unknown {
  return JSON.parse(LONG_DIGITS.test(text) ? quoteBigIntegers(text) : text);
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * The text with every integer literal outside strings that a Number cannot hold exactly put in
 * quotes. Text that is not JSON stays not JSON (a literal with a leading zero is left alone).
 */
function quoteBigIntegers(text: string): string {
  let out = '';
  let copied = 0;
  const n = text.length;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: skip to its closing quote (escapes skip the character after the backslash).
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
      i++;
      continue;
    }
    if (c !== 45 && !isDigit(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === 45) i++;
    const first = i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    const end = i;
    const after = text.charCodeAt(i);
    if (after === 46 || after === 101 || after === 69) {
      // A fraction or an exponent: a float, rounded by nature; skip the rest of it.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (!isDigit(d) && d !== 43 && d !== 45 && d !== 46 && d !== 101 && d !== 69) break;
      }
      continue;
    }
    const digits = end - first;
    if (digits >= 16 && text.charCodeAt(first) !== 48 && !Number.isSafeInteger(Number(text.slice(start, end)))) {
      out += `${text.slice(copied, start)}"${text.slice(start, end)}"`;
      copied = end;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** An id as this API writes it: a number when it is a safe integer, else the string as given. */
export function idValue(id: number | string): number | string {
  if (typeof id !== 'string' || !/^[1-9]\d*$/.test(id)) return id;
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : id;
}
