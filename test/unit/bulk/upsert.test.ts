/** Upsert and update by key: field diffs, match values and attributes, batches, rate-limit wait. */
import { describe, expect, it } from 'vitest';
import { maskedLookup, resolveInBatches, type MatchedRecord } from '../../../src/bulk/rows/key-match.js';
import { diffRecord } from '../../../src/bulk/rows/record-diff.js';
import { decide, matchAttribute, matchValue, type KeyedInput, type KeyedItem } from '../../../src/bulk/rows/upsert-rows.js';
import { rateWait } from '../../../src/commands/bulk-run/upsert-plan.js';
import { resourceByType } from '../../../src/registry/index.js';

const prospect = resourceByType('prospect')!;
const account = resourceByType('account')!;
const rec = (id: number, attributes: Record<string, unknown>, relationships: Record<string, unknown> = {}): MatchedRecord => ({
  id,
  attributes,
  relationships,
});

describe('diffRecord', () => {
  it('keeps only the fields that differ, old → new; numbers equal their text; relationships by id', () => {
    const d = diffRecord(
      {
        type: 'prospect',
        attributes: { title: 'CEO', firstName: 'Ada', custom1: 5, emails: ['a@x.test'] },
        relationships: { account: { data: { type: 'account', id: 7 } } },
      },
      rec(3, { title: 'CTO', firstName: 'Ada', custom1: '5', emails: ['a@x.test'] }, { account: { data: { type: 'account', id: '7' } } }),
    );
    expect(d.changes).toEqual([{ field: 'title', old: 'CTO', new: 'CEO' }]);
    expect(d.data).toEqual({ type: 'prospect', id: 3, attributes: { title: 'CEO' }, relationships: {} });
  });

  it('a to-many relationship holding the same ids in any order is no change (an exported file round-trips)', () => {
    const many = (...ids: number[]) => ({ data: ids.map((id) => ({ type: 'emailAddress', id })) });
    const shown = rec(
      3,
      {},
      {
        emailAddresses: {
          data: [
            { type: 'emailAddress', id: '21' },
            { type: 'emailAddress', id: '22' },
          ],
        },
      },
    );
    expect(diffRecord({ type: 'prospect', attributes: {}, relationships: { emailAddresses: many(22, 21) } }, shown).changes).toEqual([]);
    expect(diffRecord({ type: 'prospect', attributes: {}, relationships: { emailAddresses: many(21) } }, shown).changes).toEqual([
      { field: 'emailAddresses', old: ['21', '22'], new: [21] },
    ]);
  });

  it('a field the record lacks is a change from empty; a relationship it does not show is a change', () => {
    const d = diffRecord(
      { type: 'prospect', attributes: { title: 'CEO' }, relationships: { account: { data: { type: 'account', id: 7 } } } },
      rec(3, {}),
    );
    expect(d.changes).toEqual([
      { field: 'title', old: null, new: 'CEO' },
      { field: 'account', old: null, new: '7' },
    ]);
  });

  it('nothing differs: no change', () => {
    expect(
      diffRecord({ type: 'prospect', attributes: { tags: ['a', 'b'] }, relationships: {} }, rec(1, { tags: ['a', 'b'] })).changes,
    ).toEqual([]);
  });
});

describe('matching', () => {
  it('match value: the first item of a list, trimmed; none when empty', () => {
    expect(matchValue({ type: 'prospect', attributes: { emails: [' a@x.test ', 'b@x.test'] }, relationships: {} }, 'emails')).toBe(
      'a@x.test',
    );
    expect(matchValue({ type: 'prospect', attributes: { emails: [] }, relationships: {} }, 'emails')).toBeUndefined();
  });

  it('--match: filterable attributes; email stands for emails; others are refused with the list', () => {
    expect(matchAttribute(prospect, 'email')).toBe('emails');
    expect(matchAttribute(account, 'domain')).toBe('domain');
    const bad = matchAttribute(prospect, 'tittle');
    expect(typeof bad === 'object' && bad.error).toMatch(/^--match tittle: not a filterable attribute of prospect .*emails/);
  });

  const input = (mode: 'upsert' | 'update') => ({ rt: prospect, mode, match: 'emails' }) as KeyedInput;
  const item = (): KeyedItem => ({
    row: 1,
    key: 'k',
    value: 'a@x.test',
    data: { type: 'prospect', attributes: { emails: ['a@x.test'], title: 'CEO' }, relationships: {} },
  });

  it('decides: none → create (upsert) or not found (update); one → update of the diff or unchanged; several → ambiguous', () => {
    const c = item();
    decide(input('upsert'), c, []);
    expect(c.write?.method).toBe('POST');
    const nf = item();
    decide(input('update'), nf, []);
    expect(nf.outcome?.error).toBe('not found: no prospect has emails a@x.test');
    const u = item();
    decide(input('upsert'), u, [rec(9, { emails: ['a@x.test'], title: 'CTO' })]);
    expect(u.write).toMatchObject({
      method: 'PATCH',
      path: 'prospects/9',
      id: 9,
      body: { data: { type: 'prospect', id: 9, attributes: { title: 'CEO' } } },
    });
    const same = item();
    decide(input('upsert'), same, [rec(9, { emails: ['a@x.test'], title: 'CEO' })]);
    expect(same.write).toBeUndefined();
    expect(same.outcome).toEqual({ status: 'skipped', id: 9, extra: { reason: 'unchanged' } });
    const amb = item();
    decide(input('upsert'), amb, [rec(9, {}), rec(10, {})]);
    expect(amb.outcome?.error).toMatch(/^ambiguous: 2 prospects have emails a@x.test \(ids 9, 10\)/);
  });

  it('a create an earlier run left in doubt, matched holding the row and made since: landed, done by the perform; else as any row', () => {
    const at = '2026-03-02T10:00:00.000Z';
    const pending = (status: 'pending' | 'unknown') => ({ ...item(), pending: { key: 'k', row: 1, status, at } });
    const holding = (createdAt: string, title = 'CEO') => [rec(9, { emails: ['a@x.test'], title, createdAt })];
    // Made a second after the send, or before the unknown entry (written up to an hour after it).
    for (const [status, createdAt] of [
      ['pending', '2026-03-02T10:00:01'],
      ['unknown', '2026-03-02T09:05:00'],
    ] as const) {
      const landed = pending(status);
      decide(input('upsert'), landed, holding(createdAt));
      expect(landed, status).toMatchObject({
        plan: 'landed',
        landed: 9,
        pending: { status },
        write: { method: 'POST', path: 'prospects' },
      });
      expect(landed.outcome).toBeUndefined();
    }
    // Made long before the send: another's record, unchanged as ever; a value differing: an update.
    const older = pending('pending');
    decide(input('upsert'), older, holding('2026-03-01T10:00:00'));
    expect(older).toMatchObject({ plan: 'unchanged', outcome: { status: 'skipped', id: 9 } });
    expect(older.pending).toBeUndefined();
    const differs = pending('pending');
    decide(input('upsert'), differs, holding('2026-03-02T10:00:01', 'CTO'));
    expect(differs).toMatchObject({ plan: 'update', write: { method: 'PATCH', id: 9 } });
  });

  it('batches: one lookup per 500 values, values matched in any letter case, rows in order', async () => {
    const calls: number[] = [];
    async function* src() {
      for (let i = 0; i < 1200; i++) yield { v: i % 7 === 0 ? undefined : `V${i}@x.test`, hit: 0 };
    }
    const out = [];
    const lookup = async (values: string[]) => {
      calls.push(values.length);
      return new Map(values.map((v) => [v.toLowerCase(), [rec(1, {})]]));
    };
    for await (const x of resolveInBatches(src(), lookup, { keyOf: (x) => x.v, apply: (x, r) => (x.hit = r.length) })) out.push(x);
    expect(out).toHaveLength(1200);
    expect(out.every((x) => (x.v === undefined ? x.hit === 0 : x.hit === 1))).toBe(true);
    expect(Math.max(...calls)).toBeLessThanOrEqual(500);
    expect(calls.length).toBeLessThanOrEqual(Math.ceil(1200 / 100));
  });
});

describe('rateWait', () => {
  const now = Date.parse('2026-01-01T10:00:00Z');
  const reset = String(now / 1000 + 600);
  it('no wait when the remaining budget holds the requests', () => {
    expect(rateWait(500, { limit: 10000, remaining: 600, reset }, now)).toBe(0);
    expect(rateWait(500, undefined, now)).toBe(0);
  });
  it('beyond it: until the reset, plus a whole window for each further limit', () => {
    expect(rateWait(700, { limit: 10000, remaining: 600, reset }, now)).toBe(600);
    expect(rateWait(10700, { limit: 10000, remaining: 600, reset }, now)).toBe(600 + 3600);
  });
});

describe('diffRecord dates', () => {
  it('a date written back in another form is the same instant; another day is a change', () => {
    const data = { type: 'prospect', attributes: { dateOfBirth: '2026-01-05' }, relationships: {} };
    expect(diffRecord(data, rec(1, { dateOfBirth: '2026-01-05T00:00:00.000Z' })).changes).toEqual([]);
    expect(diffRecord(data, rec(1, { dateOfBirth: '2026-01-06T00:00:00.000Z' })).changes).toHaveLength(1);
  });
});

describe('rehearsal masks (an anonymised copy holds fakes)', () => {
  const mask = {
    value: (_t: string, attr: string, v: string) => (attr === 'emails' || attr === 'firstName' ? `fake(${v.toLowerCase()})` : v),
    attributes: (_t: string, a: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(a).map(([k, v]) => [k, k === 'firstName' && typeof v === 'string' ? `fake(${v.toLowerCase()})` : v]),
      ),
  };

  it('maskedLookup asks for the fakes and answers under the values as written', async () => {
    const asked: string[][] = [];
    const look = maskedLookup(
      async (values) => {
        asked.push(values);
        return new Map([['fake(ada@x.test)', [rec(1, {})]]]);
      },
      (v) => mask.value('prospect', 'emails', v),
    );
    const found = await look(['Ada@X.test', 'ada@x.test', 'bob@y.test']);
    expect(asked).toEqual([['fake(ada@x.test)', 'fake(bob@y.test)']]);
    expect([...found.keys()]).toEqual(['ada@x.test']);
  });

  it('decide compares and writes the row as the copy holds it', () => {
    const input = { rt: prospect, mode: 'upsert', match: 'emails', mask } as unknown as KeyedInput;
    const row = (firstName: string): KeyedItem => ({
      row: 1,
      key: 'k',
      value: 'a@x.test',
      data: { type: 'prospect', attributes: { emails: ['a@x.test'], firstName }, relationships: {} },
    });
    const same = row('Ada');
    decide(input, same, [rec(4, { emails: ['a@x.test'], firstName: 'fake(ada)' })]);
    expect(same.outcome).toMatchObject({ status: 'skipped', extra: { reason: 'unchanged' } });
    const renamed = row('Zed');
    decide(input, renamed, [rec(4, { emails: ['a@x.test'], firstName: 'fake(ada)' })]);
    expect(renamed.write?.data?.attributes).toEqual({ firstName: 'fake(zed)' });
    const fresh = row('Nova');
    decide(input, fresh, []);
    expect(fresh.write?.data?.attributes).toEqual({ emails: ['a@x.test'], firstName: 'fake(nova)' });
  });
});
