/** Create, update and delete with validation (spec: Endpoints, Errors 422). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doc, one, start, type Client } from '../helpers/sandbox.js';

let c: Client;
beforeAll(async () => {
  c = await start({ seed: 10 });
});
afterAll(() => c.sb.close());

const pointer = (r: { body: any }) => r.body.errors.map((e: any) => e.source?.pointer);

describe('create', () => {
  it('201 with the resource, createdAt/updatedAt set, creator and derived name', async () => {
    const r = await c.post(
      '/prospects',
      doc(
        'prospect',
        { firstName: 'Ada', lastName: 'Lovelace', emails: ['ada@example.test'], title: 'CTO' },
        { account: one('account', 1) },
      ),
    );
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`${c.sb.baseUrl}/prospects/${r.body.data.id}`);
    const a = r.body.data.attributes;
    expect(a.name).toBe('Ada Lovelace');
    expect(a.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(a.updatedAt).toBe(a.createdAt);
    expect(r.body.data.relationships.account.data).toEqual({ type: 'account', id: 1 });
    const again = await c.get(`/prospects/${r.body.data.id}`);
    expect(again.body.data.attributes.title).toBe('CTO');
  });

  it('include on create is ignored (deprecated)', async () => {
    const r = await c.post('/prospects?include=account', doc('prospect', { firstName: 'I' }, { account: one('account', 1) }));
    expect(r.status).toBe(201);
    expect(r.body).not.toHaveProperty('included');
  });

  it('422 with a pointer per problem: read-only, max length, type, enum, unknown attribute', async () => {
    const r = await c.post(
      '/prospects',
      doc('prospect', { name: 'x', title: 'x'.repeat(256), score: 'high', emailsOptStatus: 'maybe', shoeSize: 42, emails: 'a@b' }),
    );
    expect(r.status).toBe(422);
    expect(r.body.errors.every((e: any) => e.id === 'validationError')).toBe(true);
    expect(pointer(r).sort()).toEqual(
      [
        '/data/attributes/emails',
        '/data/attributes/emailsOptStatus',
        '/data/attributes/name',
        '/data/attributes/score',
        '/data/attributes/shoeSize',
        '/data/attributes/title',
      ].sort(),
    );
  });

  it('422 on relationships: read-only, wrong type, missing record', async () => {
    const r = await c.post('/prospects', doc('prospect', {}, { creator: one('user', 1) }));
    expect(pointer(r)).toEqual(['/data/relationships/creator']);
    const t = await c.post('/prospects', doc('prospect', {}, { account: one('user', 1) }));
    expect(pointer(t)[0]).toMatch(/^\/data\/relationships\/account/);
    const m = await c.post('/prospects', doc('prospect', {}, { account: one('account', 99999) }));
    expect(m.status).toBe(422);
  });

  it('422 on the type and on an id in a create', async () => {
    expect(pointer(await c.post('/prospects', doc('account', {})))).toEqual(['/data/type']);
    expect(pointer(await c.post('/prospects', doc('prospect', {}, {}, 5)))).toEqual(['/data/id']);
  });

  it("custom fields are validated against the organization's definitions", async () => {
    const r = await c.post('/prospects', doc('prospect', { custom1: 'Carrier pigeon' }));
    expect(pointer(r)).toEqual(['/data/attributes/custom1']);
    expect((await c.post('/prospects', doc('prospect', { custom1: 'Webinar', custom2: '17' }))).status).toBe(201);
  });
});

describe('update', () => {
  it('200 full resource, updatedAt moves, unchanged attributes kept', async () => {
    const made = await c.post('/prospects', doc('prospect', { firstName: 'U', title: 'CEO' }, { account: one('account', 1) }));
    const id = made.body.data.id;
    await new Promise((r) => setTimeout(r, 1100));
    const r = await c.patch(`/prospects/${id}`, doc('prospect', { title: 'CFO' }, {}, id));
    expect(r.status).toBe(200);
    expect(r.body.data.attributes).toMatchObject({ title: 'CFO', firstName: 'U' });
    expect(r.body.data.attributes.updatedAt > made.body.data.attributes.updatedAt).toBe(true);
  });

  it('a to-one relationship set to data null unlinks', async () => {
    const made = await c.post('/prospects', doc('prospect', { firstName: 'N' }, { account: one('account', 1) }));
    const id = made.body.data.id;
    const r = await c.patch(`/prospects/${id}`, doc('prospect', {}, { account: one('account', null) }, id));
    expect(r.body.data.relationships.account.data).toBeNull();
    const list = await c.get(`/prospects?filter[account][id]=1&filter[id]=${id}`);
    expect(list.body.data).toEqual([]);
  });

  it('422 when the body id differs from the URL id', async () => {
    const r = await c.patch('/prospects/1', doc('prospect', { title: 'X' }, {}, 2));
    expect(r.status).toBe(422);
    expect(pointer(r)).toEqual(['/data/id']);
  });

  it('404 for an unknown record', async () => {
    expect((await c.patch('/prospects/99999', doc('prospect', {}, {}, 99999))).status).toBe(404);
  });
});

describe('delete', () => {
  it('204 empty, then 404', async () => {
    const made = await c.post('/accounts', doc('account', { name: 'Gone' }));
    const r = await c.del(`/accounts/${made.body.data.id}`);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await c.get(`/accounts/${made.body.data.id}`)).status).toBe(404);
  });

  it('deleting a record unlinks what pointed at it', async () => {
    const acc = await c.post('/accounts', doc('account', { name: 'Temp' }));
    const p = await c.post('/prospects', doc('prospect', { firstName: 'T' }, { account: one('account', acc.body.data.id) }));
    await c.del(`/accounts/${acc.body.data.id}`);
    const after = await c.get(`/prospects/${p.body.data.id}`);
    expect(after.body.data.relationships.account.data).toBeNull();
  });
});
