import { describe, expect, it } from 'vitest';
import { checkCustomValue } from '../../../src/org-schema/custom-values.js';
import type { CustomField } from '../../../src/org-schema/types.js';

const field = (type: string, definition: CustomField['definition'] = null): CustomField => ({
  name: 'custom7',
  type,
  required: false,
  label: 'L',
  definition,
});
const ok = (f: CustomField, v: unknown) => {
  const r = checkCustomValue(f, v);
  if ('problem' in r) throw new Error(r.problem);
  return r.value;
};
const bad = (f: CustomField, v: unknown) => {
  const r = checkCustomValue(f, v);
  return 'problem' in r ? r.problem : undefined;
};

describe('custom-field values by validation type', () => {
  it("inclusion: one of the options, any case, sent in the option's own case", () => {
    const f = field('inclusion', ['Web', 'Trade Show']);
    expect(ok(f, 'trade show')).toBe('Trade Show');
    expect(bad(f, 'Radio')).toBe('must be one of Web, Trade Show (got "Radio")');
  });

  it('multi_inclusion: several options separated by ; (or , when unambiguous)', () => {
    const f = field('multi_inclusion', ['Globex', 'Initech', 'Umbrella, Inc']);
    expect(ok(f, 'globex; Initech')).toBe('Globex;Initech');
    expect(ok(f, 'Globex,Initech')).toBe('Globex;Initech');
    expect(ok(f, 'Umbrella, Inc')).toBe('Umbrella, Inc');
    expect(bad(f, 'Globex;Acme')).toMatch(/"Acme" is not among/);
  });

  it('numbers: numerical, percentage (with %), currency (with its code)', () => {
    expect(ok(field('numerical'), '12.5')).toBe('12.5');
    expect(ok(field('numerical'), 7)).toBe('7');
    expect(bad(field('numerical'), '12,5')).toMatch(/"12,5" has a decimal comma: write 12\.5$/);
    expect(bad(field('numerical'), '12;5')).toMatch(/expected a number/);
    expect(ok(field('percentage'), '40%')).toBe('40');
    expect(ok(field('currency', 'USD'), 'USD 1200')).toBe('1200');
    expect(bad(field('currency', 'USD'), '$12')).toMatch(/expected an amount in USD/);
  });

  it('dates, date-times, urls, booleans, phone numbers', () => {
    expect(ok(field('date'), '2024-02-29')).toBe('2024-02-29');
    expect(bad(field('date'), '2023-02-29')).toMatch(/YYYY-MM-DD/);
    expect(ok(field('date_time'), '2024-05-01T10:00:00Z')).toBe('2024-05-01T10:00:00Z');
    expect(bad(field('date_time'), '2024-05-01')).toMatch(/date-time/);
    expect(ok(field('url'), 'https://example.com/x')).toBe('https://example.com/x');
    expect(bad(field('url'), 'ftp://example.com')).toMatch(/http\(s\) URL/);
    expect(ok(field('boolean'), 'Yes')).toBe('true');
    expect(ok(field('boolean'), false)).toBe('false');
    expect(bad(field('boolean'), 'maybe')).toMatch(/true or false/);
    expect(ok(field('phone_number'), '+1 (555) 010-0199 ext. 12')).toBe('+1 (555) 010-0199 ext. 12');
    expect(bad(field('phone_number'), 'call me')).toMatch(/phone number/);
  });

  it('string and unknown types pass; empty and null clear; objects are refused', () => {
    expect(ok(field('string'), ' anything ')).toBe(' anything ');
    expect(ok(field('future_type'), 'x')).toBe('x');
    expect(ok(field('numerical'), null)).toBeNull();
    expect(ok(field('numerical'), '')).toBe('');
    expect(bad(field('string'), { a: 1 })).toMatch(/single value/);
  });
});
