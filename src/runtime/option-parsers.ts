/**
 * The parsers of numeric and id options, for every command: one rule per kind of value, so that
 * the same text means the same thing everywhere (`0x50`, `1e3` or ` 7 ` are not whole numbers to
 * one command and numbers to another). Each throws a `UsageError` that names the flag and the value.
 */
import type { BudgetCap, Priority } from '../budget/ledger.js';
import { UsageError } from '../errors.js';

/**
 * A record id: a positive integer (the API's ids are integers), as the string of its digits
 * (leading zeros dropped). Never a Number: ids past 2^53 would round to another record's id.
 */
export function parseId(arg: string): string {
  const digits = arg.trim().replace(/^0+(?=\d)/, '');
  if (!/^[1-9]\d*$/.test(digits)) throw new UsageError(`"${arg}" is not a record id (ids are positive integers)`);
  return digits;
}

/** A whole number (decimal digits only) from `min` to `max` (no upper bound when omitted). */
export function parseWholeNumber(value: string, flag: string, min: number, max?: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || (max !== undefined && n > max)) {
    throw new UsageError(`${flag} ${value}: expected a whole number ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}`);
  }
  return n;
}

/** A TCP port to listen on, 0-65535 (0 = any free port). A number comes from a profile. */
export function parsePort(value: string | number, flag = '--port'): number {
  const text = String(value);
  if (!/^\d+$/.test(text.trim()) || Number(text) > 65535) throw new UsageError(`${flag} ${text}: expected a port number 0-65535`);
  return Number(text);
}

/** A decimal number > 0 (`30`, `2.5`) of `unit`s: seconds, megabytes. */
export function parsePositiveNumber(value: string, flag: string, unit: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || n <= 0) throw new UsageError(`${flag} ${value}: expected ${unit} > 0`);
  return n;
}

/**
 * A duration in seconds for a timer: a decimal number from 0.001 (a millisecond, the finest a
 * timer takes: less reached the HTTP client as a fraction it refused, an internal error) to `max`
 * (timers hold at most about 24 days; past that Node fires them at once).
 * @returns whole milliseconds
 */
export function parseTimerSeconds(value: string, flag: string, max = 86_400): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || n < 0.001 || n > max)
    throw new UsageError(`${flag} ${value}: expected seconds from 0.001 to ${max}`);
  return Math.round(n * 1000);
}

/**
 * `--budget` (`SVC_BUDGET`): requests a command may use per rate window — a whole number, or a
 * share of the limit (`20%`, from 0.1 % to 100 %).
 */
export function parseBudget(value: string, flag = '--budget'): BudgetCap {
  const text = value.trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (pct) {
    const p = Number(pct[1]);
    if (p >= 0.1 && p <= 100) return { percent: p };
  } else if (/^\d+$/.test(text) && Number(text) >= 1) {
    return { requests: Number(text) };
  }
  throw new UsageError(`${flag} ${value}: expected a number of requests an hour (2000) or a share of the hour's limit (20%)`);
}

/** `--priority` (`SVC_PRIORITY`): low, normal or high. */
export function parsePriority(value: string, flag = '--priority'): Priority {
  const v = value.trim().toLowerCase();
  if (v === 'low' || v === 'normal' || v === 'high') return v;
  throw new UsageError(`${flag} ${value}: expected low, normal or high`);
}
