/** Relationship cells of bulk rows written as names: found, swapped for ids, or refused per row. */
import { describe, expect, it } from 'vitest';
import { namedValues, parseNamed, substituteNames, type RelNames } from '../../../src/bulk/rows/rel-names.js';
import { prepareRow } from '../../../src/bulk/rows/resource-rows.js';
import { resourceByType } from '../../../src/registry/index.js';

const prospect = resourceByType('prospect')!;

/** Acme → account 7, "Deal, Inc" → opportunity 3, Other → opportunity 4, a@x.test → user 2; "Twin" is ambiguous. */
const names: RelNames = {
  resolve(rel, n) {
    const known: Record<string, string> = {
      'account name acme': 'account:7',
      'opportunities name deal, inc': 'opportunity:3',
      'opportunities name other': 'opportunity:4',
      'owner email a@x.test': 'user:2',
    };
    const ref = known[`${rel} ${n.kind} ${n.value.toLowerCase()}`];
    return ref ? { ref } : { problem: `${n.kind} "${n.value}": 2 accounts have that name: id 1 "Twin"; id 2 "Twin"; give the id instead` };
  },
};

describe('relationship names in bulk rows', () => {
  it('finds name:/email: values of relationship columns, a to-many cell split on ";" (a name may hold a comma)', () => {
    expect(parseNamed(' name: Acme ')).toEqual({ kind: 'name', value: 'Acme' });
    expect(parseNamed('12')).toBeUndefined();
    expect(parseNamed('nickname:x')).toBeUndefined();
    const record = {
      firstName: 'name:not a relationship',
      account: 'name:Acme',
      owner: 'email:a@x.test',
      opportunities: 'name:Deal, Inc;name:Other',
      'stage.id': '4',
    };
    expect(namedValues(prospect, record)).toEqual([
      { rel: 'account', kind: 'name', value: 'Acme' },
      { rel: 'owner', kind: 'email', value: 'a@x.test' },
      { rel: 'opportunities', kind: 'name', value: 'Deal, Inc' },
      { rel: 'opportunities', kind: 'name', value: 'Other' },
    ]);
    // A list of ids is left to the usual parsing (`,` and `;` both split it).
    expect(namedValues(prospect, { opportunities: '1,2;3' })).toEqual([]);
  });

  it('swaps names for type:id; an unknown or ambiguous name is a problem of its relationship', () => {
    const record: Record<string, unknown> = { account: 'name:ACME', opportunities: ['name:Deal, Inc', 9] };
    expect(substituteNames(prospect, record, names)).toEqual([]);
    expect(record).toEqual({ account: 'account:7', opportunities: ['opportunity:3', 9] });
    const bad: Record<string, unknown> = { account: 'name:Twin' };
    expect(substituteNames(prospect, bad, names)).toEqual([
      { field: 'account', reason: 'name "Twin": 2 accounts have that name: id 1 "Twin"; id 2 "Twin"; give the id instead' },
    ]);
  });

  it('prepareRow: the request carries the ids, the row as written is left as it is (its journal key), a bad name stops the row', () => {
    const value = { firstName: 'Ada', account: 'name:Acme', owner: 'email:a@x.test' };
    const raw = { row: 1, value, csv: false } as const;
    const r = prepareRow(prospect, 'create', raw, undefined, undefined, names);
    expect('write' in r && r.write.body?.data.relationships).toEqual({
      account: { data: { type: 'account', id: 7 } },
      owner: { data: { type: 'user', id: 2 } },
    });
    expect(value).toEqual({ firstName: 'Ada', account: 'name:Acme', owner: 'email:a@x.test' });
    const csv = prepareRow(
      prospect,
      'create',
      { row: 2, value: { firstName: 'Bo', account: 'name:Twin' }, csv: true },
      undefined,
      undefined,
      names,
    );
    expect(csv).toEqual({ problems: [{ field: 'account', reason: expect.stringContaining('2 accounts have that name') }] });
    // Without resolved names a name is no id, as before.
    expect(prepareRow(prospect, 'create', raw)).toEqual({
      problems: [
        { field: 'account', reason: '"name:Acme" is not an id (use id or type:id)' },
        { field: 'owner', reason: '"email:a@x.test" is not an id (use id or type:id)' },
      ],
    });
  });
});
