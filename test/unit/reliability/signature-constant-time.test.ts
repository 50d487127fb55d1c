/**
 * The webhook signature check compares in constant time: every well-formed candidate goes
 * through crypto.timingSafeEqual, never `===` on strings (which returns at the first
 * differing character and so tells an attacker, byte by byte, how much of a forgery is right).
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ n: 0 }));
vi.mock('node:crypto', async (original) => {
  const real = await original<typeof import('node:crypto')>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      calls.n++;
      return real.timingSafeEqual(a, b);
    },
  };
});

const { signBody, verifySignature } = await import('../../../src/webhooks/signature.js');

describe('verifySignature', () => {
  beforeEach(() => {
    calls.n = 0;
  });

  it('uses timingSafeEqual for a right and for a wrong signature of the right length', () => {
    const body = '{"data":{"type":"prospect","id":1}}';
    const good = signBody('s3cret', body);
    expect(verifySignature('s3cret', body, good)).toBe(true);
    expect(verifySignature('s3cret', body, `sha256=${good.toUpperCase()}`)).toBe(true);
    const wrong = (good[0] === 'a' ? 'b' : 'a') + good.slice(1);
    expect(verifySignature('s3cret', body, wrong)).toBe(false);
    expect(calls.n).toBe(3);
  });

  it('malformed headers are "no match" without an exception', () => {
    for (const h of [undefined, '', 'xyz', 'abc', '0'.repeat(63), ['not-hex']]) expect(verifySignature('s3cret', 'x', h)).toBe(false);
  });
});
