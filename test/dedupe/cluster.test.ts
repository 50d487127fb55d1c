/** The matcher of `svc dedupe` (src/dedupe/cluster.ts): what makes a cluster, and the near-misses that must not. */
import { describe, expect, it } from 'vitest';
import { clusterAccounts, clusterProspects, type ProspectIn } from '../../src/dedupe/cluster.js';

const ids = (cs: { ids: number[] }[]) => cs.map((c) => c.ids);

describe('clusterProspects', () => {
  it('matches one person written three ways, with the reasons', () => {
    const people: ProspectIn[] = [
      { id: 1, firstName: 'Ada', lastName: 'Petrov', emails: ['Ada.Petrov@acme.com'], phones: ['+1 (555) 010-2000'], accountId: 7 },
      { id: 2, firstName: 'ADA', lastName: 'Petrov', emails: ['ada.petrov+webinar@acme.com'] },
      { id: 3, firstName: 'Adá', lastName: 'PETROV', emails: ['ada@gmail.com'], phones: ['555.010.2000'] },
      { id: 4, firstName: 'Bob', lastName: 'Stone', emails: ['bob@acme.com'], accountId: 7 },
    ];
    const [c, ...rest] = clusterProspects(people);
    expect(rest).toEqual([]);
    expect(c!.ids).toEqual([1, 2, 3]);
    expect(c!.reasons.join('\n')).toMatch(/1 ~ 2: e-mail ada\.petrov@acme\.com/);
    expect(c!.reasons.join('\n')).toMatch(/1 ~ 3: phone \+15550102000/);
    expect(c!.score).toBe(0.9);
  });

  it('does not match a shared switchboard, a role address, or a name at another company', () => {
    const people: ProspectIn[] = [
      {
        id: 1,
        firstName: 'Ada',
        lastName: 'Petrov',
        emails: ['ada@acme.com', 'info@acme.com'],
        phones: ['+1 555 010 2000'],
        company: 'Acme',
      },
      // The switchboard: another name, the same number.
      { id: 2, firstName: 'Carl', lastName: 'Berg', emails: ['carl@acme.com'], phones: ['555-010-2000'], company: 'Acme' },
      // The shared inbox.
      { id: 3, firstName: 'Dina', lastName: 'Moss', emails: ['INFO@acme.com'], company: 'Acme' },
      // Ada Petrov at another company.
      { id: 4, firstName: 'Ada', lastName: 'Petrov', emails: ['ada.petrov@globex.com'], company: 'Globex' },
      // Ada Petrov with no company at all: a name alone is never enough.
      { id: 5, firstName: 'Ada', lastName: 'Petrov' },
    ];
    expect(clusterProspects(people)).toEqual([]);
  });

  it('matches a name with a typo at the same company, not two colleagues of one name with their own addresses', () => {
    const people: ProspectIn[] = [
      { id: 1, firstName: 'Chloe', lastName: 'Garcia', emails: ['chloe.garcia@nova.com'], company: 'Nova Inc.' },
      { id: 2, firstName: 'Choe', lastName: 'Garcia', emails: ['cg@gmail.com'], company: 'NOVA, Inc' },
      { id: 3, firstName: 'Bea', lastName: 'Lind', emails: ['bea.lind@nova.com'], company: 'Nova' },
      { id: 4, firstName: 'Bea', lastName: 'Lind', emails: ['b.lind@nova.com'], company: 'Nova' },
    ];
    expect(ids(clusterProspects(people))).toEqual([[1, 2]]);
    expect(ids(clusterProspects(people, { by: ['email', 'phone'] }))).toEqual([]);
  });

  it('joins a record that resembles two different people to neither when both are as close', () => {
    const people: ProspectIn[] = [
      { id: 1, firstName: 'Chloe', lastName: 'Garcia', emails: ['chloe.garcia1@nova.com'], company: 'Nova' },
      { id: 2, firstName: 'Chloe', lastName: 'Garcia', emails: ['chloe.garcia2@nova.com'], company: 'Nova' },
      { id: 3, firstName: 'Choe', lastName: 'Garcia', emails: ['cg@gmail.com'], company: 'Nova' },
    ];
    expect(clusterProspects(people)).toEqual([]);
  });

  it('reads numbers without a country code in the region given', () => {
    const people: ProspectIn[] = [
      { id: 1, firstName: 'Ian', lastName: 'Ward', phones: ['020 7946 0000'] },
      { id: 2, firstName: 'Ian', lastName: 'Ward', phones: ['+44 20 7946 0000'] },
    ];
    expect(clusterProspects(people)).toEqual([]);
    expect(ids(clusterProspects(people, { region: { code: '44', trunk: '0', lengths: [10] } }))).toEqual([[1, 2]]);
  });

  it('matches a number typed full-width and a name at a company with its Japanese legal form before or after it', () => {
    // A Japanese sales-ops trial: neither pair was found.
    const jp = { code: '81', trunk: '0', lengths: [9, 10] };
    const people: ProspectIn[] = [
      { id: 1, firstName: '中村', lastName: '優子', phones: ['03-7777-1111'] },
      { id: 2, firstName: '中村', lastName: '優子', phones: ['０３－７７７７－１１１１'] },
      { id: 3, firstName: '鈴木', lastName: '一郎', company: 'ABC株式会社' },
      { id: 4, firstName: '鈴木', lastName: '一郎', company: '株式会社ABC' },
      { id: 5, firstName: '鈴木', lastName: '一郎', accountName: '㈱ABC' },
    ];
    const phone = clusterProspects(people, { by: ['phone'], region: jp });
    expect(ids(phone)).toEqual([[1, 2]]);
    expect(phone[0]!.reasons).toEqual(['1 ~ 2: phone +81377771111 and name 中村 優子']);
    const name = clusterProspects(people, { by: ['name'], region: jp });
    expect(ids(name)).toEqual([[3, 4, 5]]);
    expect(name[0]!.reasons.join('\n')).toMatch(/3 ~ 4: name 鈴木 一郎 at abc/);
  });

  it('leaves out pairs under --min-score', () => {
    const people: ProspectIn[] = [
      { id: 1, firstName: 'Ada', lastName: 'Petrov', phones: ['5550102000'] },
      { id: 2, firstName: 'Ada', lastName: 'Petrov', phones: ['555 010 2000'] },
    ];
    expect(ids(clusterProspects(people, { minScore: 0.9 }))).toEqual([[1, 2]]);
    expect(clusterProspects(people, { minScore: 0.95 })).toEqual([]);
  });
});

describe('clusterAccounts', () => {
  it('matches by registrable domain and by name without legal form, not two companies of one name', () => {
    const accounts = [
      { id: 1, name: 'Acme Inc.', domain: 'acme.com' },
      { id: 2, name: 'ACME, Inc', websiteUrl: 'https://www.acme.com/about' },
      { id: 3, name: 'Acme Europe', domain: 'eu.acme.com' },
      { id: 4, name: 'Acme', domain: 'acme-bakery.com' },
      { id: 5, name: 'Globex GmbH' },
      { id: 6, name: 'Globex' },
    ];
    expect(ids(clusterAccounts(accounts))).toEqual([
      [1, 2, 3],
      [5, 6],
    ]);
    expect(ids(clusterAccounts(accounts, { by: [] }))).toEqual([[1, 2, 3]]);
  });

  it('matches accounts by name without a Japanese legal form, before or after the name', () => {
    const accounts = [
      { id: 1, name: '株式会社ABC' },
      { id: 2, name: 'ABC㈱' },
      { id: 3, name: '（株）ＡＢＣ' },
      { id: 4, name: 'ABC商事' },
    ];
    expect(ids(clusterAccounts(accounts))).toEqual([[1, 2, 3]]);
  });
});
