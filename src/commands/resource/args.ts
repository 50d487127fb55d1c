/** Positional and numeric arguments of resource commands. */
import { UsageError } from '../../errors.js';

/**
 * A record id: a positive integer (the API's ids are integers), as the string of its digits
 * (leading zeros dropped). Never a Number: ids past 2^53 would round to another record's id.
 */
export function parseId(arg: string): string {
  const digits = arg.trim().replace(/^0+(?=\d)/, '');
  if (!/^[1-9]\d*$/.test(digits)) throw new UsageError(`"${arg}" is not a record id (ids are positive integers)`);
  return digits;
}

/** A whole number ≥ `min`, named after its flag in errors. */
export function parsePositiveInt(value: string, flag: string, min: number): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < min) throw new UsageError(`${flag}: expected a whole number ≥ ${min}, got "${value}"`);
  return Number(value);
}
