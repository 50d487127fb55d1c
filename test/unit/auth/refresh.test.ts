/**
 * The refreshing token provider against the sandbox's token endpoint: one refresh for many
 * callers, reuse of another process's refresh, the CI seed, errors, the rate-limit wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfigStore, type ConfigStore } from '../../../src/auth/config.js';
import { refreshingTokenProvider, seedHash, type RefreshingProviderOptions } from '../../../src/auth/refresh.js';
import { AuthError } from '../../../src/errors.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { parseConsentForm } from '../../helpers/oauth.js';
import { tempDir } from '../../helpers/run-svc.js';
import type { TestSandbox } from '../../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 3, tokenIssueIntervalMs: 0 });
});
afterAll(() => sb.close());

/** A real grant from the sandbox: consent approved over HTTP, code exchanged. */
async function grant(target: TestSandbox = sb): Promise<{ accessToken: string; refreshToken: string }> {
  const redirect = 'http://127.0.0.1:9/callback';
  const url = `${target.authUrl}/oauth/authorize?${new URLSearchParams({ client_id: target.clientId, redirect_uri: redirect, response_type: 'code', scope: 'prospects.all', state: 's' })}`;
  const { action, fields } = parseConsentForm(await (await fetch(url)).text(), url);
  fields.set('decision', 'approve');
  const code = new URL(
    (await fetch(action, { method: 'POST', body: fields, redirect: 'manual' })).headers.get('location')!,
  ).searchParams.get('code')!;
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    client_id: target.clientId,
    client_secret: target.clientSecret,
    redirect_uri: redirect,
    code,
  });
  const t = (await (await fetch(`${target.authUrl}/oauth/token`, { method: 'POST', body })).json()) as {
    access_token: string;
    refresh_token: string;
  };
  return { accessToken: t.access_token, refreshToken: t.refresh_token };
}

function setup(expiresAt: number, extra: Partial<RefreshingProviderOptions> = {}, target: TestSandbox = sb) {
  const store: ConfigStore = openConfigStore({ SVC_CONFIG_DIR: tempDir() });
  const provider = (s: ConfigStore = store) =>
    refreshingTokenProvider({ store: s, profileName: 'default', authUrl: target.authUrl, ...extra });
  return {
    store,
    provider,
    login: async () => {
      const g = await grant(target);
      store.set('default', {
        baseUrl: target.baseUrl,
        authUrl: target.authUrl,
        clientId: target.clientId,
        clientSecret: target.clientSecret,
        ...g,
        expiresAt,
      });
      return g;
    },
  };
}

const tokenCalls = (target: TestSandbox, mark: number) => target.requests.slice(mark).filter((r) => r.path === '/oauth/token').length;

describe('refreshingTokenProvider', () => {
  it('a fresh token is handed out as stored, without a request', async () => {
    const { login, provider } = setup(Date.now() + 3_600_000);
    const g = await login();
    const mark = sb.requests.length;
    expect(await provider().getToken()).toBe(g.accessToken);
    expect(tokenCalls(sb, mark)).toBe(0);
  });

  it('twenty parallel callers of an expiring token cause one refresh and all get the new token', async () => {
    const { login, provider, store } = setup(Date.now() + 59_000);
    const g = await login();
    const p = provider();
    const mark = sb.requests.length;
    const tokens = await Promise.all(Array.from({ length: 20 }, () => p.getToken()));
    expect(tokenCalls(sb, mark)).toBe(1);
    const stored = store.get('default')!;
    expect(new Set(tokens)).toEqual(new Set([stored.accessToken]));
    expect(stored.accessToken).not.toBe(g.accessToken);
    expect(stored.refreshToken).not.toBe(g.refreshToken);
    expect(stored.expiresAt).toBeGreaterThan(Date.now() + 7_000_000);
  });

  it('after a 401, a token another process has refreshed meanwhile is reused without a request', async () => {
    const { login, provider, store } = setup(Date.now() + 3_600_000);
    await login();
    const p = provider();
    const old = await p.getToken();
    // "Another process" refreshes and stores a new pair.
    const other = await grant();
    store.set('default', { ...store.get('default')!, ...other });
    const mark = sb.requests.length;
    expect(await p.onUnauthorized!()).toBe(true);
    expect(tokenCalls(sb, mark)).toBe(0);
    expect(await p.getToken()).toBe(other.accessToken);
    expect(other.accessToken).not.toBe(old);
  });

  it('after a 401 on the current token, refreshes once', async () => {
    const { login, provider, store } = setup(Date.now() + 3_600_000);
    const g = await login();
    const p = provider();
    await p.getToken();
    const mark = sb.requests.length;
    expect(await p.onUnauthorized!()).toBe(true);
    expect(tokenCalls(sb, mark)).toBe(1);
    expect(store.get('default')!.accessToken).not.toBe(g.accessToken);
  });

  it('without a refresh token: getToken of an expired login is an AuthError; onUnauthorized declines', async () => {
    const { store, provider } = setup(0);
    store.set('default', { accessToken: 'a-token-123456', expiresAt: Date.now() - 1 });
    const err = await provider()
      .getToken()
      .catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toContain('has expired and there is no refresh token');
    store.set('default', { accessToken: 'a-token-123456' });
    expect(await provider().onUnauthorized!()).toBe(false);
    const none = openConfigStore({ SVC_CONFIG_DIR: tempDir() });
    await expect(provider(none).getToken()).rejects.toThrow(/not logged in \(profile "default"\)/);
  });

  it('SVC_REFRESH_TOKEN seeds the profile once; a second process reuses the result', async () => {
    const g = await grant();
    const env = { refreshToken: g.refreshToken, clientId: sb.clientId, clientSecret: sb.clientSecret };
    const { store, provider } = setup(0, { env, baseUrl: sb.baseUrl });
    const mark = sb.requests.length;
    const t1 = await provider().getToken();
    const stored = store.get('default')!;
    expect(stored).toMatchObject({ accessToken: t1, refreshSeed: seedHash(g.refreshToken), clientId: sb.clientId, baseUrl: sb.baseUrl });
    expect(stored.refreshToken).not.toBe(g.refreshToken);
    expect(stored).not.toHaveProperty('clientSecret');
    expect(JSON.stringify(stored)).not.toContain(g.refreshToken);
    const second = refreshingTokenProvider({
      store: openConfigStore({ SVC_CONFIG_DIR: store.dir }),
      profileName: 'default',
      authUrl: sb.authUrl,
      env,
    });
    expect(await second.getToken()).toBe(t1);
    expect(tokenCalls(sb, mark)).toBe(1);
  });

  it('SVC_REFRESH_TOKEN into a profile that names other hosts (but holds no secret): the profile records the hosts the tokens came from', async () => {
    const g = await grant();
    const env = { refreshToken: g.refreshToken, clientId: sb.clientId, clientSecret: sb.clientSecret };
    const { store, provider } = setup(0, { env, baseUrl: sb.baseUrl });
    store.set('default', { baseUrl: 'http://127.0.0.9:1/api/v2', authUrl: 'http://127.0.0.9:1' });
    await provider().getToken();
    expect(store.get('default')).toMatchObject({ baseUrl: sb.baseUrl, authUrl: sb.authUrl });
  });

  it('a spent SVC_REFRESH_TOKEN is an AuthError that says so, with its one fix (no browser login: a CI job has none)', async () => {
    const env = { refreshToken: 'spent-seed-0123456789', clientId: sb.clientId, clientSecret: sb.clientSecret };
    const { provider } = setup(0, { env });
    const err = await provider()
      .getToken()
      .catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toContain('invalid_grant');
    expect(err.hints.join('\n')).toContain('SVC_REFRESH_TOKEN works once');
    // A trial's CI job was told both to store a fresh token and to run `svc login`.
    expect(err.hints).toHaveLength(1);
  });

  it('waits out the one-token-per-interval limit once, telling the user', async () => {
    const limited = await startSandbox({ port: 0, seed: 3, tokenIssueIntervalMs: 1_500 });
    try {
      const notices: string[] = [];
      const waits: number[] = [];
      const { login, provider, store } = setup(
        Date.now() - 1,
        {
          notice: (l) => notices.push(l),
          sleep: async (ms) => {
            waits.push(ms);
            await new Promise((r) => setTimeout(r, ms));
          },
        },
        limited,
      );
      const g = await login();
      const mark = limited.requests.length;
      const t = await provider().getToken();
      expect(t).not.toBe(g.accessToken);
      expect(store.get('default')!.accessToken).toBe(t);
      expect(tokenCalls(limited, mark)).toBe(2);
      expect(waits).toEqual([2000]);
      expect(notices[0]).toMatch(/one access token per minute: waiting 2 s/);
    } finally {
      await limited.close();
    }
  });
});
