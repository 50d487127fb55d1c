/**
 * Assertions for checks run thousands of times in one test (a property's cases, every record of
 * a page). vitest updates its assertion state on each expect() call, ~16 µs, which was a few
 * CPU-seconds of the suite: these compare plainly first and call expect() only when that
 * comparison differs, so expect() decides and reports exactly where it would have.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';

/** `expect(actual, message).toEqual(expected)`, called when the two are not deep-strict-equal. */
export function expectEqual(actual: unknown, expected: unknown, message?: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, message).toEqual(expected);
}

/** `expect(actual, message).toBe(expected)`, called when the two are not the same value. */
export function expectBe(actual: unknown, expected: unknown, message?: string): void {
  if (!Object.is(actual, expected)) expect(actual, message).toBe(expected);
}
