/**
 * Names as duplicate keys: accents folded (NFKD, Latin accents dropped: `Zoë` is `zoe`; other
 * scripts' marks kept: `サンプル` is not `サンブル`), the Latin letters NFKD leaves whole spelled as
 * people type them without the key (`Cœur` is `coeur`, `Strauß` `strauss`, `Ørsted` `orsted`),
 * width folded (`ｻﾝﾌﾟﾙ` is `サンプル`), case folded,
 * punctuation made a space, spaces collapsed. Company names also lose their legal form
 * (`Acme Inc.`, `ACME, Inc`, `Acme GmbH` are all `acme`; `ABC株式会社`, `株式会社ABC`, `(株)ABC`
 * and `ABC㈱` are all `abc`), and a leading `the`.
 */

/** Legal forms and their abbreviations, dropped at the end of a company name (after normalising). */
const COMPANY_SUFFIXES = new Set([
  'inc',
  'incorporated',
  'corp',
  'corporation',
  'co',
  'company',
  'llc',
  'llp',
  'lp',
  'ltd',
  'limited',
  'plc',
  'gmbh',
  'ag',
  'kg',
  'ug',
  'sa',
  'sas',
  'sarl',
  'sasu',
  'eurl',
  'snc',
  'cie',
  'srl',
  'spa',
  'bv',
  'nv',
  'oy',
  'ab',
  'as',
  'aps',
  'pty',
  'pte',
  'kk',
  'group',
  'holding',
  'holdings',
]);

/**
 * Japanese legal forms (after normalising). Unlike the Latin ones they come before the name as
 * often as after it (`株式会社ABC`, `ABC株式会社`), and with no space between: they are cut from
 * the start of the first word and the end of the last.
 */
const JAPANESE_FORMS = ['株式会社', '有限会社', '合同会社', '合名会社', '合資会社'];

/**
 * The bracketed one-character abbreviations of {@link JAPANESE_FORMS}: `(株)`, `（株）` full-width,
 * `㈱` as one character (and `(有)` `㈲`, `(同)`, `(名)` `㈴`, `(資)` `㈾`). Read on the name as
 * typed, where the brackets still say it is an abbreviation: without them 株 is a word of a name.
 */
const JAPANESE_ABBREVIATIONS = /[(（]\s*([株有同名資])\s*[)）]|([㈱㈲㈴㈾])/g;
const ABBREVIATED: Readonly<Record<string, string>> = {
  株: '株式会社',
  有: '有限会社',
  同: '合同会社',
  名: '合名会社',
  資: '合資会社',
  '㈱': '株式会社',
  '㈲': '有限会社',
  '㈴': '合名会社',
  '㈾': '合資会社',
};

/** `word` without a Japanese legal form at its start (`株式会社abc`) or its end (`abc株式会社`). */
function withoutJapaneseForm(word: string, at: 'start' | 'end'): string {
  for (const f of JAPANESE_FORMS) {
    if (at === 'start' && word.startsWith(f)) return word.slice(f.length);
    if (at === 'end' && word.endsWith(f)) return word.slice(0, -f.length);
  }
  return word;
}

/** Lower-case Latin letters NFKD does not decompose, as they are spelled in ASCII. */
const FOLDED: Readonly<Record<string, string>> = {
  œ: 'oe',
  æ: 'ae',
  ß: 'ss',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};
const FOLDED_LETTERS = /[œæßøłđðþı]/g;

/** Words joining a legal form to the name (`Dupont et Cie`), dropped with it. */
const CONNECTIVES = new Set(['et', 'and', 'und']);

/** Case, accents, punctuation and spacing folded. */
export function normaliseName(raw: unknown): string {
  if (typeof raw !== 'string') return '';
  // Most names are plain ASCII: no decomposition to do (the fast path of 200,000 records).
  if (/^[A-Za-z0-9 ]*$/.test(raw)) return raw.toLowerCase().replace(/ +/g, ' ').trim();
  return (
    raw
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      // Composed again: the marks that are not accents (kana's voicing marks, which make サンプル
      // and サンブル two companies; Indic vowel signs) stay part of their letter, not a space.
      .normalize('NFC')
      .toLowerCase()
      // Letters with no decomposition, typed as their ASCII spelling on keyboards without them (a
      // Paris trial: Cœur de Lion and Coeur de Lion were two companies, so no name match at all).
      .replace(FOLDED_LETTERS, (c) => FOLDED[c]!)
      // Apostrophes join (O'Brien is obrien); other punctuation separates.
      .replace(/['’`]/g, '')
      .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
      .trim()
  );
}

/** A company name without its legal form: `ACME, Inc.` → `acme`. */
export function normaliseCompany(raw: unknown): string {
  // Only a name with a character outside ASCII can have a Japanese form.
  const japanese = typeof raw === 'string' && !/^[ -~]*$/.test(raw);
  const words = normaliseName(
    japanese ? raw.replace(JAPANESE_ABBREVIATIONS, (_, a?: string, b?: string) => ` ${ABBREVIATED[(a ?? b)!]} `) : raw,
  )
    .split(' ')
    .filter(Boolean);
  if (japanese) {
    // A form of its own (`株式会社 abc`) or glued to the name (`株式会社abc`); a name that is only a form stays.
    const head = withoutJapaneseForm(words[0] ?? '', 'start');
    if (head !== words[0] && (head || words.length > 1)) {
      if (head) words[0] = head;
      else words.shift();
    }
    const tail = withoutJapaneseForm(words.at(-1) ?? '', 'end');
    if (tail !== words.at(-1) && (tail || words.length > 1)) {
      if (tail) words[words.length - 1] = tail;
      else words.pop();
    }
  }
  // `S.A.`, `S.A.S.` and `S.A.R.L.` normalise to single letters: join the trailing run back into
  // one word (joined two at a time, S.A.S. was `s as` and lost `as` as a legal form: `s`). The
  // longest end of the run that is a legal form, so a one-letter word of the name before it
  // stays a word (`Plan B S.A.` is `plan b`, not `plan bsa`); else the whole run (`Acme X.Y.Z.`).
  let run = 0;
  while (run < words.length - 1 && words[words.length - 1 - run]!.length === 1) run++;
  let take = run;
  while (take > 1 && !COMPANY_SUFFIXES.has(words.slice(words.length - take).join(''))) take--;
  if (take < 2) take = run;
  if (take > 1) words.push(words.splice(words.length - take).join(''));
  let dropped = false;
  while (words.length > 1 && COMPANY_SUFFIXES.has(words.at(-1)!)) {
    words.pop();
    dropped = true;
  }
  if (dropped && words.length > 1 && CONNECTIVES.has(words.at(-1)!)) words.pop();
  if (words.length > 1 && words[0] === 'the') words.shift();
  return words.join(' ');
}

/**
 * Jaro-Winkler similarity of two strings, 0 (nothing alike) to 1 (equal): the usual measure
 * for short names, forgiving a typo or a transposition and favouring a common start.
 */
export function similarity(a: string, b: string): number {
  if (a === b) return a ? 1 : 0;
  const la = a.length;
  const lb = b.length;
  if (!la || !lb) return 0;
  const window = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  const ma = new Uint8Array(la);
  const mb = new Uint8Array(lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - window);
    const hi = Math.min(lb - 1, i + window);
    for (let j = lo; j <= hi; j++) {
      if (mb[j] || a.charCodeAt(i) !== b.charCodeAt(j)) continue;
      ma[i] = mb[j] = 1;
      matches++;
      break;
    }
  }
  if (!matches) return 0;
  let t = 0;
  for (let i = 0, j = 0; i < la; i++) {
    if (!ma[i]) continue;
    while (!mb[j]) j++;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) t++;
    j++;
  }
  const jaro = (matches / la + matches / lb + (matches - t / 2) / matches) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < la && prefix < lb && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}
