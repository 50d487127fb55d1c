/** OAuth: consent page, codes, token endpoint, refresh rotation, issue rate (spec: Authentication, Limits). */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Client } from '../helpers/sandbox.js';

let c: Client;
beforeAll(async () => {
  c = await start({ seed: 5, tokenIssueIntervalMs: 0 });
});
afterAll(() => c.sb.close());

const REDIRECT = 'http://127.0.0.1:8765/callback';

function authorizeUrl(extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    client_id: c.sb.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'prospects.read accounts.all',
    state: 'xyz',
    ...extra,
  });
  return `${c.sb.authUrl}/oauth/authorize?${q}`;
}

async function consent(decision: 'approve' | 'deny', extra: Record<string, string> = {}): Promise<URL> {
  const page = await fetch(authorizeUrl(extra));
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('<form method="post"');
  expect(html).not.toContain('<script');
  const fields = new URLSearchParams(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [
      m[1]!,
      m[2]!.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))),
    ]),
  );
  fields.set('decision', decision);
  const r = await fetch(`${c.sb.authUrl}/oauth/authorize`, { method: 'POST', body: fields, redirect: 'manual' });
  expect(r.status).toBe(302);
  return new URL(r.headers.get('location')!);
}

function token(params: Record<string, string>) {
  return fetch(`${c.sb.authUrl}/oauth/token`, { method: 'POST', body: new URLSearchParams(params) });
}

const codeGrant = (code: string, extra: Record<string, string> = {}) =>
  token({
    grant_type: 'authorization_code',
    client_id: c.sb.clientId,
    client_secret: c.sb.clientSecret,
    redirect_uri: REDIRECT,
    code,
    ...extra,
  });

describe('authorize', () => {
  it('approve redirects with code and state; deny with error=access_denied', async () => {
    const ok = await consent('approve');
    expect(`${ok.origin}${ok.pathname}`).toBe(REDIRECT);
    expect(ok.searchParams.get('code')).toBeTruthy();
    expect(ok.searchParams.get('state')).toBe('xyz');
    const no = await consent('deny');
    expect(no.searchParams.get('error')).toBe('access_denied');
    expect(no.searchParams.get('state')).toBe('xyz');
  });

  it('accepts localhost on any port; refuses other redirect URIs and unknown clients without redirecting', async () => {
    expect((await fetch(authorizeUrl({ redirect_uri: 'http://localhost:1/callback' }))).status).toBe(200);
    expect((await fetch(authorizeUrl({ redirect_uri: 'https://evil.test/callback' }), { redirect: 'manual' })).status).toBe(400);
    expect((await fetch(authorizeUrl({ client_id: 'nope' }), { redirect: 'manual' })).status).toBe(400);
  });
});

describe('token', () => {
  it('exchanges a code for exactly the spec fields; the token works with its scopes only', async () => {
    const code = (await consent('approve')).searchParams.get('code')!;
    const r = await codeGrant(code);
    expect(r.status).toBe(200);
    const body = (await r.json()) as any;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'created_at', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'prospects.read accounts.all' });
    expect((await c.get('/prospects/1', body.access_token)).status).toBe(200);
    expect((await c.get('/sequences/1', body.access_token)).status).toBe(403);
    const root = await c.get('', body.access_token);
    expect(root.body.meta.application.id).toBe(c.sb.clientId);
    expect(root.body.meta.token.scopes).toEqual(['prospects.read', 'accounts.all']);
  });

  it('codes are single-use; every parameter must match', async () => {
    const code = (await consent('approve')).searchParams.get('code')!;
    const wrongUri = await codeGrant(code, { redirect_uri: 'http://127.0.0.1:1/callback' });
    expect(wrongUri.status).toBe(400);
    expect(((await wrongUri.json()) as any).error).toBe('invalid_grant');
    expect((await codeGrant(code, { client_secret: 'x' })).status).toBe(400);
    expect((await codeGrant(code)).status).toBe(200);
    const reuse = await codeGrant(code);
    expect(reuse.status).toBe(400);
    expect((await reuse.json()) as any).toMatchObject({ error: 'invalid_grant', error_description: expect.any(String) });
  });

  it('PKCE S256: the verifier must match the challenge', async () => {
    const verifier = 'v'.repeat(50);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const code = (await consent('approve', { code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get('code')!;
    expect((await codeGrant(code, { code_verifier: 'wrong' })).status).toBe(400);
    expect((await codeGrant(code, { code_verifier: verifier })).status).toBe(200);
  });

  it('refresh tokens rotate: the old one is invalid after use', async () => {
    const code = (await consent('approve')).searchParams.get('code')!;
    const first = (await (await codeGrant(code)).json()) as any;
    const refresh = (rt: string) =>
      token({ grant_type: 'refresh_token', client_id: c.sb.clientId, client_secret: c.sb.clientSecret, refresh_token: rt });
    const r = await refresh(first.refresh_token);
    expect(r.status).toBe(200);
    const second = (await r.json()) as any;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await refresh(first.refresh_token)).status).toBe(400);
    expect((await refresh(second.refresh_token)).status).toBe(200);
  });
});

describe('issue rate', () => {
  it('one access token per user per interval, else 429 rateLimitExceeded with Retry-After', async () => {
    const slow = await start({ seed: 5, tokenIssueIntervalMs: 60_000 });
    try {
      const get = async () => {
        const page = await fetch(`${slow.sb.authUrl}/oauth/authorize`, {
          method: 'POST',
          redirect: 'manual',
          body: new URLSearchParams({
            client_id: slow.sb.clientId,
            redirect_uri: REDIRECT,
            response_type: 'code',
            scope: 'prospects.read',
            decision: 'approve',
          }),
        });
        const code = new URL(page.headers.get('location')!).searchParams.get('code')!;
        return fetch(`${slow.sb.authUrl}/oauth/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            client_id: slow.sb.clientId,
            client_secret: slow.sb.clientSecret,
            redirect_uri: REDIRECT,
            code,
          }),
        });
      };
      expect((await get()).status).toBe(200);
      const r = await get();
      expect(r.status).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await r.json()) as any).errors[0].id).toBe('rateLimitExceeded');
    } finally {
      await slow.sb.close();
    }
  });
});

describe('refresh token cap', () => {
  it('keeps at most 100 refresh tokens per user and application (oldest dropped)', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 101; i++) {
      const r = await fetch(`${c.sb.authUrl}/oauth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({
          client_id: c.sb.clientId,
          redirect_uri: REDIRECT,
          response_type: 'code',
          scope: 'prospects.read',
          decision: 'approve',
        }),
      });
      const code = new URL(r.headers.get('location')!).searchParams.get('code')!;
      tokens.push(((await (await codeGrant(code)).json()) as any).refresh_token);
    }
    const refresh = (rt: string) =>
      token({ grant_type: 'refresh_token', client_id: c.sb.clientId, client_secret: c.sb.clientSecret, refresh_token: rt });
    expect((await refresh(tokens[0]!)).status).toBe(400);
    expect((await refresh(tokens[100]!)).status).toBe(200);
  });
});
