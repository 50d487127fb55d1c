/** src/grouped.ts: the same text as `toLocaleString('en-US')` for every number, without ICU. */
import { expect, it } from 'vitest';
import { grouped } from '../../src/grouped.js';
import { prng } from '../helpers/bulk.js';

it('writes what toLocaleString("en-US") writes', () => {
  const rand = prng(7);
  const xs = [
    0,
    -0,
    1,
    -1,
    999,
    1000,
    -1000,
    1234567,
    2 ** 53,
    -(2 ** 53),
    1e20,
    1e21,
    -1e21,
    1.5,
    -2.25,
    123456.789,
    NaN,
    Infinity,
    -Infinity,
  ];
  for (let i = 0; i < 5000; i++) xs.push(Math.floor((rand() - 0.3) * 10 ** Math.floor(rand() * 22)));
  const differ = xs.filter((x) => grouped(x) !== x.toLocaleString('en-US'));
  expect(differ.map((x) => [x, grouped(x), x.toLocaleString('en-US')])).toEqual([]);
});
