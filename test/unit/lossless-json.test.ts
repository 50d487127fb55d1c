import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeId, relationshipData } from '../../src/api/write-body.js';
import { parseId } from '../../src/runtime/option-parsers.js';
import { idValue, parseJson } from '../../src/lossless-json.js';
import { resourceByType } from '../../src/registry/index.js';
import { propertyRuns } from '../helpers/property-runs.js';

describe('parseJson', () => {
  it('keeps the digits of integers past 2^53, as strings', () => {
    expect(parseJson('{"id":9007199254740993,"n":-12345678901234567890,"ok":9007199254740991}')).toEqual({
      id: '9007199254740993',
      n: '-12345678901234567890',
      ok: 9007199254740991,
    });
    expect(parseJson('[ 9007199254740993 ,{"a":[18446744073709551616]}]')).toEqual(['9007199254740993', { a: ['18446744073709551616'] }]);
  });

  it('leaves strings, floats and safe numbers as JSON.parse gives them', () => {
    const text =
      '{"s":"12345678901234567890","e":"x\\"99999999999999999999","f":12345678901234567.5,"g":1.2345678901234567e30,"h":99999999999999999999e2,"k":1234567890123456}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it('does not turn text that is not JSON into JSON', () => {
    for (const bad of ['01234567890123456789', '[12345678901234567890', '{"a":12345678901234567890 1}', '-'])
      expect(() => parseJson(bad), bad).toThrow(SyntaxError);
  });

  it('is JSON.parse for any JSON, with unsafe integers given as their digits', () => {
    const digits = (v: unknown): unknown =>
      typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) && !/e/.test(String(v))
        ? String(v)
        : Array.isArray(v)
          ? v.map(digits)
          : v && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, digits(x)]))
            : v;
    const safe = (n: bigint) => n >= -(2n ** 53n - 1n) && n <= 2n ** 53n - 1n;
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.bigInt({ min: -(10n ** 22n), max: 10n ** 22n }), { maxLength: 3 }), (v, bigs) => {
        const written = JSON.stringify(v) ?? 'null';
        const text = `[${[written, ...bigs.map(String)].join(',')}]`;
        expect(parseJson(text)).toEqual([digits(JSON.parse(written)), ...bigs.map((n) => (safe(n) ? Number(n) : String(n)))]);
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe('ids', () => {
  it('stay strings of digits from the command line to the request', () => {
    expect(parseId('9007199254740993')).toBe('9007199254740993');
    expect(parseId(' 0042 ')).toBe('42');
    expect(() => parseId('0')).toThrow(/not a record id/);
    expect(() => parseId('1e3')).toThrow(/not a record id/);
    expect(normalizeId('9007199254740993')).toBe('9007199254740993');
    expect(normalizeId(' 12 ')).toBe(12);
    expect(normalizeId('007')).toBe(7);
    expect(idValue('9007199254740991')).toBe(9007199254740991);
    expect(relationshipData(resourceByType('prospect')!, 'account', '9007199254740993')).toEqual({
      data: { type: 'account', id: '9007199254740993' },
    });
  });
});
