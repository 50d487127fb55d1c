/** The normalisers of `svc dedupe` (src/dedupe/): e-mail, phone, names and companies, domains, similarity. */
import { describe, expect, it } from 'vitest';
import { isRoleAddress, normaliseEmail } from '../../src/dedupe/email.js';
import { normalisePhone, phoneKey, region } from '../../src/dedupe/phone.js';
import { normaliseCompany, normaliseName, similarity } from '../../src/dedupe/name.js';
import { registrableDomain } from '../../src/dedupe/domain.js';

describe('normaliseEmail', () => {
  it('folds case and spaces and drops +tags', () => {
    expect(normaliseEmail('  Ada.Petrov@ACME.com ')).toBe('ada.petrov@acme.com');
    expect(normaliseEmail('ada.petrov+webinar@acme.com')).toBe('ada.petrov@acme.com');
  });
  it('drops dots only at providers that ignore them, and treats googlemail as gmail', () => {
    expect(normaliseEmail('A.Da.Petrov@gmail.com')).toBe('adapetrov@gmail.com');
    expect(normaliseEmail('ada.petrov+x@googlemail.com')).toBe('adapetrov@gmail.com');
    expect(normaliseEmail('ada.petrov@outlook.com')).toBe('ada.petrov@outlook.com');
  });
  it('refuses what is not an address', () => {
    for (const bad of ['', 'ada', '@acme.com', 'ada@', 'ada@localhost', 'a da@acme.com', null, 42])
      expect(normaliseEmail(bad)).toBeUndefined();
  });
  it('knows role addresses', () => {
    expect(isRoleAddress(normaliseEmail('Info@Acme.com')!)).toBe(true);
    expect(isRoleAddress(normaliseEmail('sales+eu@acme.com')!)).toBe(true);
    expect(isRoleAddress(normaliseEmail('ada@acme.com')!)).toBe(false);
  });
});

describe('normalisePhone', () => {
  it('writes the ways of one US number as one E.164 number', () => {
    for (const s of ['+1 (555) 010-2000', '555.010.2000', '(555) 010-2000', '1-555-010-2000', '+1 555 010 2000', '001 555 010 2000'])
      expect(normalisePhone(s), s).toEqual({ e164: '+15550102000' });
  });
  it('keeps extensions apart', () => {
    expect(normalisePhone('555-010-2000 x12')).toEqual({ e164: '+15550102000', ext: '12' });
    expect(normalisePhone('+1 555 010 2000 ext. 7')).toEqual({ e164: '+15550102000', ext: '7' });
    expect(phoneKey(normalisePhone('555-010-2000 #12')!)).toBe('+15550102000;ext=12');
    expect(phoneKey(normalisePhone('555-010-2000')!)).not.toBe(phoneKey(normalisePhone('555-010-2000 x12')!));
  });
  it('reads national numbers in the region given, dropping the trunk prefix', () => {
    expect(normalisePhone('020 7946 0000', region('GB'))).toEqual({ e164: '+442079460000' });
    expect(normalisePhone('+44 (0)20 7946 0000')).toEqual({ e164: '+442079460000' });
    expect(normalisePhone('030 1234567', region('de'))).toEqual({ e164: '+49301234567' });
    expect(normalisePhone('06 12 34 56 78', region('FR'))).toEqual({ e164: '+33612345678' });
    // Italy keeps its 0 after the country code.
    expect(normalisePhone('06 1234 5678', region('IT'))).toEqual({ e164: '+390612345678' });
    expect(normalisePhone('+61 2 9876 5432')).toEqual({ e164: '+61298765432' });
  });
  it('reads a number typed full-width as its ASCII twin (a Japanese sales-ops trial: the pair was not found)', () => {
    const jp = region('JP');
    for (const s of [
      '03-7777-1111',
      '０３-７７７７-１１１１',
      '０３－７７７７－１１１１',
      '（０３）７７７７－１１１１',
      '０３　７７７７　１１１１',
      '＋８１　３－７７７７－１１１１',
      // The dashes a word processor or an IME in kana mode gives: minus sign, en dash, ー.
      '03−7777−1111',
      '03–7777–1111',
      '03ー7777ー1111',
    ])
      expect(normalisePhone(s, jp), s).toEqual({ e164: '+81377771111' });
    expect(normalisePhone('５５５．０１０．２０００　ｘ１２')).toEqual({ e164: '+15550102000', ext: '12' });
    // The full-width forms of ASCII only, not all of NFKC: a superscript is no digit.
    expect(normalisePhone('03-7777-111¹', jp)).toBeUndefined();
    expect(normalisePhone('０３-７７７７-１１１Ａ', jp)).toBeUndefined();
  });
  it('keeps an international number of another country as its digits', () => {
    expect(normalisePhone('+254 712 345678')).toEqual({ e164: '+254712345678' });
  });
  it('refuses what is not a number', () => {
    for (const bad of ['', '12345', 'call me', '1-800-FLOWERS', '555-010-200', null])
      expect(normalisePhone(bad), String(bad)).toBeUndefined();
    expect(region('ZZ')).toBeUndefined();
  });
});

describe('names and companies', () => {
  it('folds case, accents and punctuation', () => {
    expect(normaliseName('  ZOË  O’Brien-Smith ')).toBe('zoe obrien smith');
    expect(normaliseName('José')).toBe(normaliseName('jose'));
  });
  it('keeps the marks of other scripts: kana voicing makes another name, Indic vowel signs no space', () => {
    // A new-user trial: the voicing marks were dropped (as a space), and two companies became one.
    expect(normaliseCompany('株式会社サンプル')).toBe('サンプル');
    expect(normaliseCompany('株式会社サンブル')).toBe('サンブル');
    expect(normaliseName('ｻﾝﾌﾟﾙ')).toBe('サンプル');
    expect(normaliseName('ガッコウ')).not.toBe(normaliseName('カッコウ'));
    expect(normaliseName('हिन्दी नाम')).toBe('हिन्दी नाम');
    expect(normaliseName('Zoë Ñúñez')).toBe('zoe nunez');
  });
  it('drops legal forms from company names', () => {
    for (const s of ['Acme Inc.', 'ACME, Inc', 'Acme LLC', 'Acme GmbH', 'The Acme Company', 'Acme Ltd.', 'Acme S.A.', 'acme'])
      expect(normaliseCompany(s), s).toBe('acme');
    expect(normaliseCompany('Acme Rockets Inc')).toBe('acme rockets');
    // A name that is only a legal form word stays.
    expect(normaliseCompany('Group')).toBe('group');
  });
  it('drops legal forms written with dots, however many letters (a Paris trial: S.A.S. was "s", S.A.R.L. "s a rl")', () => {
    for (const s of ['Dupont S.A.S.', 'Dupont SAS', 'Dupont S.A.R.L.', 'Dupont SARL', 'DUPONT E.U.R.L.', 'Dupont & Cie', 'Dupont et Cie'])
      expect(normaliseCompany(s), s).toBe('dupont');
    expect(normaliseCompany('Acme L.L.C.')).toBe(normaliseCompany('Acme LLC'));
    // Single letters that are no legal form stay a part of the name.
    expect(normaliseCompany('Acme X.Y.Z.')).toBe('acme xyz');
  });
  it('a one-letter word of the name before a dotted legal form stays a word of its own (Plan B S.A. is Plan B)', () => {
    // The trailing run of single letters was joined whole: `plan b s a` became `plan bsa`, no legal
    // form, so Plan B S.A. and Plan B were two companies (joined two at a time, they were one).
    expect(normaliseCompany('Plan B S.A.')).toBe('plan b');
    expect(normaliseCompany('Plan B S.A.S.')).toBe(normaliseCompany('Plan B'));
    expect(normaliseCompany('Studio K S.A.R.L.')).toBe('studio k');
  });
  it('folds the letters NFKD leaves whole: œ æ ß ø ł (a Paris trial: Cœur de Lion and Coeur de Lion were two companies)', () => {
    expect(normaliseCompany('Cœur de Lion SAS')).toBe(normaliseCompany('Coeur de Lion'));
    expect(normaliseName('Gaël LE CŒUR')).toBe('gael le coeur');
    expect(normaliseName('Æsa Strauß')).toBe(normaliseName('Aesa Strauss'));
    expect(normaliseName('Ørsted Łukasz Đorđe')).toBe('orsted lukasz dorde');
  });
  it('drops Japanese legal forms before or after the name, spelled out or abbreviated, with or without a space', () => {
    // A Japanese sales-ops trial: 鈴木 一郎 at ABC株式会社 and at 株式会社ABC were not matched.
    for (const s of [
      'ABC株式会社',
      '株式会社ABC',
      '株式会社 ABC',
      'ABC 株式会社',
      'ＡＢＣ株式会社',
      '(株)ABC',
      '（株）ABC',
      'ABC(株)',
      '㈱ABC',
      'ABC㈱',
      '( 株 ) ABC',
      'ABC K.K.',
      'ABC KK',
      'ABC Co., Ltd.',
    ])
      expect(normaliseCompany(s), s).toBe('abc');
    for (const s of [
      '有限会社山田商店',
      '山田商店有限会社',
      '(有)山田商店',
      '㈲山田商店',
      '合同会社山田商店',
      '山田商店合名会社',
      '合資会社 山田商店',
      '(同)山田商店',
    ])
      expect(normaliseCompany(s), s).toBe('山田商店');
    // Only at the ends: a form inside the name stays, and so does a name that is only a form.
    expect(normaliseCompany('ABC株式会社東京支社')).toBe('abc株式会社東京支社');
    expect(normaliseCompany('株式会社')).toBe('株式会社');
    expect(normaliseCompany('㈱')).toBe('株式会社');
    // 株 without its brackets is a word of the name (株 is also "stock").
    expect(normaliseCompany('株 ABC')).toBe('株 abc');
    expect(normaliseCompany('ＸＹＺ商事')).toBe(normaliseCompany('XYZ商事'));
  });
  it('scores similar names high and different ones low', () => {
    expect(similarity('chloe', 'choe')).toBeGreaterThan(0.9);
    expect(similarity('martha', 'marhta')).toBeCloseTo(0.961, 3);
    expect(similarity('ada', 'bob')).toBe(0);
    expect(similarity('', '')).toBe(0);
    expect(similarity('ada', 'ada')).toBe(1);
  });
});

describe('registrableDomain', () => {
  it('strips scheme, path, www and subdomains', () => {
    for (const s of ['acme.com', 'ACME.com', 'www.acme.com', 'https://www.acme.com/about?x=1', 'eu.shop.acme.com', 'http://acme.com:8080'])
      expect(registrableDomain(s), s).toBe('acme.com');
  });
  it('keeps the label before a two-label public suffix', () => {
    expect(registrableDomain('shop.acme.co.uk')).toBe('acme.co.uk');
    expect(registrableDomain('www.acme.com.au')).toBe('acme.com.au');
  });
  it('refuses what is not a domain', () => {
    for (const bad of ['', 'localhost', 'acme', 'a b.com', null]) expect(registrableDomain(bad)).toBeUndefined();
  });
});
