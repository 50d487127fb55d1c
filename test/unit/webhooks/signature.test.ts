import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from '../../../src/webhooks/signature.js';

const body = '{"data":{"type":"prospect","id":1},"meta":{"eventName":"prospect.created"}}';

describe('webhook signature', () => {
  it('is the hex HMAC-SHA256 of the raw body', () => {
    expect(signBody('s3cret', body)).toBe(createHmac('sha256', 's3cret').update(body).digest('hex'));
    expect(signBody('s3cret', body)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts the right signature, in any case and with a sha256= prefix', () => {
    const sig = signBody('s3cret', body);
    expect(verifySignature('s3cret', body, sig)).toBe(true);
    expect(verifySignature('s3cret', Buffer.from(body), sig.toUpperCase())).toBe(true);
    expect(verifySignature('s3cret', body, `sha256=${sig}`)).toBe(true);
    expect(verifySignature('s3cret', body, [sig, 'junk'])).toBe(true);
  });

  it('refuses a tampered body, another secret, and malformed headers without throwing', () => {
    const sig = signBody('s3cret', body);
    expect(verifySignature('s3cret', body.replace('1', '2'), sig)).toBe(false);
    expect(verifySignature('other', body, sig)).toBe(false);
    for (const bad of [undefined, '', ' ', sig.slice(1), sig.slice(0, 62), `${sig}00`, 'zz'.repeat(32), 'not hex at all', []]) {
      expect(verifySignature('s3cret', body, bad as string | undefined)).toBe(false);
    }
  });

  it('never throws and matches only its own HMAC (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string(), (b, secret, header) => {
        const ok = verifySignature(secret, b, header);
        expect(ok).toBe(
          header
            .trim()
            .replace(/^sha256=/i, '')
            .toLowerCase() === signBody(secret, b),
        );
      }),
    );
  });
});
