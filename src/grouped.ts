/**
 * A count with thousands separators, as `n.toLocaleString('en-US')` writes it (`12,000`), without
 * ICU: the first `toLocaleString` of a process loads its number-format data, ~15 ms of CPU (one
 * `node -e`, 14.7 ms; 80 → 100 ms for the process), paid by every svc that printed a count: a
 * sync at its first page's progress, a bulk run in its summary, an export at its end. Anything but a plain integer (a fraction, -0, NaN, ∞, 1e21 and up) is left to
 * `toLocaleString`, so the text is the same for every number.
 */
export function grouped(n: number): string {
  if (!Number.isInteger(n) || Object.is(n, -0) || Math.abs(n) >= 1e21) return n.toLocaleString('en-US');
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** `word` or its plural as the count says: "1 of 1 row", "2 of 10 rows" (the noun agrees with the last count). */
export function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
