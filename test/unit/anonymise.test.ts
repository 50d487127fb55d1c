/** The anonymiser of org copies: which fields, deterministic fakes, joins kept, rule values kept. */
import { describe, expect, it } from 'vitest';
import { Anonymiser, fieldKind } from '../../src/anonymise.js';
import { toRecord } from '../../src/commands/sandbox/copy-records.js';
import { resourceByType } from '../../src/registry/index.js';

const custom = {
  custom1: { type: 'inclusion', required: false, label: 'Source', definition: ['Webinar', 'Referral'] },
  custom2: { type: 'numerical', required: false, label: 'Score', definition: null },
  custom3: { type: 'url', required: false, label: 'Calendar', definition: null },
};

describe('fieldKind', () => {
  it('replaces personal data and free text, keeps what rules act on', () => {
    expect(fieldKind('prospect', 'firstName')).toBe('name');
    expect(fieldKind('prospect', 'name')).toBe('name');
    expect(fieldKind('account', 'name')).toBe('company');
    expect(fieldKind('prospect', 'emails')).toBe('email');
    expect(fieldKind('prospect', 'mobilePhones')).toBe('phone');
    expect(fieldKind('phoneNumber', 'number')).toBe('phone');
    expect(fieldKind('prospect', 'addressStreet')).toBe('address');
    expect(fieldKind('template', 'bodyHtml')).toBe('html');
    expect(fieldKind('prospect', 'custom1', custom)).toBeUndefined();
    expect(fieldKind('prospect', 'custom2', custom)).toBeUndefined();
    expect(fieldKind('prospect', 'custom3', custom)).toBe('url');
    // A custom field without a validation holds a string: free text.
    expect(fieldKind('prospect', 'custom9', custom)).toBe('text');
    // An allow-list: any string the registry does not know to be vocabulary is faked.
    for (const kept of ['optedOut', 'emailsOptStatus', 'engagedScore', 'updatedAt', 'timeZone'])
      expect(fieldKind('prospect', kept)).toBeUndefined();
    expect(fieldKind('prospect', 'title')).toBe('text');
    expect(fieldKind('prospect', 'gender')).toBe('text');
    expect(fieldKind('prospect', 'tags')).toBe('tag');
    expect(fieldKind('prospect', 'externalId')).toBe('handle');
    expect(fieldKind('prospect', 'externalOwner')).toBe('email');
    expect(fieldKind('sequence', 'name')).toBe('label');
    expect(fieldKind('team', 'name')).toBe('label');
    expect(fieldKind('ruleset', 'sequenceExclusivity')).toBeUndefined();
  });
});

describe('Anonymiser', () => {
  it('gives the same fake for the same value within a copy, another in another copy', () => {
    const a = new Anonymiser();
    const b = new Anonymiser();
    expect(a.fake('name', 'Ada')).toBe(a.fake('name', 'Ada'));
    expect(a.fake('name', 'Ada')).not.toBe(a.fake('name', 'Bob'));
    expect(a.fake('name', 'Ada')).not.toBe(b.fake('name', 'Ada'));
    // A resumed copy passes its key: the same fakes.
    expect(new Anonymiser({ key: a.key }).fake('email', 'ada@x.test')).toBe(a.fake('email', 'ada@x.test'));
  });

  // A fake is hex from an HMAC, so it may hold 'ada' by chance (CI once drew such a key): the
  // test checks the fake's shape and the parts of the original no hex can spell.
  const adaInHex = 'b3e97c64153497cd24df02df78aa04e328228eb8a086082010c29848a3d7a932';

  it('e-mail: same address in any case → same fake; domain mapped consistently, or kept', () => {
    for (const a of [new Anonymiser(), new Anonymiser({ key: adaInHex })]) {
      const e = a.fake('email', 'Ada.Lovelace@Acme.test');
      expect(e).toBe(a.fake('email', 'ada.lovelace@acme.test'));
      expect(e).toMatch(/^u[0-9a-f]{10}@d[0-9a-f]{8}\.example$/);
      expect(e).not.toMatch(/lovelace|acme|test/i);
    }
    expect(new Anonymiser({ key: adaInHex }).fake('email', 'ada.lovelace@acme.test')).toContain('ada');
    const a = new Anonymiser();
    const e = a.fake('email', 'Ada.Lovelace@Acme.test');
    const domain = e.split('@')[1]!;
    expect(a.fake('email', 'bob@acme.test').split('@')[1]).toBe(domain);
    expect(a.fake('domain', 'acme.test')).toBe(domain);
    expect(a.fake('url', 'https://www.acme.test/about')).toMatch(new RegExp(`^https://${domain.replace(/\./g, '\\.')}/`));
    const kept = new Anonymiser({ keepDomains: true }).fake('email', 'ada@acme.test');
    expect(kept).toMatch(/^u[0-9a-f]{10}@acme\.test$/);
  });

  it('phone: the digits identify the number; fakes are under +999, nobody’s number', () => {
    const a = new Anonymiser();
    expect(a.fake('phone', '+1 555 123 4567')).toBe(a.fake('phone', '+15551234567'));
    expect(a.fake('phone', '+1 555 123 4567')).toMatch(/^\+999 \d{3} \d{3} \d{4}$/);
  });

  it('attributes: lists faked element by element, other values kept, nothing of the original left', () => {
    const a = new Anonymiser();
    const orig = {
      firstName: 'Grace',
      lastName: 'Hopper',
      emails: ['grace@navy.test', 'gh@navy.test'],
      title: 'Admiral',
      custom1: 'Webinar',
      custom2: '42',
      custom9: 'met at the COBOL party',
      optedOut: false,
    };
    const out = a.attributes('prospect', orig, custom);
    expect(out['title']).toMatch(/^anonymised [0-9a-f]{12}$/);
    expect(out['custom1']).toBe('Webinar');
    expect(out['custom2']).toBe('42');
    expect(out['optedOut']).toBe(false);
    expect((out['emails'] as string[]).length).toBe(2);
    const text = JSON.stringify(out);
    for (const v of ['Grace', 'Hopper', 'grace', 'navy', 'COBOL', 'Admiral']) expect(text).not.toContain(v);
  });

  it('copies only what the allow-list knows to be safe: unknown attributes, personal dates, odd values are dropped', () => {
    const a = new Anonymiser();
    const out = a.attributes(
      'prospect',
      {
        linkedinPersonal: 'https://linkedin.test/in/grace',
        privateEmail: 'grace@home.test',
        extraNumber: 4155550100,
        dateOfBirth: '1906-12-09',
        gender: 'female',
        engagedScore: 'not a number',
        emailsOptStatus: 'grace@home.test',
        timeZone: 'Grace Hopper',
        updatedAt: '2025-01-01T00:00:00.000Z',
        openCount: 3,
        custom1: 'Grace',
        custom2: '42',
      },
      custom,
    );
    // custom1 is an inclusion field holding a value outside its list: dropped with the rest.
    expect(Object.keys(out).sort()).toEqual(['custom2', 'gender', 'openCount', 'updatedAt']);
    expect(out['custom2']).toBe('42');
    expect(out['gender']).toMatch(/^anonymised [0-9a-f]{12}$/);
    expect(JSON.stringify(out)).not.toMatch(/grace|female|1906-12-09|4155550100/i);
    expect([...a.dropped.get('prospect')!].sort()).toEqual(['extraNumber', 'linkedinPersonal', 'privateEmail']);
    // Values of the API's vocabulary in its setting fields are kept; anything else in them is not.
    expect(a.attributes('emailAddress', { emailType: 'work', status: 'Valid' })).toEqual({ emailType: 'work', status: 'Valid' });
    expect(a.attributes('emailAddress', { emailType: 'grace@home.test', status: 'call 555 0100' })).toEqual({});
  });
});

describe('toRecord', () => {
  it('keeps the id and relationships, drops write-only fields a server might send', () => {
    const rt = resourceByType('mailbox')!;
    const rec = toRecord(
      rt,
      {
        type: 'mailbox',
        id: '7',
        attributes: { email: 'a@b.test', smtpPassword: 'hunter2', password: 'x', maxMailingsPerDay: 50 },
        relationships: { user: { data: { type: 'user', id: 3 } } },
      },
      undefined,
    );
    expect(rec).toEqual({ id: 7, attributes: { email: 'a@b.test', maxMailingsPerDay: 50 }, rels: { user: { type: 'user', id: 3 } } });
  });

  it('reads a to-one relationship given as a link only', () => {
    const rt = resourceByType('prospect')!;
    const rec = toRecord(
      rt,
      {
        type: 'prospect',
        id: 1,
        attributes: {},
        relationships: {
          account: { links: { related: 'https://api.test/api/v2/accounts/12' } },
          owner: { links: { related: 'https://api.test/api/v2/users' } },
        },
      },
      undefined,
    );
    expect(rec!.rels).toEqual({ account: { type: 'account', id: 12 }, owner: null });
  });
});
