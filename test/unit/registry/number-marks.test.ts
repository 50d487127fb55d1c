/**
 * Numbers as spreadsheets write them (src/registry/formats.ts decimalCommaNumber): a decimal comma
 * in a `;`-separated file; thousands marks where the number is plain (both marks, or one mark
 * twice); in a `;` file one dot before three digits refused with both readings. A German `;` file's
 * `2.500` (two thousand five hundred) had been written as 2.5 (a trial); a plain `0.125` is a
 * decimal everywhere but there (a review).
 */
import { expect, it } from 'vitest';
import { asciiForms } from '../../../src/ascii-forms.js';
import { decimalCommaNumber } from '../../../src/registry/formats.js';

const read = (t: string, semicolonFile: boolean | undefined) => {
  const r = decimalCommaNumber(t, semicolonFile);
  return typeof r === 'string' ? r : `refused: ${r.problem}`;
};

it('a ;-separated file (de-DE, fr-FR Excel)', () => {
  expect(read('4,5', true)).toBe('4.5');
  expect(read('0,125', true)).toBe('0.125');
  expect(read('1,234', true)).toBe('1.234');
  expect(read('1.234,5', true)).toBe('1234.5');
  expect(read('-1.234.567,25', true)).toBe('-1234567.25');
  expect(read('1.234.567', true)).toBe('1234567');
  expect(read('2.500', true)).toBe(
    'refused: "2.500" is 2500 with . as the thousands separator (as this ;-separated file writes numbers) or 2.500 with it as the decimal point: write 2500, or 2,500 for the decimal',
  );
  // What the refusal suggests reads as it says.
  expect([read('2500', true), read('2,500', true)]).toEqual(['2500', '2.500']);
  expect(read('0.125', true)).toBe('0.125');
  expect(read('4.5', true)).toBe('4.5');
  expect(read('12', true)).toBe('12');
});

it('a comma file (en-US Excel) and a flag: one dot is a decimal point, whatever the digits', () => {
  for (const where of [false, undefined]) {
    expect(read('0.125', where)).toBe('0.125');
    expect(read('2.500', where)).toBe('2.500');
    expect(read('-0.500', where)).toBe('-0.500');
    expect(read('1,234.5', where)).toBe('1234.5');
    expect(read('1,234,567', where)).toBe('1234567');
    expect(read('1.234,5', where)).toBe('1234.5');
  }
  expect(read('4,5', false)).toMatch(/^refused: "4,5" has a decimal comma: write 4\.5, or save the file ;-separated/);
  expect(read('4,5', undefined)).toBe('refused: "4,5" has a decimal comma: write 4.5');
  expect(read('12,5', undefined)).toBe('refused: "12,5" has a decimal comma: write 12.5');
  expect(read('0,125', undefined)).toBe('refused: "0,125" has a decimal comma: write 0.125');
  expect(read('1.200,50', undefined)).toBe('1200.50');
});

it('a comma before three digits: the thousands reading as plain digits, the decimal one only where it cannot read as thousands', () => {
  // "1,200" was told "write 1.200", which reads as 1200 where the dot groups thousands (a trial).
  expect(read('1,200', undefined)).toBe('refused: "1,200" has a comma: write 1200 if it groups thousands, or 1.2 if it is a decimal comma');
  expect(read('1,234', false)).toMatch(
    /^refused: "1,234" has a comma: write 1234 if it groups thousands, or use a decimal point if it is a decimal comma, or save the file ;-separated/,
  );
  expect(read('-10,000', undefined)).toBe(
    'refused: "-10,000" has a comma: write -10000 if it groups thousands, or -10 if it is a decimal comma',
  );
  // What it suggests reads as it says.
  expect([read('1200', undefined), read('1.2', undefined), read('-10000', false), read('-10', false)]).toEqual([
    '1200',
    '1.2',
    '-10000',
    '-10',
  ]);
});

it('full-width digits and marks read as their ASCII forms, and only those (not NFKC: 10² is no 102)', () => {
  expect(asciiForms('８５')).toBe('85');
  expect(asciiForms('－１，２３４．５％')).toBe('-1,234.5%');
  expect(asciiForms('＋９')).toBe('+9');
  // What NFKC would turn into digits stays, for the number check to refuse.
  expect(asciiForms('10²')).toBe('10²');
  expect(asciiForms('①')).toBe('①');
  expect(asciiForms('営業部　部長')).toBe('営業部　部長');
  expect(read('－０，２５', true)).toBe('-0.25');
  expect(read('１．２３４，５', true)).toBe('1234.5');
  expect(read('１，２', undefined)).toBe('refused: "１，２" has a decimal comma: write 1.2');
});
