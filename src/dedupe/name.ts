/**
 * Names as duplicate keys: accents folded (NFKD, Latin accents dropped: `Zoë` is `zoe`; other
 * scripts' marks kept: `サンプル` is not `サンブル`), width folded (`ｻﾝﾌﾟﾙ` is `サンプル`), case folded,
 * punctuation made a space, spaces collapsed. Company names also lose their legal form
 * (`Acme Inc.`, `ACME, Inc`, `Acme GmbH` are all `acme`), and a leading `the`.
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
      // Apostrophes join (O'Brien is obrien); other punctuation separates.
      .replace(/['’`]/g, '')
      .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
      .trim()
  );
}

/** A company name without its legal form: `ACME, Inc.` → `acme`. */
export function normaliseCompany(raw: unknown): string {
  const words = normaliseName(raw).split(' ').filter(Boolean);
  // `S.A.` and `B.V.` normalise to single letters: join the trailing single letters back.
  while (words.length > 1 && words.at(-1)!.length === 1 && words.at(-2)!.length === 1) {
    const last = words.pop()!;
    words[words.length - 1] += last;
  }
  while (words.length > 1 && COMPANY_SUFFIXES.has(words.at(-1)!)) words.pop();
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
