/**
 * The sandbox writes its date-times with `isoSeconds`, by calendar arithmetic rather than a Date
 * and its ISO string per call (src/README.md, Performance machinery): the same text as
 * `new Date(ms).toISOString().slice(0, 19)` everywhere, which this checks across leap days,
 * centuries, the edges of its range and fractional instants.
 */
import { expect, it } from 'vitest';
import { isoSeconds } from '../../src/sandbox/data/time.js';

const byDate = (ms: number) => new Date(ms).toISOString().slice(0, 19);

it('writes what Date writes, from 1970 to 9999 and past both ends', () => {
  const differ: string[] = [];
  const check = (ms: number) => {
    if (isoSeconds(ms) !== byDate(ms)) differ.push(`${ms}: ${isoSeconds(ms)} ≠ ${byDate(ms)}`);
  };
  // Every day from 1970 to 2500 at a time of day that moves by 7 h 13 min 17.3 s a step, so every
  // hour, minute and second comes round (~190,000 instants).
  for (let ms = 0; ms < Date.UTC(2500, 0, 1); ms += 86_400_000 + 25_997_300) check(ms);
  // Days where calendars go wrong: leap days, the day after, the ends of years and centuries.
  for (const y of [1970, 1972, 1999, 2000, 2024, 2100, 2400, 9999])
    for (const [m, d] of [
      [1, 28],
      [1, 29],
      [2, 1],
      [11, 31],
      [0, 1],
    ])
      for (const t of [0, 1, 999, 86_399_999]) check(Date.UTC(y, m!, d!) + t);
  // The range's edges and beyond: before 1970, the year 10000, fractional instants.
  for (const ms of [-1, -86_400_001, 253_402_300_799_999, 253_402_300_800_000, 0.5, 1_700_000_000_123.9, 8.64e15]) check(ms);
  expect(differ).toEqual([]);
  expect(() => isoSeconds(Number.NaN)).toThrow(RangeError);
});
