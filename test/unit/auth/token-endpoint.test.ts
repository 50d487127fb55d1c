/** The token request: form encoding, answers, errors and their exit codes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestToken, tokenError, tokenSetFrom, TokenEndpointError } from '../../../src/auth/token-endpoint.js';
import { NetworkError } from '../../../src/errors.js';
import { startTinyServer } from '../../helpers/tiny-server.js';

let server: Awaited<ReturnType<typeof startTinyServer>>;
let answer: ReturnType<Parameters<typeof startTinyServer>[0]> = { status: 200 };
beforeAll(async () => {
  server = await startTinyServer(() => answer);
});
afterAll(() => server.close());

describe('requestToken', () => {
  it('POSTs form-encoded to {auth_url}/oauth/token with the secret encoded; reads the answer', async () => {
    answer = {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        access_token: 'A',
        token_type: 'Bearer',
        expires_in: 7200,
        refresh_token: 'R',
        scope: 'a.all b.read',
        created_at: 1,
      }),
    };
    const lines: string[] = [];
    const secret = 'p&ss=w+rd %/?';
    const t = await requestToken({
      authUrl: `${server.url}/`,
      params: { grant_type: 'refresh_token', client_id: 'c', client_secret: secret, refresh_token: 'old' },
      now: () => 1_000,
      trace: (l) => lines.push(l),
    });
    expect(t).toEqual({ accessToken: 'A', refreshToken: 'R', expiresAt: 1_000 + 7_200_000, scope: 'a.all b.read' });
    const got = server.received.at(-1)!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/oauth/token');
    expect(got.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(got.body).toContain('client_secret=p%26ss%3Dw%2Brd+%25%2F%3F');
    expect(new URLSearchParams(got.body).get('client_secret')).toBe(secret);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^POST http:\S+\/oauth\/token \(grant_type=refresh_token\) → 200 \(\d+ ms\)$/);
    expect(lines[0]).not.toContain('old');
  });

  it('an answer that trickles forever, or never ends, is bounded in time and size', async () => {
    answer = {
      raw: (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 50);
        res.on('close', () => clearInterval(t));
      },
    };
    const started = Date.now();
    const slow = await requestToken({ authUrl: server.url, params: { grant_type: 'refresh_token' }, timeoutMs: 500 }).catch((e) => e);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(slow).toBeInstanceOf(NetworkError);
    expect(slow.message).toMatch(/^POST \S+\/oauth\/token: timed out waiting for the server \(see --timeout\)$/);
    answer = {
      raw: (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      },
    };
    const endless = await requestToken({ authUrl: server.url, params: { grant_type: 'refresh_token' } }).catch((e) => e);
    expect(endless).toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(/oauth\/token: the answer is larger than 1 MB, the cap on one document$/),
    });
  });

  it('RFC 6749 errors: invalid_grant is exit 3 with its description', async () => {
    answer = {
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: 'invalid_grant', error_description: 'used' }),
    };
    const err = await requestToken({ authUrl: server.url, params: { grant_type: 'refresh_token' } }).catch((e) => e);
    expect(err).toBeInstanceOf(TokenEndpointError);
    expect(err).toMatchObject({
      status: 400,
      oauthError: 'invalid_grant',
      exitCode: 3,
      message: 'token request refused (HTTP 400, invalid_grant): used',
    });
  });

  it('a 429 JSON:API document: exit 1, seconds from Retry-After', async () => {
    answer = {
      status: 429,
      headers: { 'retry-after': '42' },
      body: JSON.stringify({ errors: [{ id: 'rateLimitExceeded', title: 'Too many' }] }),
    };
    const err = await requestToken({ authUrl: server.url, params: { grant_type: 'authorization_code' } }).catch((e) => e);
    expect(err).toMatchObject({ status: 429, oauthError: 'rateLimitExceeded', exitCode: 1, retryAfterSeconds: 42 });
    expect(err.message).toContain('retry in 42 s');
  });

  it('a 200 without access_token or with HTML is an error, not a login', async () => {
    answer = { status: 200, body: '<html>login page</html>' };
    await expect(requestToken({ authUrl: server.url, params: {} })).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining('no access_token'),
    });
  });

  it('a refused connection is a NetworkError', async () => {
    await expect(requestToken({ authUrl: 'http://127.0.0.1:1', params: {} })).rejects.toBeInstanceOf(NetworkError);
  });
});

describe('answers', () => {
  it('optional fields stay optional', () => {
    expect(tokenSetFrom({ access_token: 'A' }, 0)).toEqual({ accessToken: 'A' });
    expect(tokenSetFrom({ access_token: 'A', expires_in: 'soon' }, 0)).toEqual({ accessToken: 'A' });
    expect(tokenError(500, undefined).message).toBe('token request refused (HTTP 500)');
    expect(tokenError(401, { error: 'invalid_client' }).exitCode).toBe(3);
  });
});
