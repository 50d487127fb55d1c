/** Secrets in record output (mask.ts): every included record is masked, however deep it nests. */
import { describe, expect, it } from 'vitest';
import { maskSensitive } from '../../../../src/commands/resource-commands/mask.js';

const hook = (id: number) => ({ id, type: 'webhook', url: 'https://h.test/x', secret: `whsec-${id}`, cleanupToken: `ct-${id}` });

describe('maskSensitive', () => {
  it('masks a webhook at the top, included, and nested along an include path; leaves the rest', () => {
    // Records nest deeper than one level since include paths are followed (record-text.ts).
    const records = [{ ...hook(1), other: { id: 7, type: 'user', name: 'Ada', deeper: { id: 8, type: 'user', hooks: [hook(2)] } } }];
    const text = JSON.stringify(maskSensitive(records));
    expect(text).not.toMatch(/whsec-|ct-/);
    expect(records[0]!.secret).toBe('***');
    expect(records[0]!.other.deeper.hooks[0]!.secret).toBe('***');
    expect(records[0]!.other.name).toBe('Ada');
    expect(records[0]!.url).toBe('https://h.test/x');
  });

  it('the record a create returns shows the cleanup token the service made, once, but not the secret the user sent', () => {
    // A CI log of `svc webhooks create --attr secret=…` showed the secret in clear (a trial).
    const [made] = maskSensitive([{ ...hook(3), other: hook(4) }], true);
    expect(made).toMatchObject({ secret: '***', cleanupToken: 'ct-3', other: { secret: '***', cleanupToken: '***' } });
  });
});
