/**
 * Phone numbers to E.164 (`+15550102000`), the extension kept apart: `+1 (555) 010-2000`,
 * `555.010.2000` and `1-555-010-2000 x12` are one number (the last with extension 12). A number
 * without a country code is read in the default region (`--region`, US by default).
 *
 * Written here rather than with a full numbering-plan library: duplicates only need the same
 * string for the same number, not validation per carrier. The regions known are NANP (US, CA and
 * the other +1 countries) and the common country codes of {@link REGIONS}; an international
 * number (`+…`, `00…`) of any other code is kept as its digits when its length is plausible.
 *
 * The width of its characters does not matter: `０３－７７７７－１１１１` (typed with a Japanese
 * IME, full-width digits, hyphens, parentheses, plus and spaces) is `03-7777-1111`.
 */
import { asciiForms } from '../ascii-forms.js';

/** A region: its calling code, the trunk prefix dialled before national numbers, and the national number lengths. */
interface Region {
  code: string;
  /**
   * Dialled before a national number (`0` of `020 7946 0000`), never part of it: dropped. `1` in
   * NANP (an 11-digit number starting with 1); empty where there is none (Italy keeps its 0).
   */
  trunk: string;
  /** Lengths of the national significant number. */
  lengths: readonly number[];
}

/** The regions `--region` takes (ISO 3166 alpha-2). */
export const REGIONS: Readonly<Record<string, Region>> = {
  US: { code: '1', trunk: '1', lengths: [10] },
  CA: { code: '1', trunk: '1', lengths: [10] },
  GB: { code: '44', trunk: '0', lengths: [9, 10] },
  IE: { code: '353', trunk: '0', lengths: [7, 8, 9] },
  DE: { code: '49', trunk: '0', lengths: [6, 7, 8, 9, 10, 11] },
  AT: { code: '43', trunk: '0', lengths: [6, 7, 8, 9, 10, 11, 12, 13] },
  CH: { code: '41', trunk: '0', lengths: [9] },
  FR: { code: '33', trunk: '0', lengths: [9] },
  NL: { code: '31', trunk: '0', lengths: [9] },
  BE: { code: '32', trunk: '0', lengths: [8, 9] },
  ES: { code: '34', trunk: '', lengths: [9] },
  // Italy keeps the leading 0 of landlines after the country code: no trunk prefix to drop.
  IT: { code: '39', trunk: '', lengths: [6, 7, 8, 9, 10, 11] },
  SE: { code: '46', trunk: '0', lengths: [7, 8, 9] },
  DK: { code: '45', trunk: '', lengths: [8] },
  NO: { code: '47', trunk: '', lengths: [8] },
  PL: { code: '48', trunk: '', lengths: [9] },
  AU: { code: '61', trunk: '0', lengths: [9] },
  NZ: { code: '64', trunk: '0', lengths: [8, 9, 10] },
  IN: { code: '91', trunk: '0', lengths: [10] },
  JP: { code: '81', trunk: '0', lengths: [9, 10] },
  SG: { code: '65', trunk: '', lengths: [8] },
  BR: { code: '55', trunk: '0', lengths: [10, 11] },
  MX: { code: '52', trunk: '', lengths: [10] },
};

/** Calling codes by their digits, for reading `+…` numbers. */
const BY_CODE = new Map(Object.values(REGIONS).map((r) => [r.code, r]));

/** A number in E.164 and its extension. */
export interface Phone {
  e164: string;
  ext?: string;
}

/** The region of `--region`, or undefined for an unknown one. */
export function region(name: string): Region | undefined {
  return REGIONS[name.trim().toUpperCase()];
}

/** Splits off an extension: `x12`, `ext. 12`, `extension 12`, `#12`, `;ext=12`. */
function splitExtension(s: string): [string, string | undefined] {
  const m = /^(.*?)(?:\s*(?:;\s*ext=|e?xt(?:ension)?\.?|x|#)\s*(\d{1,7}))\s*$/i.exec(s);
  return m ? [m[1]!, m[2]] : [s, undefined];
}

/**
 * The dashes a number is written with besides `-`: typographic ones (U+2010–U+2015, the minus sign
 * U+2212) and the katakana prolonged sound mark `ー` (and its half-width `ｰ`), which a Japanese IME
 * gives for the hyphen key in kana mode. Only ever read inside a phone number.
 */
const DASHES = /[\u2010-\u2015\u2212\u30fc\uff70]/g;

/** `raw` in ASCII where it matters to a number: full-width forms (`０３（５５５５）`), the ideographic space, dashes. */
function asciiNumber(raw: string): string {
  // Most numbers are ASCII already.
  if (/^[ -~]*$/.test(raw)) return raw;
  return asciiForms(raw)
    .replace(/\u3000/g, ' ')
    .replace(DASHES, '-');
}

/** The E.164 form of `raw` in `home`'s numbering plan, or undefined when it is not a phone number. */
export function normalisePhone(raw: unknown, home: Region = REGIONS.US!): Phone | undefined {
  if (typeof raw !== 'string') return undefined;
  const [body, ext] = splitExtension(asciiNumber(raw).trim());
  // Only the characters phone numbers are written with: letters (vanity numbers, notes) are not read.
  if (!/^[+\d\s().\-/]+$/.test(body)) return undefined;
  let digits = body.replace(/\D/g, '');
  const international = body.trimStart().startsWith('+') || (digits.startsWith('00') && !body.trimStart().startsWith('('));
  if (international) {
    if (!body.trimStart().startsWith('+')) digits = digits.slice(2);
    return withExt(international164(digits), ext);
  }
  // NANP numbers are often written with their 1 and no plus: 1-555-010-2000.
  if (home.code === '1' && digits.length === 11 && digits.startsWith('1')) digits = digits.slice(1);
  else if (home.trunk === '0' && digits.startsWith('0')) digits = digits.slice(1);
  if (!home.lengths.includes(digits.length)) return undefined;
  return withExt(`+${home.code}${digits}`, ext);
}

/** `+<digits>` of an international number, its national part without a trunk 0 (`+44 (0)20…`). */
function international164(digits: string): string | undefined {
  for (const len of [1, 2, 3]) {
    const r = BY_CODE.get(digits.slice(0, len));
    if (!r) continue;
    let rest = digits.slice(len);
    if (r.trunk === '0' && rest.startsWith('0')) rest = rest.slice(1);
    return r.lengths.includes(rest.length) ? `+${r.code}${rest}` : undefined;
  }
  // Another country: E.164 allows 8 to 15 digits in all.
  return digits.length >= 8 && digits.length <= 15 && digits[0] !== '0' ? `+${digits}` : undefined;
}

function withExt(e164: string | undefined, ext: string | undefined): Phone | undefined {
  if (e164 === undefined) return undefined;
  return ext ? { e164, ext } : { e164 };
}

/** The key two records share when they have the same line: the number and its extension. */
export function phoneKey(p: Phone): string {
  return p.ext ? `${p.e164};ext=${p.ext}` : p.e164;
}
