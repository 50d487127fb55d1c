import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { errorFromResponse, parseDocument, parseRateLimit, retryAfterMs } from '../../src/api/jsonapi.js';
import { ApiError, ExitCode, exitCodeForStatus } from '../../src/errors.js';

const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');

describe('JSON:API error documents', () => {
  it('carries status, id, title, detail and pointer', () => {
    const e = errorFromResponse(422, fixture('error-422.json'), 'application/vnd.api+json');
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(422);
    expect(e.exitCode).toBe(1);
    expect(e.errors[0]!.id).toBe('validationError');
    expect(e.errors[0]!.source?.pointer).toMatch(/^\/data\/attributes\//);
    expect(e.message).toContain(e.errors[0]!.title!);
  });

  it('reads the `details` spelling of one documented 415 example', () => {
    const e = errorFromResponse(
      415,
      JSON.stringify({
        errors: [{ id: 'unsupportedMediaType', title: 'Unsupported media type', details: 'use application/vnd.api+json' }],
      }),
      undefined,
    );
    expect(e.errors[0]!.detail).toBe('use application/vnd.api+json');
    expect(e.message).toBe('Unsupported media type: use application/vnd.api+json');
  });

  it('maps 401 → 3, 403 → 4, others → 1', () => {
    expect(errorFromResponse(401, '{"errors":[{"title":"Unauthorized"}]}', undefined).exitCode).toBe(ExitCode.AUTH);
    expect(errorFromResponse(403, '{"errors":[{"id":"unauthorizedOauthScope","title":"Forbidden"}]}', undefined).exitCode).toBe(
      ExitCode.PERMISSION,
    );
    expect(errorFromResponse(404, '{"errors":[{"id":"resourceNotFound"}]}', undefined).exitCode).toBe(1);
    expect(errorFromResponse(503, '', undefined).exitCode).toBe(1);
    expect([200, 400, 422, 429, 500].map(exitCodeForStatus)).toEqual([1, 1, 1, 1, 1]);
  });

  it('explains HTML pages and empty or broken bodies instead of crashing', () => {
    expect(errorFromResponse(502, '<html><body>Bad gateway</body></html>', 'text/html').message).toMatch(/HTML page/);
    expect(errorFromResponse(500, '', undefined).message).toMatch(/empty body/);
    // A filter listing thousands of ids: the fix, not "empty body" (a trial).
    for (const status of [414, 431])
      expect(errorFromResponse(status, '', undefined).message).toMatch(/too long for the server .*on a range instead of a long list$/);
    expect(errorFromResponse(500, '{"errors": [', 'application/json').message).toMatch(/not JSON:API/);
    expect(errorFromResponse(400, '{"error":"invalid_grant","error_description":"expired"}', 'application/json').message).toBe(
      'invalid_grant: expired',
    );
  });

  it('refuses non-JSON success bodies with a clear error', () => {
    const body = (text: string) => Buffer.from(text, 'utf8');
    expect(() => parseDocument(200, body('<html></html>'), 'text/html')).toThrow(/HTML page/);
    expect(() => parseDocument(200, body('  <p>hi'), undefined)).toThrow(/HTML page/);
    expect(() => parseDocument(200, body('[1,2]'), 'application/json')).toThrow(/invalid JSON/);
    expect(parseDocument(204, body(''), undefined)).toEqual({});
    // White space only, as String#trim sees it (a byte-order mark, a no-break space too).
    expect(parseDocument(200, body(' \r\n\t'), undefined)).toEqual({});
    expect(parseDocument(200, body('\ufeff \u00a0'), undefined)).toEqual({});
    expect(parseDocument(200, body('{"data":{"type":"p","id":1,"attributes":{"name":"Zoë"}}}'), undefined)).toEqual({
      data: { type: 'p', id: 1, attributes: { name: 'Zoë' } },
    });
  });
});

describe('rate-limit headers', () => {
  it('uses the first number of a comma list and tolerates garbage', () => {
    expect(
      parseRateLimit({ 'x-ratelimit-limit': '10000, 20000', 'x-ratelimit-remaining': '9999, 19988', 'x-ratelimit-reset': '1700000000' }),
    ).toEqual({
      limit: 10000,
      remaining: 9999,
      reset: '1700000000',
    });
    expect(parseRateLimit({ 'x-ratelimit-remaining': 'lots' })).toEqual({});
    expect(parseRateLimit({})).toEqual({});
  });

  it('reads Retry-After as seconds, ISO time, HTTP date or epoch seconds', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs('2026-01-01T00:00:30Z', now)).toBe(30_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs(String(now / 1000 + 5), now)).toBe(5000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('2025-01-01T00:00:00Z', now)).toBe(0);
  });
});
