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
 * overflows). `unread(o)` may name a property of `o` not to read: one whose value is built on
 * first read (lazy attributes of a listing page, whose depth their parser has bounded already).
 */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH, unread?: (o: object) => string | undefined): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [object, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    const skip = unread && !Array.isArray(v) ? unread(v) : undefined;
    const children = Array.isArray(v)
      ? v
      : skip === undefined
        ? Object.values(v)
        : Object.keys(v).flatMap((k) => (k === skip ? [] : [(v as Record<string, unknown>)[k]]));
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child as object, depth + 1]);
    }
  }
  return false;
}

/** The message for input that nests too deeply. */
export function tooDeepMessage(max = MAX_JSON_DEPTH): string {
  return `nested deeper than ${max} levels`;
}
