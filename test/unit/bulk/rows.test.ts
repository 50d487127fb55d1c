/** Input rows → requests (resources) and → prospects (enroll), checked against the registry. */
import { describe, expect, it } from 'vitest';
import { lookupQuery } from '../../../src/bulk/rows/lookup.js';
import { enrollValue, keyColumn } from '../../../src/bulk/rows/enroll-rows.js';
import { resolveEmails } from '../../../src/bulk/rows/enroll-resolve.js';
import type { EnrollItem } from '../../../src/bulk/rows/enroll-rows.js';
import { csvRecord, prepareRow } from '../../../src/bulk/rows/resource-rows.js';
import { resourceByType } from '../../../src/registry/index.js';
import { checkAttributes } from '../../../src/api/validate.js';

const prospect = resourceByType('prospect')!;
const sequenceState = resourceByType('sequenceState')!;

describe('resource rows', () => {
  it('coerces CSV cells by attribute type; lists split on ";"; empty cells are left out; neutralised cells restored', () => {
    const r = csvRecord(prospect, {
      id: '5',
      firstName: 'Ada',
      emails: 'ada@x.test; ada2@x.test',
      optedOut: 'false',
      score: '4.5',
      title: "'=HYPERLINK()",
      lastName: '',
      account: '12',
      'account.name': 'Acme',
    });
    expect(r.problems).toEqual([]);
    expect(r.record).toEqual({
      id: '5',
      firstName: 'Ada',
      emails: ['ada@x.test', 'ada2@x.test'],
      optedOut: false,
      score: 4.5,
      title: '=HYPERLINK()',
      account: '12',
    });
    expect(csvRecord(prospect, { score: 'high' }).problems).toEqual([{ field: 'score', reason: 'expected a number, got "high"' }]);
  });

  it('turns a list -o ndjson record into a create (read-only fields dropped) or an update (id kept)', () => {
    const rec = {
      id: 7,
      type: 'prospect',
      firstName: 'Ada',
      name: 'Ada L',
      createdAt: '2024-01-01T00:00:00',
      account: { id: 3, type: 'account', name: 'Acme' },
      creator: 1,
    };
    const c = prepareRow(prospect, 'create', { row: 1, value: rec });
    expect(c).toEqual({
      write: expect.objectContaining({
        method: 'POST',
        path: 'prospects',
        body: {
          data: { type: 'prospect', attributes: { firstName: 'Ada' }, relationships: { account: { data: { type: 'account', id: 3 } } } },
        },
      }),
    });
    const u = prepareRow(prospect, 'update', { row: 1, value: rec });
    expect(u).toEqual({ write: expect.objectContaining({ method: 'PATCH', path: 'prospects/7', id: 7 }) });
    expect((u as unknown as { write: { body: { data: { id: number } } } }).write.body.data.id).toBe(7);
  });

  it('reports invalid rows with the field and the reason', () => {
    const p = (op: 'create' | 'update' | 'delete', value: unknown, csv = false) => prepareRow(prospect, op, { row: 1, value, csv });
    expect(p('update', { firstName: 'x' })).toEqual({ problems: [{ field: 'id', reason: 'missing: update rows carry the record id' }] });
    expect(p('delete', { id: 'abc' })).toEqual({ problems: [{ field: 'id', reason: '"abc" is not a record id (a positive integer)' }] });
    expect(p('create', { title: 'x'.repeat(256) })).toEqual({ problems: [{ field: 'title', reason: 'longer than 255 characters (256)' }] });
    expect(p('create', { emails: 'a@b' })).toEqual({ problems: [{ field: 'emails', reason: 'expected a list of strings' }] });
    expect(p('create', { type: 'account', name: 'x' })).toEqual({ problems: [{ field: 'type', reason: '"account" is not prospect' }] });
    expect(p('create', [1, 2])).toEqual({ problems: [{ field: '(row)', reason: 'expected a JSON object (a record)' }] });
    // A refused row that names a valid id keeps it: the report's failed lines carry it (a trial).
    expect(p('update', { id: 3, name: 'read-only only' })).toEqual({
      problems: [{ field: '(row)', reason: 'nothing to update: the row has no writable field besides id' }],
      id: 3,
    });
    expect(prepareRow(prospect, 'create', { row: 4, error: 'not valid JSON: x' })).toEqual({
      problems: [{ field: '(row)', reason: 'not valid JSON: x' }],
    });
    // A bare id is a delete row.
    expect(p('delete', 9)).toEqual({ write: { method: 'DELETE', path: 'prospects/9', id: 9 } });
  });

  it('builds the lookup after a lost create from the row: filterable attributes, to-one ids, createdAt', () => {
    const w = prepareRow(prospect, 'create', { row: 1, value: { firstName: 'Ada', emails: ['ada@x.test'], account: 3, websiteUrl1: 'u' } });
    const data = (w as { write: { data: Parameters<typeof lookupQuery>[1] } }).write.data;
    const q = lookupQuery(prospect, data, Date.parse('2025-01-01T12:00:00Z'));
    expect(q).toEqual([
      ['filter[firstName]', 'Ada'],
      ['filter[emails]', 'ada@x.test'],
      ['filter[account][id]', '3'],
      ['filter[createdAt]', '2025-01-01T11:50:00..inf'],
      ['page[limit]', '10'],
      ['fields[prospect]', ''],
    ]);
    // Nothing filterable in the row: no lookup (the row would be reported unknown).
    const bare = prepareRow(prospect, 'create', { row: 1, value: { websiteUrl1: 'u' } }) as {
      write: { data: Parameters<typeof lookupQuery>[1] };
    };
    expect(lookupQuery(prospect, bare.write.data, 0)).toBeUndefined();
    // Two relationship ids are enough (a sequence state's prospect and sequence).
    const st = prepareRow(sequenceState, 'create', { row: 1, value: { prospect: 4, sequence: 2, mailbox: 1 } }) as {
      write: { data: Parameters<typeof lookupQuery>[1] };
    };
    expect(lookupQuery(sequenceState, st.write.data, 0)?.map(([k]) => k)).toEqual([
      'filter[prospect][id]',
      'filter[sequence][id]',
      'filter[mailbox][id]',
      'filter[createdAt]',
      'page[limit]',
      'fields[sequenceState]',
    ]);
  });
});

describe('enroll rows', () => {
  it('takes ids and addresses from records, CSV cells and bare values', () => {
    expect(enrollValue({ row: 1, value: { id: '12' }, csv: true }, 'id')).toEqual({ id: 12 });
    // Spreadsheet spellings of the column: exact names first, then case, spaces, - and _ ignored.
    expect(keyColumn(['Name', 'E-mail'], 'email')).toBe('E-mail');
    expect(keyColumn(['EMAIL', 'emails'], 'email')).toBe('emails');
    expect(keyColumn(['Prospect ID'], 'id')).toBe('Prospect ID');
    expect(keyColumn(['Email Address'], 'email')).toBe('Email Address');
    expect(keyColumn(['Mail', 'Name'], 'email')).toBe('Mail');
    expect(keyColumn(['Phone'], 'email')).toBeUndefined();
    expect(enrollValue({ row: 1, value: { 'E-mail': 'a@x.test' }, csv: true }, 'email', 'E-mail')).toEqual({ email: 'a@x.test' });
    expect(enrollValue({ row: 1, value: 12 }, 'id')).toEqual({ id: 12 });
    expect(enrollValue({ row: 1, value: { prospect: { id: 3, type: 'prospect' } } }, 'id')).toEqual({ id: 3 });
    expect(enrollValue({ row: 1, value: { emails: ['a@x.test', 'b@x.test'] } }, 'email')).toEqual({ email: 'a@x.test' });
    expect(enrollValue({ row: 1, value: { emails: 'a@x.test;b@x.test' }, csv: true }, 'email')).toEqual({ email: 'a@x.test' });
    expect(enrollValue({ row: 1, value: ' c@x.test ' }, 'email')).toEqual({ email: 'c@x.test' });
    expect(enrollValue({ row: 1, value: { id: '0' } }, 'id')).toEqual({ problem: '"0" is not a prospect id (a positive integer)' });
    expect(enrollValue({ row: 1, value: { email: 'nope' } }, 'email')).toEqual({ problem: '"nope" is not an e-mail address' });
    // Typed with a Japanese input method on (a trial): the address it reads as is named, not sent.
    expect(enrollValue({ row: 1, value: { email: 'ｈａｒｕｋｉ＠example.jp' } }, 'email')).toEqual({
      problem: '"ｈａｒｕｋｉ＠example.jp" is not an e-mail address (typed full-width: haruki@example.jp?)',
    });
    expect(checkAttributes(resourceByType('prospect')!, { emails: ['ｈａｒｕｋｉ＠ｅｘａｍｐｌｅ．ｊｐ'] })[0]?.reason).toMatch(
      /is not an e-mail address \(typed full-width: haruki@example\.jp\?\)$/,
    );
    expect(enrollValue({ row: 1, value: { name: 'x' } }, 'email')).toEqual({ problem: 'no email in the row' });
    // The column is there, its cell empty: nothing --column could fix (a trial was sent to it).
    expect(enrollValue({ row: 1, value: { 'E-mail Address': '' } }, 'email', 'E-mail Address')).toEqual({
      problem: '"E-mail Address" is empty',
    });
  });

  it('resolves addresses in batches, in order, case-insensitively; unknown and shared addresses fail', async () => {
    const calls: string[][] = [];
    const owners: Record<string, number[]> = { 'a@x.test': [1], 'b@x.test': [2], 'dup@x.test': [3, 4] };
    const lookup = async (emails: string[]) => {
      calls.push(emails);
      const m = new Map<string, { id: number; attributes: Record<string, unknown> }[]>();
      for (const e of emails)
        if (owners[e.toLowerCase()])
          m.set(
            e.toLowerCase(),
            owners[e.toLowerCase()]!.map((id) => ({ id, attributes: {} })),
          );
      return m;
    };
    async function* src(): AsyncGenerator<EnrollItem> {
      yield { row: 1, key: 'k1', email: 'A@x.test' };
      yield { row: 2, key: 'k2', outcome: { status: 'skipped' } };
      yield { row: 3, key: 'k3', email: 'zz@x.test' };
      yield { row: 4, key: 'k4', email: 'dup@x.test' };
      yield { row: 5, key: 'k5', email: 'a@X.test' };
    }
    const out: EnrollItem[] = [];
    for await (const i of resolveEmails(src(), lookup)) out.push(i);
    expect(calls).toEqual([['A@x.test', 'zz@x.test', 'dup@x.test']]);
    expect(out.map((i) => i.row)).toEqual([1, 2, 3, 4, 5]);
    expect(out[0]!.prospectId).toBe(1);
    expect(out[4]!.prospectId).toBe(1);
    expect(out[2]!.outcome?.error).toBe('not found: no prospect has the address zz@x.test');
    expect(out[3]!.outcome?.error).toMatch(/^ambiguous: 2 prospects have the address dup@x.test \(ids 3, 4\)/);
  });

  it('starts a new batch before the URL would grow past the budget', async () => {
    const sizes: number[] = [];
    const lookup = async (emails: string[]) => {
      sizes.push(emails.length);
      return new Map<string, { id: number; attributes: Record<string, unknown> }[]>();
    };
    async function* src(): AsyncGenerator<EnrollItem> {
      for (let i = 0; i < 1200; i++) yield { row: i + 1, key: `k${i}`, email: `person.number.${i}@example-company.test` };
    }
    for await (const _ of resolveEmails(src(), lookup)) void _;
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(1200);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(500);
    // ~40 characters per address: about 150 per batch of 6,000 characters.
    expect(sizes.length).toBeGreaterThanOrEqual(7);
  });
});
