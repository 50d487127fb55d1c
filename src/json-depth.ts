/**
 * A bound on how deeply JSON that svc reads may nest (input files, `--data`, answers). Parsing
 * copes with any depth, but everything after it — validation, flattening, `JSON.stringify` —
 * walks values recursively and would overflow the stack on hostile input; real records nest a
 * few levels.
 */

/** Deepest nesting of objects and arrays accepted. */
export const MAX_JSON_DEPTH = 100;

/**
 * True when `value` nests objects or arrays more than `max` levels deep (iterative: never
 * overflows). `unread(o)` may name properties of `o` not to read: ones whose value is built on
 * first read (lazy members of a listing page, whose depth their parser has bounded already).
 */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH, unread?: (o: object) => readonly string[] | undefined): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // Two parallel stacks rather than a pair per value: a listing page holds ~100,000 objects.
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length) {
    const v = values.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    if (Array.isArray(v)) {
      for (const child of v) {
        if (typeof child === 'object' && child !== null) {
          values.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const skip = unread?.(v);
    for (const key of Object.keys(v)) {
      if (skip?.includes(key)) continue;
      const child = (v as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The message for input that nests too deeply. */
export function tooDeepMessage(max = MAX_JSON_DEPTH): string {
  return `nested deeper than ${max} levels`;
}
