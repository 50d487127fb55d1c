/** Positional and numeric arguments of resource commands. */
import { UsageError } from '../../errors.js';

/** A record id: a positive integer (the API's ids are integers). */
export function parseId(arg: string): number {
  if (!/^\d+$/.test(arg.trim()) || Number(arg) <= 0) throw new UsageError(`"${arg}" is not a record id (ids are positive integers)`);
  return Number(arg);
}

/** A whole number ≥ `min`, named after its flag in errors. */
export function parsePositiveInt(value: string, flag: string, min: number): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < min) throw new UsageError(`${flag}: expected a whole number ≥ ${min}, got "${value}"`);
  return Number(value);
}
