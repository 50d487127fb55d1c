/** The random values of a login, the authorize URL, callback checking, scopes, the root document. */
import { describe, expect, it } from 'vitest';
import { buildAuthorizeUrl, checkCallback, parsePastedRedirect } from '../../../src/auth/authorize-url.js';
import { pkcePair, randomState, s256, sameSecret } from '../../../src/auth/pkce.js';
import { DEFAULT_SCOPES, isScopeShaped, normaliseScopes, scopesToAsk, scopesWith } from '../../../src/auth/scopes.js';
import { describeUser, parseRoot } from '../../../src/auth/whoami.js';

describe('state and PKCE', () => {
  it('S256 matches the RFC 7636 appendix B example', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('fresh unguessable values every time, in the RFC 7636 alphabet and length', () => {
    const states = new Set(Array.from({ length: 200 }, randomState));
    expect(states.size).toBe(200);
    for (const s of states) expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const p = pkcePair();
    expect(p.verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    expect(p.challenge).toBe(s256(p.verifier));
    expect(pkcePair().verifier).not.toBe(p.verifier);
  });

  it('sameSecret compares exactly', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abd', 'abc')).toBe(false);
    expect(sameSecret('ab', 'abc')).toBe(false);
    expect(sameSecret(null, 'abc')).toBe(false);
  });
});

describe('authorize URL', () => {
  it('carries the parameters of the spec, scopes with %20', () => {
    const u = buildAuthorizeUrl({
      authUrl: 'https://auth.example.com/',
      clientId: 'c id',
      redirectUri: 'http://127.0.0.1:8976/callback',
      scopes: 'prospects.read accounts.all',
      state: 'st',
    });
    expect(u).toBe(
      'https://auth.example.com/oauth/authorize?client_id=c%20id&redirect_uri=http%3A%2F%2F127.0.0.1%3A8976%2Fcallback&response_type=code&scope=prospects.read%20accounts.all&state=st',
    );
  });

  it('keeps a path prefix of the auth URL and adds the S256 challenge with PKCE', () => {
    const u = new URL(
      buildAuthorizeUrl({
        authUrl: 'https://h.test/tenant',
        clientId: 'c',
        redirectUri: 'r',
        scopes: 's.all',
        state: 'x',
        codeChallenge: 'ch',
      }),
    );
    expect(u.pathname).toBe('/tenant/oauth/authorize');
    expect(u.searchParams.get('code_challenge')).toBe('ch');
    expect(u.searchParams.get('code_challenge_method')).toBe('S256');
  });
});

describe('checkCallback', () => {
  const q = (s: string) => new URLSearchParams(s);
  it('accepts a code or an error only with the right state', () => {
    expect(checkCallback(q('code=abc&state=S'), 'S')).toEqual({ kind: 'code', code: 'abc' });
    expect(checkCallback(q('error=access_denied&error_description=no&state=S'), 'S')).toEqual({
      kind: 'error',
      error: 'access_denied',
      description: 'no',
    });
    expect(checkCallback(q('code=abc&state=T'), 'S')).toMatchObject({ kind: 'rejected', reason: 'the state does not match this login' });
    expect(checkCallback(q('code=abc'), 'S')).toMatchObject({ kind: 'rejected', reason: 'the redirect carries no state' });
    expect(checkCallback(q('error=access_denied'), 'S').kind).toBe('rejected');
    expect(checkCallback(q('state=S'), 'S').kind).toBe('rejected');
  });

  it('reads pasted redirect URLs, whole or as a query', () => {
    expect(parsePastedRedirect('  http://127.0.0.1:8976/callback?code=a&state=b \n')?.get('code')).toBe('a');
    expect(parsePastedRedirect('?code=a&state=b')?.get('state')).toBe('b');
    expect(parsePastedRedirect('hello')).toBeUndefined();
    expect(parsePastedRedirect('http://127.0.0.1:8976/callback')).toBeUndefined();
    expect(parsePastedRedirect('')).toBeUndefined();
  });
});

describe('scopes', () => {
  it('default scopes are <collection>.all, well-formed', () => {
    const list = DEFAULT_SCOPES.split(' ');
    expect(list).toContain('prospects.all');
    for (const s of list) expect(isScopeShaped(s)).toBe(true);
  });
  it('the default reads what svc sync copies; a profile that took the earlier default gets it, one that chose keeps its own', () => {
    // A new user's trial: a default login could never sync stages and personas.
    const list = DEFAULT_SCOPES.split(' ');
    expect(list).toEqual(expect.arrayContaining(['stages.read', 'personas.read']));
    const earlier = list.filter((s) => s.endsWith('.all')).join(' ');
    expect(scopesToAsk(undefined, earlier)).toBe(DEFAULT_SCOPES);
    expect(scopesToAsk(undefined, undefined)).toBe(DEFAULT_SCOPES);
    expect(scopesToAsk(undefined, 'prospects.read')).toBe('prospects.read');
    expect(scopesToAsk('accounts.all', earlier)).toBe('accounts.all');
    expect(scopesWith(['stages.all', 'prospects.all'], ['stages.read', 'personas.read'])).toBe('stages.all prospects.all personas.read');
  });
  it('normalises commas, spaces and duplicates', () => {
    expect(normaliseScopes('a.read, b.all  a.read')).toBe('a.read b.all');
    expect(normaliseScopes(' , ')).toBeUndefined();
    expect(isScopeShaped('prospects')).toBe(false);
    expect(isScopeShaped('prospects.admin')).toBe(false);
  });
});

describe('root document', () => {
  it('finds the user in meta.user or a user resource', () => {
    const info = parseRoot({
      meta: {
        user: { id: 3, name: 'Ada', email: 'ada@x.test' },
        organization: { name: 'Acme' },
        token: { scopes: ['a.all'], expiresIn: 60 },
      },
    });
    expect(info).toEqual({ user: { id: 3, name: 'Ada', email: 'ada@x.test' }, organization: 'Acme', scopes: ['a.all'], expiresIn: 60 });
    expect(parseRoot({ data: { type: 'user', id: 4, attributes: { firstName: 'Bo', lastName: 'Li', email: 'b@x' } } }).user).toEqual({
      id: 4,
      name: 'Bo Li',
      email: 'b@x',
    });
    expect(parseRoot('nonsense')).toEqual({});
    expect(describeUser({ id: 3, name: 'Ada', email: 'ada@x.test' })).toBe('Ada <ada@x.test> (user 3)');
    expect(describeUser({ id: 3 })).toBe('user 3');
    expect(describeUser(undefined)).toBeUndefined();
  });
});
