/** Documents, routing, authentication, scopes and media types (spec: Conventions, Endpoints, Errors). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allAttributes, findResource, RESOURCES } from '../../src/registry/index.js';
import { doc, start, type Client } from '../helpers/sandbox.js';

let c: Client;
beforeAll(async () => {
  c = await start({ seed: 20 });
});
afterAll(() => c.sb.close());

describe('resource objects', () => {
  it('have integer ids, every public attribute (nulls included), no write-only ones', async () => {
    const r = await c.get('/mailboxes/1');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/vnd.api+json');
    const d = r.body.data;
    expect(d).toMatchObject({ type: 'mailbox', id: 1 });
    const rt = findResource('mailboxes')!;
    const expected = allAttributes(rt)
      .filter((a) => !a.writeOnly && !a.onlyOnRequest)
      .map((a) => a.name);
    expect(Object.keys(d.attributes).sort()).toEqual(expected.sort());
    expect(d.attributes).not.toHaveProperty('password');
    expect(d.attributes.emailSignature).toBeNull();
  });

  it('relationships carry data and/or links.related as the registry says', async () => {
    const r = await c.get('/prospects/1');
    const rel = r.body.data.relationships;
    expect(rel.account.data).toEqual({ type: 'account', id: expect.any(Number) });
    expect(rel.account.links.related).toBe(`${c.sb.baseUrl}/accounts/${rel.account.data.id}`);
    expect(rel.calls).not.toHaveProperty('data');
    expect(rel.calls.links.related).toBe(`${c.sb.baseUrl}/calls?filter%5Bprospect%5D%5Bid%5D=1`);
    expect(Array.isArray(rel.emailAddresses.data)).toBe(true);
    const follow = await c.get(rel.calls.links.related);
    expect(follow.status).toBe(200);
    for (const call of follow.body.data) expect(call.relationships.prospect.data.id).toBe(1);
  });

  it('custom fields are returned on types that have them', async () => {
    const r = await c.get('/prospects/1');
    expect(r.body.data.attributes).toHaveProperty('custom150', null);
    expect(typeof r.body.data.attributes.custom1).toBe('string');
  });

  it('contactHistogram only when asked for with fields[prospect]', async () => {
    const plain = await c.get('/prospects/1');
    expect(plain.body.data.attributes).not.toHaveProperty('contactHistogram');
    const asked = await c.get('/prospects/1?fields[prospect]=contactHistogram');
    expect(asked.body.data.attributes.contactHistogram).toHaveLength(12);
  });

  it('meta canWrite/canDelete with provideAuthorizationMeta, per the type', async () => {
    const p = await c.get('/prospects/1?provideAuthorizationMeta=true');
    expect(p.body.data.meta).toEqual({ canWrite: true, canDelete: true });
    const call = await c.get('/calls?provideAuthorizationMeta=true&page[limit]=1');
    expect(call.body.data[0].meta).toEqual({ canDelete: true });
    const none = await c.get('/prospects/1');
    expect(none.body.data).not.toHaveProperty('meta');
  });

  it('meta.dataConnections with provideDataConnections on types that have them only', async () => {
    const p = await c.get('/prospects/1?provideDataConnections=true');
    expect(Array.isArray(p.body.data.meta.dataConnections)).toBe(true);
    const s = await c.get('/sequences/1?provideDataConnections=true');
    expect(s.body.data.meta).toBeUndefined();
  });

  it('every type of the registry is a collection with records', async () => {
    for (const rt of RESOURCES.filter((r) => r.operations.includes('list'))) {
      const r = await c.get(`/${rt.path}?page[limit]=1`);
      expect(r.status, rt.path).toBe(200);
      if (!['webhook', 'complianceRequest', 'event', 'favorite', 'customDuty'].includes(rt.type))
        expect(r.body.data.length, rt.path).toBe(1);
    }
  });
});

describe('routing', () => {
  it('404 resourceNotFound for an unknown id', async () => {
    const r = await c.get('/prospects/999999');
    expect(r.status).toBe(404);
    expect(r.body.errors[0]).toMatchObject({ id: 'resourceNotFound' });
  });

  it('404 notFound for an unknown collection or action', async () => {
    expect((await c.get('/nope')).status).toBe(404);
    const r = await c.post('/tasks/1/actions/explode');
    expect(r.status).toBe(404);
    expect(r.body.errors[0].id).toBe('notFound');
  });

  it('405 methodNotAllowed (with Allow) for an operation the registry does not offer', async () => {
    const r = await c.patch('/calls/1', doc('call', { note: 'x' }, {}, 1));
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, DELETE');
    expect(r.body.errors[0].id).toBe('methodNotAllowed');
    expect((await c.get('/customDuties')).status).toBe(405);
    expect((await c.get('/contentCategoryOwnerships/1')).status).toBe(405);
  });

  it('HEAD answers as GET does, without the body (svc api offers HEAD: it was 405, a trial)', async () => {
    const get = await c.get('/prospects/1');
    const head = await c.req('HEAD', '/prospects/1');
    expect([head.status, head.text]).toEqual([200, '']);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect((await c.req('HEAD', '/prospects/999999')).status).toBe(404);
    expect((await c.req('HEAD', '/customDuties')).status).toBe(405);
  });

  it('related endpoint for relationships without an inverse filter', async () => {
    const r = await c.get('/prospects/1/activeSequenceStates');
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.data)).toBe(true);
    const acc = await c.get('/prospects/1/account');
    expect(acc.body.data.type).toBe('account');
  });
});

describe('authentication and scopes', () => {
  it('401 without a token, with an unknown token, with an expired token', async () => {
    const none = await c.get('/prospects', null);
    expect(none.status).toBe(401);
    expect(none.body.errors[0].id).toBe('unauthorized');
    expect((await c.get('/prospects', 'bogus')).status).toBe(401);
    const expired = c.sb.issueToken({ ttlSeconds: -1 });
    const r = await c.get('/prospects', expired);
    expect(r.status).toBe(401);
    expect(r.body.errors[0].detail).toMatch(/expired/);
  });

  it('403 unauthorizedOauthScope naming the missing scope; write does not grant read', async () => {
    const t = c.sb.issueToken({ scopes: ['prospects.write'] });
    const r = await c.get('/prospects', t);
    expect(r.status).toBe(403);
    expect(r.body.errors[0]).toMatchObject({ id: 'unauthorizedOauthScope' });
    expect(r.body.errors[0].detail).toContain('prospects.read');
    const ok = await c.post('/prospects', doc('prospect', { firstName: 'W' }), t);
    expect(ok.status).toBe(201);
    expect((await c.del(`/prospects/${ok.body.data.id}`, t)).status).toBe(403);
  });

  it('a filter or sort that crosses into a type the token may not read is refused: 403 naming its scope, no oracle', async () => {
    const t = c.sb.issueToken({ scopes: ['prospects.read'] });
    const acc = [...c.sb.store.table('account').values()][0]!;
    const name = encodeURIComponent(String(acc.attributes['name']));
    for (const path of [`/prospects?filter[account][name]=${name}`, '/prospects?sort=account.name', '/prospects?sort=-account.name,id']) {
      const r = await c.get(path, t);
      expect(r.status, path).toBe(403);
      expect(r.body.errors[0]).toMatchObject({ id: 'unauthorizedOauthScope' });
      expect(r.body.errors[0].detail).toContain('accounts.read');
      expect(r.text).not.toContain('"type":"prospect"');
    }
    // A related id is in the relationship the token reads: filtering on it is not an oracle.
    expect((await c.get(`/prospects?filter[account][id]=${acc.id}`, t)).status).toBe(200);
    expect((await c.get('/prospects?sort=-id', t)).status).toBe(200);
    // With the type's read scope the same requests answer.
    const both = c.sb.issueToken({ scopes: ['prospects.read', 'accounts.read'] });
    expect((await c.get(`/prospects?filter[account][name]=${name}`, both)).status).toBe(200);
    expect((await c.get('/prospects?sort=account.name', both)).status).toBe(200);
  });

  it('an include needs the read scope of the type it reaches: 403 naming it, nothing leaked', async () => {
    const t = c.sb.issueToken({ scopes: ['prospects.read'] });
    const withAccount = [...c.sb.store.table('prospect').values()].find((p) => p.rels['account']);
    expect(withAccount).toBeDefined();
    for (const path of [
      `/prospects/${withAccount!.id}?include=account`,
      '/prospects?include=account',
      '/prospects?include=emailAddresses',
    ]) {
      const r = await c.get(path, t);
      expect(r.status, path).toBe(403);
      expect(r.body.errors[0]).toMatchObject({ id: 'unauthorizedOauthScope' });
      expect(r.text).not.toContain('"type":"account","id"');
    }
    expect((await c.get('/prospects?include=account', t)).body.errors[0].detail).toContain('accounts.read');
    // With the included type's scope the same request works and includes the record.
    const both = c.sb.issueToken({ scopes: ['prospects.read', 'accounts.read'] });
    const ok = await c.get(`/prospects/${withAccount!.id}?include=account`, both);
    expect(ok.status).toBe(200);
    expect(ok.body.included[0].type).toBe('account');
    // Without an include the relationship still names the account's id (linkage, no record).
    const plain = await c.get(`/prospects/${withAccount!.id}`, t);
    expect(plain.status).toBe(200);
    expect(plain.body.included).toBeUndefined();
  });

  it('all grants read, write and delete', async () => {
    const t = c.sb.issueToken({ scopes: ['prospects.all'] });
    expect((await c.get('/prospects/1', t)).status).toBe(200);
    const made = await c.post('/prospects', doc('prospect', { firstName: 'A' }), t);
    expect(made.status).toBe(201);
    expect((await c.del(`/prospects/${made.body.data.id}`, t)).status).toBe(204);
  });
});

describe('media type and body', () => {
  it('415 unsupportedMediaType for a body without application/vnd.api+json', async () => {
    const r = await c.req('POST', '/prospects', { body: doc('prospect', { firstName: 'X' }), contentType: 'application/json' });
    expect(r.status).toBe(415);
    expect(r.body.errors[0].id).toBe('unsupportedMediaType');
  });

  it('400 for a body that is not JSON', async () => {
    const r = await c.req('POST', '/prospects', { raw: '{nope' });
    expect(r.status).toBe(400);
  });
});
