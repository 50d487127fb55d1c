import { describe, expect, it } from 'vitest';
import { parseFilter, filterParams } from '../../src/api/filter.js';
import { buildQuery, encodeQuery, queryPairs } from '../../src/api/query.js';

const orig = (expr: string) => decodeURIComponent(encodeQuery(filterParams(parseFilter(expr), false)));
const nfs = (expr: string) => decodeURIComponent(encodeQuery(filterParams(parseFilter(expr), true)));

describe('filter → query, original syntax (every row of the README filter table)', () => {
  it.each([
    ['title=CEO', 'filter[title]=CEO'],
    ['title=CEO,CTO', 'filter[title]=CEO,CTO'],
    ['updatedAt=2024-01-01..2024-02-01', 'filter[updatedAt]=2024-01-01..2024-02-01'],
    ['updatedAt=2024-01-01..', 'filter[updatedAt]=2024-01-01..inf'],
    ['updatedAt=..2024-01-01', 'filter[updatedAt]=neginf..2024-01-01'],
    ['account.id=5', 'filter[account][id]=5'],
    ['account.name=Acme', 'filter[account][name]=Acme'],
  ])('%s', (expr, sent) => {
    expect(orig(expr)).toBe(sent);
  });

  it('a value with an escaped comma needs the new syntax', () => {
    expect(() => orig('name=Acme\\, Inc')).toThrow(/--new-filter-syntax/);
  });
});

describe('filter → query, new syntax', () => {
  it.each([
    ['title=CEO', 'filter[title]=CEO'],
    ['title=CEO,CTO', 'filter[title][]=CEO&filter[title][]=CTO'],
    ['updatedAt=2024-01-01..2024-02-01', 'filter[updatedAt][gte]=2024-01-01&filter[updatedAt][lte]=2024-02-01'],
    ['updatedAt=2024-01-01..', 'filter[updatedAt][gte]=2024-01-01'],
    ['updatedAt=..2024-01-01', 'filter[updatedAt][lte]=2024-01-01'],
    ['account.id=5', 'filter[account][id]=5'],
    ['name=Acme\\, Inc', 'filter[name]=Acme, Inc'],
    ['name=a\\..b', 'filter[name]=a..b'],
    ['name=Acme\\, Inc,Globex', 'filter[name][]=Acme, Inc&filter[name][]=Globex'],
  ])('%s', (expr, sent) => {
    expect(nfs(expr)).toBe(sent);
  });

  it('the whole query carries newFilterSyntax=true first', () => {
    const q = buildQuery({ newFilterSyntax: true, filters: [parseFilter('title=CEO,CTO')] });
    expect(decodeURIComponent(q)).toBe('?newFilterSyntax=true&filter[title][]=CEO&filter[title][]=CTO');
  });
});

describe('filter parsing errors', () => {
  it.each(['title', '=x', 'a b=c', 'updatedAt=..', 'x=1..2..3', 'title=a,,b', 'a.b.c=1'])('%s is a usage error', (expr) => {
    expect(() => parseFilter(expr)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('query builder', () => {
  it('sort, include, fields, page, count in order', () => {
    const pairs = queryPairs({
      sort: ['-updatedAt', 'lastName'],
      include: ['account', 'owner.team'],
      fields: { prospect: ['firstName', 'title'], account: [] },
      pageLimit: 100,
      pageOffset: 200,
      count: true,
    });
    expect(pairs).toEqual([
      ['sort', '-updatedAt,lastName'],
      ['include', 'account,owner.team'],
      ['fields[prospect]', 'firstName,title'],
      ['fields[account]', ''],
      ['page[limit]', '100'],
      ['page[offset]', '200'],
      ['count', 'true'],
    ]);
  });

  it('percent-encodes values but keeps brackets and commas readable', () => {
    expect(buildQuery({ filters: [parseFilter('name=A&B=C')] })).toBe('?filter[name]=A%26B%3DC');
    expect(buildQuery({ filters: [parseFilter('title=CEO,VP Sales')] })).toBe('?filter[title]=CEO,VP%20Sales');
  });

  it('an empty query is empty', () => {
    expect(buildQuery({})).toBe('');
  });
});
