/**
 * Numbers as spreadsheets write them (src/registry/formats.ts decimalCommaNumber): a decimal comma
 * in a `;`-separated file, thousands separators where both marks make the number plain, and one
 * mark in groups of three refused with both readings. A German `;` file's `2.500` (two thousand
 * five hundred) had been written as 2.5, and `1.234,5` refused (a trial).
 */
import { expect, it } from 'vitest';
import { decimalCommaNumber } from '../../../src/registry/formats.js';

it('reads a number as the file writes it, and refuses one that two conventions read apart', () => {
  const read = (t: string, semicolonFile: boolean | undefined) => {
    const r = decimalCommaNumber(t, semicolonFile);
    return typeof r === 'string' ? r : `refused: ${r.problem}`;
  };
  // A `;` file (de-DE, fr-FR Excel).
  expect(read('4,5', true)).toBe('4.5');
  expect(read('1.234,5', true)).toBe('1234.5');
  expect(read('-1.234.567,25', true)).toBe('-1234567.25');
  expect(read('2.500', true)).toBe(
    'refused: "2.500" is 2500 with . as the thousands separator, or 2.500 with it as the decimal mark: write 2500 or 2,500',
  );
  expect(read('4.5', true)).toBe('4.5');
  expect(read('1.234.567', true)).toBe('1234567');
  expect(read('12', true)).toBe('12');
  // A comma file (en-US Excel): a quoted cell.
  expect(read('1,234.5', false)).toBe('1234.5');
  expect(read('1,234', false)).toBe(
    'refused: "1,234" is 1234 with , as the thousands separator, or 1.234 with it as the decimal mark: write 1234 or 1.234',
  );
  expect(read('4,5', false)).toMatch(/^refused: "4,5" has a decimal comma: write 4\.5, or save the file ;-separated/);
  expect(read('1.5', false)).toBe('1.5');
  // A flag.
  expect(read('4,5', undefined)).toBe('refused: "4,5" has a decimal comma: write 4.5');
  expect(read('1.234,5', undefined)).toBe('1234.5');
});
