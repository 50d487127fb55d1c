/** The one resolver of field names as people write them (src/registry/name-match.ts). */
import { describe, expect, it } from 'vitest';
import { resourceByType } from '../../../src/registry/index.js';
import { looseName, matchFieldName } from '../../../src/registry/name-match.js';

const prospect = resourceByType('prospect')!;
const account = resourceByType('account')!;
const field = (rt = prospect, name: string, synonyms = true) => {
  const m = matchFieldName(rt, name, { customFields: [{ name: 'custom2', label: 'Lead Score' }], extraAttributes: [] }, synonyms);
  return m && 'match' in m ? m.match.field + (m.match.named ? '@name' : '') : m ? m.ambiguous.map((a) => a.field) : undefined;
};

describe('matchFieldName', () => {
  it('reads case, spaces, punctuation and a plural s', () => {
    expect(field(prospect, 'First Name')).toBe('firstName');
    expect(field(prospect, 'first_name')).toBe('firstName');
    expect(field(prospect, 'E-mail')).toBe('emails');
    expect(field(prospect, 'Work Phone')).toBe('workPhones');
    expect(field(prospect, 'Account ID')).toBe('account.id');
    expect(field(prospect, 'Custom 7')).toBe('custom7');
    expect(field(prospect, 'leadscore')).toBe('custom2');
  });

  it('knows the common synonyms of headers, for the type', () => {
    expect(field(prospect, 'Email Address')).toBe('emails');
    expect(field(prospect, 'Phone')).toBe('workPhones');
    expect(field(prospect, 'Mobile')).toBe('mobilePhones');
    expect(field(prospect, 'Job Title')).toBe('title');
    expect(field(prospect, 'Company')).toBe('company');
    expect(field(prospect, 'Account Name')).toBe('account@name');
    expect(field(account, 'Company')).toBe('name');
    expect(field(account, 'Account Name')).toBe('name');
    // Synonyms are for headers: flags take names, spelled loosely.
    expect(field(prospect, 'Phone', false)).toBeUndefined();
    expect(field(prospect, 'firstname', false)).toBe('firstName');
  });

  it('two fields for one name are reported, not guessed', () => {
    const m = matchFieldName(prospect, 'Title', { customFields: [{ name: 'custom5', label: 'Title' }], extraAttributes: [] });
    expect(m && 'ambiguous' in m && m.ambiguous.map((a) => a.field)).toEqual(['title', 'custom5']);
    // Written exactly, a field wins over a label.
    expect(matchFieldName(prospect, 'title', { customFields: [{ name: 'custom5', label: 'Title' }], extraAttributes: [] })).toEqual({
      match: { field: 'title', by: 'name' },
    });
  });

  it('keeps the letters and digits of every script: only case, accents, width, spaces and punctuation are spelling', () => {
    expect(looseName('First Name')).toBe('firstname');
    expect(looseName('E-Mail')).toBe('email');
    expect(looseName('Prénom')).toBe('prenom');
    expect(looseName('会社名')).toBe('会社名');
    expect(looseName('会社名')).not.toBe(looseName('部署'));
    expect(looseName('ＡＢＣ　Ｃｏ．')).toBe('abcco');
    expect(looseName('ﾒｰﾙ')).toBe(looseName('メール'));
    expect(looseName('ガス')).not.toBe(looseName('カス'));
    expect(looseName('Фамилия')).toBe(looseName('ФАМИЛИЯ'));
    expect(looseName('Фамилия')).not.toBe(looseName('Имя'));
    expect(looseName('ΕΠΏΝΥΜΟΣ')).toBe(looseName('Επώνυμος'));
    expect(looseName('ईमेल')).not.toBe(looseName('ईमल'));
  });

  it('matches a label in any script, and never two names that are punctuation alone', () => {
    const org = {
      customFields: [
        { name: 'custom9', label: '業種' },
        { name: 'custom10', label: '従業員数' },
        { name: 'custom11', label: '#' },
      ],
      extraAttributes: [],
    };
    expect(matchFieldName(prospect, '業種', org, true)).toEqual({ match: { field: 'custom9', by: 'label', label: '業種' } });
    expect(matchFieldName(prospect, '部署', org, true)).toBeUndefined();
    expect(matchFieldName(prospect, '—', org, true)).toBeUndefined();
  });
});
