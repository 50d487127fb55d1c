import { describe, expect, it } from 'vitest';
import { resourceByType } from '../../../src/registry/index.js';
import { ambiguousLabels, buildOrgSchema, orgTypeView } from '../../../src/org-schema/org-schema.js';

const openapi = {
  paths: {
    '/accounts': { get: { parameters: [{ name: 'filter[region]' }, { name: 'sort', schema: { enum: ['region', '-region', 'name'] } }] } },
  },
  components: {
    schemas: {
      Account: {
        properties: {
          type: { enum: ['account'] },
          attributes: {
            properties: {
              name: { type: 'string', maxLength: 255 },
              region: { type: 'string', enum: ['EMEA', 'APAC'] },
              employeesRange: { type: ['integer', 'null'] },
              renewalOn: { type: 'string', format: 'date' },
              custom1: { type: 'string' },
            },
          },
        },
      },
      Gadget: { properties: { type: { enum: ['gadget'] }, attributes: { properties: { size: { type: 'integer' } } } } },
      Errors: { properties: { errors: { type: 'array' } } },
    },
  },
};
const types = {
  data: [
    {
      type: 'account',
      meta: {
        validations: {
          custom1: { type: 'inclusion', required: true, label: 'Tier', definition: ['Gold', 'Silver'] },
          custom2: { type: 'numerical', required: false, label: 'Tier ', definition: null },
        },
      },
    },
    { type: 'prospect', meta: { validations: { custom3: { type: 'url', required: false, label: 'Calendar Link', definition: null } } } },
  ],
};
const schema = buildOrgSchema(openapi, types, { profile: 'p', baseUrl: 'https://x/api/v2', now: 0 });
const account = resourceByType('account')!;

describe('org schema', () => {
  it('keeps only what the registry does not know, with types and F/S marks', () => {
    expect(schema.types.account!.extraAttributes).toEqual([
      { name: 'region', type: 'string', enum: ['EMEA', 'APAC'], filterable: true, sortable: true },
      { name: 'employeesRange', type: 'integer' },
      { name: 'renewalOn', type: 'date' },
    ]);
    expect(schema.types.prospect!.extraAttributes).toEqual([]);
    expect(schema.unknownTypes).toEqual(['gadget']);
    expect(schema.pulledAt).toBe('1970-01-01T00:00:00.000Z');
  });

  it('resolves labels and org-only names; a shared label is an error naming the fields', () => {
    const prospect = orgTypeView(schema, resourceByType('prospect')!)!;
    expect(prospect.resolve('calendar  LINK')).toEqual({ name: 'custom3', spec: { name: 'custom3', type: 'string' } });
    expect(prospect.resolve('Nope')).toBeUndefined();
    const view = orgTypeView(schema, account)!;
    expect(view.resolve('renewalOn')?.spec.type).toBe('date');
    expect(() => view.resolve('tier')).toThrow(/"tier" is the label of several custom fields of account \(custom1, custom2\)/);
    expect(ambiguousLabels(schema)).toEqual([{ type: 'account', label: 'Tier', fields: ['custom1', 'custom2'] }]);
    expect(orgTypeView(schema, resourceByType('task')!)).toBeUndefined();
  });

  it('labels in other scripts are names of their own, not one empty name', () => {
    const jp = buildOrgSchema(
      {},
      {
        data: [
          {
            type: 'prospect',
            meta: {
              validations: {
                custom9: { type: 'string', required: false, label: '業種', definition: null },
                custom10: { type: 'string', required: false, label: '従業員数', definition: null },
                custom11: { type: 'string', required: false, label: 'Отдел', definition: null },
              },
            },
          },
        ],
      },
      { profile: 'p', baseUrl: 'https://x/api/v2', now: 0 },
    );
    const view = orgTypeView(jp, resourceByType('prospect')!)!;
    expect(view.resolve('業種')?.name).toBe('custom9');
    expect(view.resolve('従業員数')?.name).toBe('custom10');
    expect(view.resolve('ОТДЕЛ')?.name).toBe('custom11');
    expect(view.resolve('部署')).toBeUndefined();
    expect(view.resolve('—')).toBeUndefined();
    expect(ambiguousLabels(jp)).toEqual([]);
  });

  it('checks and normalises values, and required custom fields on create only', () => {
    const view = orgTypeView(schema, account)!;
    const attrs: Record<string, unknown> = { custom1: 'gold', region: 'EMEA', renewalOn: '2025-01-01' };
    expect(view.apply(attrs, false)).toEqual([]);
    expect(attrs.custom1).toBe('Gold');
    expect(view.apply({ region: 'LATAM', renewalOn: 'soon', custom2: 'x' }, true)).toEqual([
      { field: 'region', reason: 'must be one of EMEA, APAC (got "LATAM")' },
      { field: 'renewalOn', reason: 'expected a date YYYY-MM-DD, got "soon"' },
      { field: 'custom2 (Tier )', reason: 'expected a number, got "x"' },
    ]);
    expect(view.apply({ name: 'Acme' }, false)).toEqual([{ field: 'custom1 (Tier)', reason: 'is required by your organization' }]);
    expect(view.apply({ name: 'Acme' }, true)).toEqual([]);
  });
});
