/**
 * Custom-field labels in list/get flags (query-options.ts) and bulk rows (resource-rows.ts),
 * through a real org-schema view built from a `/types` document.
 */
import { describe, expect, it } from 'vitest';
import { prepareRow } from '../../../src/bulk/rows/resource-rows.js';
import { buildListQuery, namesUnknownFields, parseColumns } from '../../../src/commands/resource-commands/query-options.js';
import { resourceByType } from '../../../src/registry/index.js';
import { buildOrgSchema, orgTypeView } from '../../../src/org-schema/org-schema.js';
import { zoneNamed } from '../../../src/time-zone.js';

const rt = resourceByType('prospect')!;
const types = {
  data: [
    {
      type: 'prospect',
      meta: {
        validations: {
          custom1: { type: 'inclusion', required: false, label: 'Lead Source Detail', definition: ['Webinar', 'Referral'] },
          custom2: { type: 'numerical', required: false, label: 'Lead Score', definition: null },
          custom3: { type: 'string', required: false, label: 'title', definition: null },
        },
      },
    },
  ],
};
const view = orgTypeView(buildOrgSchema({}, types, { profile: 'p', baseUrl: 'http://x', now: 0 }), rt)!;
const noWarn = () => {};
/** No filter here names a day: the zone is never asked for. */
const NO_DAYS = { now: 0, zone: () => zoneNamed('UTC') };

describe('labels in list and get flags', () => {
  it('filters, sort keys, fields and columns resolve; registry names win over labels', () => {
    const q = buildListQuery(
      rt,
      { filter: ['lead source detail=Referral', 'title=CTO'], sort: '-Lead Score,id', fields: ['firstName,Lead Score'] },
      noWarn,
      NO_DAYS,
      view,
    );
    expect(q.filters!.map((f) => [f.path, f.values])).toEqual([
      [['custom1'], ['Referral']],
      [['title'], ['CTO']],
    ]);
    expect(q.sort).toEqual(['-custom2', 'id']);
    expect(q.fields).toEqual({ prospect: ['firstName', 'custom2'] });
    expect(parseColumns(rt, 'id, Lead Score ,account.name', view)).toEqual(['id', 'custom2', 'account.name']);
  });

  it('without a view names pass through; a spaced filter name says how labels become names', () => {
    expect(buildListQuery(rt, { sort: '-Lead Score' }, noWarn, NO_DAYS).sort).toEqual(['-Lead Score']);
    expect(() => buildListQuery(rt, { filter: ['Lead Score=1'] }, noWarn, NO_DAYS)).toThrow(/"Lead Score" is not a field name/);
  });

  it('asks for the org schema only when a name is unknown to the registry', () => {
    expect(
      namesUnknownFields(rt, {
        filter: ['title=x', 'account.id=1', 'custom7=a'],
        sort: '-createdAt,account.name',
        fields: ['account=name'],
        columns: 'id,account.name',
      }),
    ).toBe(false);
    expect(namesUnknownFields(rt, { filter: ['Lead Score=1'] })).toBe(true);
    expect(namesUnknownFields(rt, { sort: '-Lead Score' })).toBe(true);
    expect(namesUnknownFields(rt, { fields: ['firstName,Lead Score'] })).toBe(true);
    expect(namesUnknownFields(rt, { columns: 'Lead Score' })).toBe(true);
  });
});

describe('labels in bulk rows', () => {
  it('CSV headers and NDJSON keys map to customN, values normalised; bad values are row problems', () => {
    const csv = prepareRow(
      rt,
      'create',
      { row: 1, csv: true, value: { firstName: 'Ada', 'Lead Source Detail': 'referral', 'Lead Score': '12' } },
      view,
    );
    expect(csv).toMatchObject({ write: { body: { data: { attributes: { firstName: 'Ada', custom1: 'Referral', custom2: '12' } } } } });
    const nd = prepareRow(rt, 'create', { row: 2, value: { firstName: 'Bo', 'lead score': 5 } }, view);
    expect(nd).toMatchObject({ write: { body: { data: { attributes: { firstName: 'Bo', custom2: '5' } } } } });
    const bad = prepareRow(rt, 'create', { row: 3, csv: true, value: { firstName: 'Cy', 'Lead Source Detail': 'Radio' } }, view);
    expect(bad).toEqual({
      problems: [{ field: 'custom1 (Lead Source Detail)', reason: 'must be one of Webinar, Referral (got "Radio")' }],
    });
    const plain = prepareRow(rt, 'create', { row: 4, value: { firstName: 'Di', 'Lead Score': '1' } });
    expect(plain).toMatchObject({ write: { body: { data: { attributes: { 'Lead Score': '1' } } } } });
  });
});
