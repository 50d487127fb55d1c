/**
 * The text encoding of an input file, as spreadsheets write them: UTF-8 with or without a byte
 * order mark, UTF-16 LE or BE by their mark (Excel's "Unicode text") or, without one, by their
 * zero bytes, and Windows-1252 (Excel's
 * "CSV" in much of the world) or Shift_JIS (CP932, Japanese Excel's "CSV") when the bytes are not
 * valid UTF-8. Files are decoded as streams, so memory stays flat however long they are.
 */
import fs from 'node:fs';

/** Encodings of input files. */
export type InputEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'shift_jis';

/** What {@link detectEncoding} found. */
export interface DetectedEncoding {
  encoding: InputEncoding;
  /** The file starts with a byte order mark. */
  bom: boolean;
  /**
   * A file of UTF-8 text with a few bytes that are not (a stray Windows-1252 `ë` pasted in): no
   * one encoding reads it whole, and guessing would garble one side. Set instead of deciding.
   */
  mixed?: MixedEncoding;
  /** Chosen with `--encoding`, not detected. */
  forced?: boolean;
  /**
   * Neither UTF-8 nor Windows-1252: bytes that Windows-1252 leaves undefined (0x81, 0x8D, 0x8F,
   * 0x90, 0x9D), which Mac Roman uses for Å, ç, è, ê, ù (Excel for Mac's plain "CSV"). Read as
   * Windows-1252 they became invisible control characters in the names written. Set instead of
   * deciding. Mac Roman's other letters are letters in Windows-1252 too (its é is Ž): a file
   * without one of these five bytes cannot be told apart, and is read as Windows-1252.
   */
  notCp1252?: { line: number; byte: number };
  /**
   * Japanese in Shift_JIS but for `bad` byte sequences that Shift_JIS cannot read, the first on
   * `line`: read as Windows-1252 its names were mojibake, so the fix named is `--encoding
   * shift_jis`, not windows-1252. Set instead of deciding. With `mixed`: the bytes that are not
   * UTF-8 read as Japanese in Shift_JIS, the other choice to name.
   */
  shiftJis?: { line: number; bad: number };
  /**
   * With `mixed`: the file reads whole as Shift_JIS, with half-width katakana (ﾔﾏﾓﾄ), and no run
   * of Japanese that would prove it (ShiftJisCensus): not detected — those bytes are Windows-1252's
   * capitals À–ß too — but named as a choice, with the line of the first byte that is not UTF-8 as
   * Shift_JIS reads it, for the user to judge. A trial's file of katakana names was refused naming
   * only utf-8 and windows-1252, both of which garble it.
   */
  kana?: { line: number; text: string };
  /**
   * With `notCp1252`: the file reads whole as Shift_JIS, with Japanese outside Latin words but no
   * proof (ShiftJisCensus): named as a choice, with line `line` as Shift_JIS reads it, for the user
   * to judge (Mac Roman's letters read as kanji too, but inside Latin words). A trial's file of
   * one-kanji surnames was refused naming only "CSV UTF-8".
   */
  asShiftJis?: { line: number; text: string };
  /**
   * The file reads whole as Windows-1252 and as Shift_JIS, and its only Japanese is cells of one
   * character whose two bytes are also a Latin word or marks in Windows-1252 or Mac Roman (`ça`, `——`):
   * either reading is plausible, so the first such cell is shown both ways. Set instead of deciding.
   */
  eitherWay?: { line: number; cp1252: string; shiftJis: string };
}

/** Where a file mixes UTF-8 with bytes that are not. */
export interface MixedEncoding {
  /** 1-based line of the first byte that is not UTF-8, and that byte. */
  badLine: number;
  badByte: number;
  /** Bytes that are not UTF-8, in all. */
  bad: number;
  /** 1-based line of the first character written in UTF-8 beyond ASCII. */
  goodLine: number;
  /** Such characters, in all. */
  good: number;
}

/** `--encoding` values. */
export const ENCODING_NAMES: Readonly<Record<string, InputEncoding>> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  'utf-16le': 'utf-16le',
  'utf-16be': 'utf-16be',
  // Node's Shift_JIS is the WHATWG one, which is Windows' CP932 (NEC and IBM extensions included).
  shift_jis: 'shift_jis',
  'shift-jis': 'shift_jis',
  sjis: 'shift_jis',
  cp932: 'shift_jis',
  'windows-31j': 'shift_jis',
  ms932: 'shift_jis',
};

const CHUNK = 64 * 1024;

/** The encoding named by a byte order mark at the start of `head`, if any. */
export function encodingByBom(head: Uint8Array): InputEncoding | undefined {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** Bytes looked at for UTF-16 without a byte order mark. */
const SAMPLE = 4096;

/**
 * UTF-16 written without a byte order mark (some exports and scripts do), told by its zero bytes:
 * text in Latin script has a zero high byte in most characters — at odd offsets in LE, even in BE —
 * while UTF-8 and Windows-1252 text has no zero bytes at all. Asks for most of one side and next to
 * none of the other, so that a stray NUL in an 8-bit file does not count.
 */
function utf16ByZeroBytes(sample: Uint8Array): InputEncoding | undefined {
  const pairs = Math.floor(sample.length / 2);
  if (pairs < 2) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < pairs * 2; i += 2) {
    if (sample[i] === 0) evenZeros++;
    if (sample[i + 1] === 0) oddZeros++;
  }
  if (oddZeros >= pairs * 0.3 && evenZeros <= pairs * 0.02) return 'utf-16le';
  if (evenZeros >= pairs * 0.3 && oddZeros <= pairs * 0.02) return 'utf-16be';
  return undefined;
}

/**
 * Counts, in one streaming pass, the byte sequences of a file that are valid UTF-8 beyond ASCII
 * and those that are not, with the line of the first of each. Sequences split between chunks
 * are followed across them.
 */
class Utf8Census {
  good = 0;
  bad = 0;
  goodLine = 0;
  badLine = 0;
  badByte = 0;
  /** The first byte that Windows-1252 leaves undefined, and its line (0: none). */
  undefinedLine = 0;
  undefinedByte = 0;
  private line = 1;
  private afterCr = false;
  /** Continuation bytes still expected, and the bounds of the next one (for overlongs and surrogates). */
  private need = 0;
  private lo = 0x80;
  private hi = 0xbf;
  private seqLine = 1;

  push(buf: Uint8Array): void {
    for (let i = 0; i < buf.length; i++) {
      const b = buf[i]!;
      if (this.need > 0) {
        if (b >= this.lo && b <= this.hi) {
          this.lo = 0x80;
          this.hi = 0xbf;
          if (--this.need === 0) this.goodSeq();
          continue;
        }
        // A sequence cut short: its lead byte is the bad one; this byte starts afresh.
        this.need = 0;
        this.badSeq(this.seqLine, this.pendingLead);
      }
      if (b < 0x80) {
        // Lines end in LF, CRLF or (Excel for Mac) CR alone.
        if (b === 0x0d || (b === 0x0a && !this.afterCr)) this.line++;
        this.afterCr = b === 0x0d;
        continue;
      }
      this.afterCr = false;
      if (this.undefinedLine === 0 && (b === 0x81 || b === 0x8d || b === 0x8f || b === 0x90 || b === 0x9d)) {
        this.undefinedLine = this.line;
        this.undefinedByte = b;
      }
      this.seqLine = this.line;
      this.pendingLead = b;
      this.lo = 0x80;
      this.hi = 0xbf;
      if (b >= 0xc2 && b <= 0xdf) this.need = 1;
      else if (b >= 0xe0 && b <= 0xef) {
        this.need = 2;
        if (b === 0xe0) this.lo = 0xa0;
        if (b === 0xed) this.hi = 0x9f;
      } else if (b >= 0xf0 && b <= 0xf4) {
        this.need = 3;
        if (b === 0xf0) this.lo = 0x90;
        if (b === 0xf4) this.hi = 0x8f;
      } else this.badSeq(this.line, b);
    }
  }

  end(): void {
    if (this.need > 0) this.badSeq(this.seqLine, this.pendingLead);
    this.need = 0;
  }

  private pendingLead = 0;

  private goodSeq(): void {
    if (this.good++ === 0) this.goodLine = this.seqLine;
  }

  private badSeq(line: number, byte: number): void {
    if (this.bad++ === 0) {
      this.badLine = line;
      this.badByte = byte;
    }
  }
}

/**
 * Reads a file as Shift_JIS, counting what it cannot read and the runs of Japanese it holds, with
 * the line of the first sequence it cannot read. Non-fatal decoding counts each such sequence as
 * its U+FFFD: no Shift_JIS character maps to U+FFFD, so a file without one decodes whole (as the
 * fatal decoder would take it).
 *
 * Windows-1252 and Mac Roman text often reads as valid Shift_JIS too, so a valid reading alone
 * proves nothing: in Windows-1252 a small accented letter before a letter (`ça`, `él`) is a lead
 * and trail byte, read as a kanji; a curly quote, dash or `Š` before a letter likewise; a capital
 * accent (`Å`, `É`) or `°` is a half-width katakana; `ö` `ò` `ø` are user-defined characters. In Mac
 * Roman `É` before a letter is a katakana and `Å` a CJK bracket. Those come one at a time inside a
 * Latin word (François, Hélène as H + two kanji + e, Ångström), while Japanese names come as runs:
 * 山田, 太郎, カタカナ, 山田　太郎 with its full-width space. So the proof asked for is a run of two or
 * more Japanese characters (CJK punctuation, kana, ideographs, full-width forms; not half-width
 * katakana, which Windows-1252's À–ß and ¡–¿ make) with no Latin letter on either side, or a
 * whole cell of one such character (林, 健: one-kanji surnames and given names, OneCharCells).
 */
class ShiftJisCensus {
  /** Sequences Shift_JIS cannot read, and the 1-based line of the first (0: none). */
  errors = 0;
  errorLine = 0;
  /** Runs of Japanese as above. */
  runs = 0;
  /** Runs of any length with no Latin letter on either side: Japanese, not proven. */
  loose = 0;
  /** Whole cells of one Japanese character. */
  readonly cells = new OneCharCells();
  /** Half-width katakana (U+FF61–U+FF9F): no proof alone, a choice to name. */
  kana = 0;
  /** The text of line `sampleLine` (its first {@link SAMPLE_CHARS} characters). */
  sample = '';
  private decoder = new TextDecoder('shift_jis');
  private run = 0;
  /** The character before the current run (or the last one read) is a Latin letter. */
  private letterBefore = false;
  private line = 1;
  private afterCr = false;

  /** `sampleLine`: the line whose text to keep (0: none). */
  constructor(private readonly sampleLine = 0) {}

  push(buf: Uint8Array): void {
    this.cells.push(buf);
    this.scan(this.decoder.decode(buf, { stream: true }));
  }

  end(): void {
    this.cells.end();
    this.scan(this.decoder.decode());
    this.closeRun(false);
  }

  /** Proof of Shift_JIS: runs, and cells of one character that are no Latin word (OneCharCells). */
  get proof(): number {
    return this.runs + this.cells.japanese;
  }

  private scan(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.line === this.sampleLine && c !== 0x0a && c !== 0x0d && this.sample.length < SAMPLE_CHARS) this.sample += text[i];
      if (c >= 0xff61 && c <= 0xff9f) this.kana++;
      if (isJapanese(c)) {
        this.run++;
        continue;
      }
      const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
      if (this.run > 0) this.closeRun(letter);
      this.letterBefore = letter;
      if (c === 0xfffd && this.errors++ === 0) this.errorLine = this.line;
      if (c === 0x0d || (c === 0x0a && !this.afterCr)) this.line++;
      this.afterCr = c === 0x0d;
    }
  }

  private closeRun(letterAfter: boolean): void {
    if (this.run > 0 && !this.letterBefore && !letterAfter) {
      if (this.run >= 2) this.runs++;
      this.loose++;
    }
    this.run = 0;
  }
}

/**
 * Cells of one double-byte Japanese character, told on the bytes: two bytes between field
 * boundaries (start of file, `,` `;` tab `"`, line ends: all below 0x40, so never the second byte
 * of a Shift_JIS character) that Shift_JIS reads as one Japanese character. A one-kanji surname or
 * given name (林 97 D1, 健 8C 92) is no run of two, and was read as Windows-1252 (`—Ñ`, `Œ’`).
 * Windows-1252 writes such a pair as a Latin word or mark only for a small accented or a
 * Š Œ Ž Ÿ before a small letter (`ça`, `él`, `Ža`) or two quotes or dashes (`——`, `“”`); Mac
 * Roman, whose 0x81–0x9F are accented letters, for many more (`ça` is 8D 61, `ñé` 96 8E, and
 * 健 8C 92 reads `åí`). Those cells are counted apart, as both readings are plausible.
 */
class OneCharCells {
  /** Cells that neither Windows-1252 nor Mac Roman reads as a word: proof of Shift_JIS. */
  japanese = 0;
  /** Cells that read as a word or marks in Windows-1252 or Mac Roman too, and the first's line and bytes. */
  latin = 0;
  latinLine = 0;
  latinBytes: [number, number] = [0, 0];
  private readonly decoder = new TextDecoder('shift_jis');
  /** Bytes of the current cell (counted up to 3), the first two, and its line. */
  private len = 0;
  private b1 = 0;
  private b2 = 0;
  private line = 1;
  private afterCr = false;

  push(buf: Uint8Array): void {
    for (let i = 0; i < buf.length; i++) {
      const b = buf[i]!;
      if (b === 0x2c || b === 0x3b || b === 0x09 || b === 0x22 || b === 0x0a || b === 0x0d) {
        this.closeCell();
        if (b === 0x0d || (b === 0x0a && !this.afterCr)) this.line++;
        this.afterCr = b === 0x0d;
        continue;
      }
      this.afterCr = false;
      if (this.len === 0) this.b1 = b;
      else if (this.len === 1) this.b2 = b;
      if (this.len < 3) this.len++;
    }
  }

  end(): void {
    this.closeCell();
  }

  private closeCell(): void {
    const two = this.len === 2 && this.b1 >= 0x81;
    this.len = 0;
    if (!two) return;
    const text = this.decoder.decode(Uint8Array.of(this.b1, this.b2));
    if (text.length !== 1 || !isJapanese(text.charCodeAt(0))) return;
    if (!latinPair(this.b1, this.b2)) this.japanese++;
    else if (this.latin++ === 0) {
      this.latinLine = this.line;
      this.latinBytes = [this.b1, this.b2];
    }
  }
}

/**
 * Two bytes that Windows-1252 writes as a Latin word (`ça`, `Ša`) or two quotes or dashes (`——`),
 * or Mac Roman as a Latin word (`ça`, `Éa`, `ñé`).
 */
function latinPair(b1: number, b2: number): boolean {
  return (small1252(b2) && (small1252(b1) || capital1252(b1))) || (mark1252(b1) && mark1252(b2)) || (smallMac(b2) && letterMac(b1));
}

/** Mac Roman's small letters: a–z, á–ü's smalls (0x87–0x9F), ß æ ø œ ÿ ı. */
function smallMac(b: number): boolean {
  return (
    (b >= 0x61 && b <= 0x7a) || (b >= 0x87 && b <= 0x9f) || b === 0xa7 || b === 0xbe || b === 0xbf || b === 0xcf || b === 0xd8 || b === 0xf5
  );
}

/** Mac Roman's letters among the first bytes of Shift_JIS pairs: 0x81–0x9F, Â Ê Á Ë È Í Î Ï Ì Ó Ô Ò Ú Û Ù. */
function letterMac(b: number): boolean {
  return (b >= 0x81 && b <= 0x9f) || (b >= 0xe5 && b <= 0xef) || (b >= 0xf1 && b <= 0xf4);
}

function small1252(b: number): boolean {
  return (b >= 0x61 && b <= 0x7a) || b === 0x9a || b === 0x9c || b === 0x9e || (b >= 0xdf && b !== 0xf7);
}

function capital1252(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || b === 0x8a || b === 0x8c || b === 0x8e || b === 0x9f || (b >= 0xc0 && b <= 0xde && b !== 0xd7);
}

/** ‚ „ … ‹ › ‘ ’ “ ” • – —. */
function mark1252(b: number): boolean {
  return b === 0x82 || b === 0x84 || b === 0x85 || b === 0x8b || b === 0x9b || (b >= 0x91 && b <= 0x97);
}

/** Characters of a line kept to show it (ShiftJisCensus.sample). */
const SAMPLE_CHARS = 60;

/** CJK punctuation (the full-width space, 、。「」), kana, CJK ideographs, full-width forms. */
function isJapanese(c: number): boolean {
  return (c >= 0x3000 && c <= 0x30ff) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff01 && c <= 0xff60);
}

/** Feeds the file from `pos` to its end, a chunk at a time, to `push`. */
async function eachChunk(fh: fs.promises.FileHandle, pos: number, push: (chunk: Uint8Array) => void): Promise<void> {
  const buf = Buffer.alloc(CHUNK);
  for (;;) {
    const { bytesRead: n } = await fh.read(buf, 0, CHUNK, pos);
    if (n === 0) return;
    push(buf.subarray(0, n));
    pos += n;
  }
}

/**
 * Invalid sequences beyond this many per valid UTF-8 character make a file Windows-1252 whose
 * text happens to hold byte pairs that read as UTF-8 (`Ã©`), not UTF-8 with stray bytes.
 */
const STRAY_RATIO = 20;

/**
 * The encoding of a file: by its byte order mark, else UTF-16 by its zero bytes, else UTF-8 when
 * every byte sequence is valid UTF-8, else Shift_JIS when the file reads whole as Shift_JIS with
 * Japanese in it (see {@link ShiftJisCensus}), else Windows-1252 when nothing in it is UTF-8
 * beyond ASCII. Without a mark the whole file is checked in one streaming pass: a stray `ë` on
 * row 90,000 must not turn into `Ã«` after 89,999 rows were sent as UTF-8; a file that is not
 * UTF-8 is read a second time, as Shift_JIS. A file that holds both — UTF-8 text and a few bytes
 * that are not — is reported `mixed`: reading it either way garbles one side (one Windows-1252
 * byte would turn every `Zoë` of the file into `ZoÃ«`).
 */
export async function detectEncoding(file: string): Promise<DetectedEncoding> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await fh.read(head, 0, 4, 0);
    const byBom = encodingByBom(head.subarray(0, bytesRead));
    if (byBom && byBom !== 'utf-8') return { encoding: byBom, bom: true };
    // A UTF-8 mark is checked as the rest is: rows of an old Windows-1252 export pasted into a
    // file saved as "CSV UTF-8" (or two files joined with cat) wrote `Zo�`, exit 0 (a trial).
    const bom = byBom === 'utf-8';
    if (!bom) {
      const sample = Buffer.alloc(SAMPLE);
      const { bytesRead: sampled } = await fh.read(sample, 0, SAMPLE, 0);
      const byNuls = utf16ByZeroBytes(sample.subarray(0, sampled));
      if (byNuls) return { encoding: byNuls, bom: false };
    }
    const census = new Utf8Census();
    await eachChunk(fh, bom ? 3 : 0, (chunk) => census.push(chunk));
    census.end();
    if (census.bad === 0) return { encoding: 'utf-8', bom };
    const { badLine, badByte, bad, goodLine, good } = census;
    if (bom) return { encoding: 'utf-8', bom, mixed: { badLine, badByte, bad, goodLine: goodLine || 1, good } };
    // Nothing in it is UTF-8 beyond ASCII (or next to nothing): Windows-1252 unless proven Shift_JIS.
    const cp1252Side = census.good === 0 || census.bad > census.good * STRAY_RATIO;
    // Japanese Excel's "CSV" is Shift_JIS: read as Windows-1252 its names were mojibake (a trial).
    const sjis = new ShiftJisCensus(cp1252Side && census.undefinedLine ? census.undefinedLine : badLine);
    await eachChunk(fh, 0, (chunk) => sjis.push(chunk));
    sjis.end();
    // Some byte pairs of Shift_JIS text are valid UTF-8 by chance (花子's D4 8E): one for every 4
    // to 16 that are not, so a file of Shift_JIS has more bytes that are not UTF-8 than characters
    // that are; a UTF-8 file with a few Shift_JIS rows pasted in has fewer, and stops as `mixed`.
    if (sjis.proof > sjis.errors && census.bad > census.good) {
      if (sjis.errors === 0) return { encoding: 'shift_jis', bom: false };
      return { encoding: 'shift_jis', bom: false, shiftJis: { line: sjis.errorLine, bad: sjis.errors } };
    }
    if (cp1252Side) return windows1252(census, sjis);
    const japanese =
      sjis.proof > sjis.errors
        ? { shiftJis: { line: sjis.errorLine, bad: sjis.errors } }
        : sjis.errors === 0 && sjis.kana > 0
          ? { kana: { line: badLine, text: sjis.sample } }
          : {};
    return { encoding: 'utf-8', bom: false, mixed: { badLine, badByte, bad, goodLine, good }, ...japanese };
  } finally {
    await fh.close();
  }
}

/**
 * A file that is not UTF-8 and not proven Shift_JIS: Windows-1252, unless a byte of it is not
 * Windows-1252 either, or it reads whole as Shift_JIS with cells of one character that are words
 * in both. Either way the choice of Shift_JIS is named when the file reads whole as Shift_JIS with
 * Japanese outside Latin words.
 */
function windows1252(census: Utf8Census, sjis: ShiftJisCensus): DetectedEncoding {
  const cp1252 = { encoding: 'windows-1252' as const, bom: false };
  const whole = sjis.errors === 0;
  if (census.undefinedLine) {
    const found = { ...cp1252, notCp1252: { line: census.undefinedLine, byte: census.undefinedByte } };
    return whole && sjis.loose > sjis.cells.latin ? { ...found, asShiftJis: { line: census.undefinedLine, text: sjis.sample } } : found;
  }
  if (!whole || sjis.cells.latin === 0) return cp1252;
  const bytes = Uint8Array.from(sjis.cells.latinBytes);
  // Streamed: Node 20's one-shot decode of windows-1252 is Latin-1's (0x97 as U+0097, not —).
  const text = (e: string) => {
    const d = new TextDecoder(e);
    return d.decode(bytes, { stream: true }) + d.decode();
  };
  return { ...cp1252, eitherWay: { line: sjis.cells.latinLine, cp1252: text('windows-1252'), shiftJis: text('shift_jis') } };
}

/** The file's text, chunk by chunk, without its byte order mark. */
export async function* decodedChunks(file: string, encoding: InputEncoding): AsyncGenerator<string> {
  // The decoder drops a byte order mark of its own encoding and joins characters split between chunks.
  const decoder = new TextDecoder(encoding);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: CHUNK })) {
    const text = decoder.decode(chunk as Buffer, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** `UTF-16 LE`, `Windows-1252`: for messages. */
export function encodingName(e: InputEncoding): string {
  return DISPLAY_NAMES[e];
}

const DISPLAY_NAMES: Readonly<Record<InputEncoding, string>> = {
  'utf-8': 'UTF-8',
  'utf-16le': 'UTF-16 LE',
  'utf-16be': 'UTF-16 BE',
  'windows-1252': 'Windows-1252',
  shift_jis: 'Shift_JIS',
};
