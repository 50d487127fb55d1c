/**
 * A bound on how deeply JSON that svc reads may nest (input files, `--data`, answers). Parsing
 * copes with any depth, but everything after it — validation, flattening, `JSON.stringify` —
 * walks values recursively and would overflow the stack on hostile input; real records nest a
 * few levels.
 */

/** Deepest nesting of objects and arrays accepted. */
export const MAX_JSON_DEPTH = 100;

/** True when `value` nests objects or arrays more than `max` levels deep (iterative: never overflows). */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [object, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child as object, depth + 1]);
    }
  }
  return false;
}

/** The message for input that nests too deeply. */
export function tooDeepMessage(max = MAX_JSON_DEPTH): string {
  return `nested deeper than ${max} levels`;
}
