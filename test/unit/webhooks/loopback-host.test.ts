import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../../src/webhooks/listener.js';

describe('isLoopbackHost', () => {
  it('names only this machine', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1']) expect(isLoopbackHost(h), h).toBe(true);
    // A name that starts like a loopback address is someone else's (DNS rebinding, or --register against it).
    for (const h of ['127.evil.example', '127.0.0.1.evil.example', 'localhost.evil.example', 'evil.example', '10.0.0.1', ''])
      expect(isLoopbackHost(h), h).toBe(false);
  });
});
