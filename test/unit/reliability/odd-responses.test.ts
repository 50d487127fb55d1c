/**
 * Pure pieces that keep odd answers from becoming silent mistakes: ids sent as strings, a
 * single-resource document without `data`, and the Retry-After shown when svc gives up waiting.
 */
import { describe, expect, it } from 'vitest';
import { singleResource } from '../../../src/api/jsonapi.js';
import { describeRetryAfter } from '../../../src/runtime/report-error.js';
import { ApiError } from '../../../src/errors.js';
import { flatten, recordId } from '../../../src/listing/record-text.js';

describe('recordId / flatten', () => {
  it('prints integer ids sent as strings as numbers, leaves anything else alone', () => {
    expect(recordId('12')).toBe(12);
    expect(recordId(12)).toBe(12);
    for (const odd of ['012', '', 'abc', '1e3', '12345678901234567890', '-3', ' 7']) expect(recordId(odd)).toBe(odd);
  });

  it('flattens a resource with string ids, its relationships and included records', () => {
    const included = new Map([
      [
        'account:5',
        { type: 'account', id: '5', attributes: { name: 'Acme' }, relationships: { owner: { data: { type: 'user', id: '9' } } } },
      ],
    ]);
    const r = flatten(
      {
        type: 'prospect',
        id: '3',
        relationships: {
          account: { data: { type: 'account', id: '5' } },
          emailAddresses: { data: [{ type: 'emailAddress', id: '44' }] },
          stage: { data: null },
        },
      },
      included,
    );
    expect(r).toEqual({
      id: 3,
      type: 'prospect',
      account: { id: 5, type: 'account', name: 'Acme', owner: 9 },
      emailAddresses: [44],
      stage: null,
    });
  });
});

describe('singleResource', () => {
  it('returns the resource, or throws a "bad response" ApiError', () => {
    expect(singleResource(200, { data: { type: 'prospect', id: 1 } })).toEqual({ type: 'prospect', id: 1 });
    for (const doc of [{}, { meta: {} }, { data: null }, { data: [] }, { data: 'x' }] as never[]) {
      expect(() => singleResource(200, doc)).toThrow(ApiError);
      expect(() => singleResource(200, doc)).toThrow('bad response: server answered 200 with no data (expected one resource)');
    }
  });
});

describe('describeRetryAfter', () => {
  const now = Date.parse('2025-03-01T10:00:00Z');
  it('seconds, ISO and HTTP dates; nothing under a second or unreadable', () => {
    expect(describeRetryAfter('3600', now)).toBe('3600 s (at 2025-03-01T11:00:00Z)');
    expect(describeRetryAfter('2025-03-01T12:30:00Z', now)).toBe('2025-03-01T12:30:00Z');
    expect(describeRetryAfter('Sat, 01 Mar 2025 10:05:00 GMT', now)).toBe('2025-03-01T10:05:00Z');
    expect(describeRetryAfter('0', now)).toBeUndefined();
    expect(describeRetryAfter('soon', now)).toBeUndefined();
  });
});
