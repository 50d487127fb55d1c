/**
 * Text from records, servers and files, made safe for a terminal. Whatever a human-facing view
 * prints (the table, `get`, messages on stderr, `auth status`, bulk failure lines, `webhooks
 * listen`) goes through here, so that a value cannot drive the terminal: no escape sequences
 * (OSC 52 writes the clipboard, others clear the screen or fake links), no carriage returns that
 * overwrite a line, no bidi overrides that reorder it. Such characters are shown escaped
 * instead: `\e`, `\r`, `\x07`, `\u202e`. Backslashes are left as they are (paths stay readable),
 * so `\e` on screen may also be a backslash and an `e`: the machine formats (`json`, `ndjson`,
 * `csv`, `raw`) are the exact ones, and none of this applies to them.
 *
 * Truncation (`fitText`) counts terminal columns (wide characters take two) and never cuts
 * inside an escape or a grapheme (an emoji with its modifiers, a letter with its accents).
 * Wrapping (`fitLines`, every message and plan on a terminal) counts them alike and breaks
 * between words, never inside one.
 */

/** C0 controls, DEL, C1 controls, bidi embeddings/overrides/isolates and marks, line and paragraph separators. */
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
/** The same, but newline and tab pass: for multi-line messages. */
const UNSAFE_IN_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_IN_LINES_ALL = new RegExp(UNSAFE_IN_LINES.source, 'g');
/** Printable ASCII only: one column per character, nothing to escape (the common case, checked first). */
const PLAIN = /^[\x20-\x7e]*$/;

const NAMED: Record<string, string> = {
  '\x1b': '\\e',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\v': '\\v',
  '\0': '\\0',
};

/** The visible escape of one unsafe character. */
function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `s` with every control, bidi and separator character escaped visibly; one line for one line. */
export function terminalSafe(s: string): string {
  return UNSAFE.test(s) ? s.replace(UNSAFE_ALL, escapeChar) : s;
}

/** Like {@link terminalSafe}, but newlines and tabs stay: for messages of several lines. */
export function terminalSafeLines(s: string): string {
  return UNSAFE_IN_LINES.test(s) ? s.replace(UNSAFE_IN_LINES_ALL, escapeChar) : s;
}

/** What JSON.stringify leaves raw (it escapes C0 only) that a terminal still acts on. */
const UNSAFE_IN_JSON_ALL = /[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JSON text with those characters written as `\uXXXX`: the same JSON value, safe to print. */
export function terminalSafeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

let segmenter: Intl.Segmenter | undefined;
function graphemes(s: string): Iterable<{ segment: string }> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(s);
}

/**
 * Characters that join their neighbours into one grapheme: marks, joiners, variation selectors,
 * Hangul jamo, prepend and spacing marks, CR (of CR LF); surrogates (emoji, astral characters) apart.
 * Text without them is one grapheme per UTF-16 unit, cut without Intl.Segmenter (~50× quicker:
 * a table of 100,000 accented names is laid out in milliseconds, not seconds).
 */
const CLUSTERING =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each character is tested on its own (a joiner alone marks text as needing the segmenter), not as a joined sequence
  /[\p{M}\u200c\u200d\ufe00-\ufe0f\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\u0e33\u0eb3\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\r]/u;
const SURROGATE = /[\ud800-\udfff]/;
const simple = (s: string) => !SURROGATE.test(s) && !CLUSTERING.test(s);

/**
 * Two columns: East Asian wide and fullwidth characters, and anything that may be drawn as an
 * emoji (pictographs, emoji-presentation characters, regional indicators).
 */
const TWO =
  /[\u1100-\u115f\u2329\u232a\u2e80-\u303e\u3040-\u3247\u3250-\u4dbf\u4e00-\ua4c6\ua960-\ua97c\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6b\uff01-\uff60\uffe0-\uffe6\u{1b000}-\u{1b001}\u{1f200}-\u{1f251}\u{20000}-\u{3fffd}]|\p{Extended_Pictographic}|\p{Emoji_Presentation}|\p{Regional_Indicator}/u;
/** Combining diacritical marks: no column of their own. */
const COMBINING = /[\u0300-\u036f]/;

/**
 * Terminal columns of text already made safe (see {@link terminalSafe}): its display width, as
 * string-width counts it, grapheme by grapheme. A grapheme takes the columns of its widest code
 * point: an emoji with a skin tone or a family joined by ZWJs is two columns, a letter with its
 * accents one, so "営業部長 🚀" takes 11 and is not cut while there is room.
 */
export function textWidth(s: string): number {
  if (PLAIN.test(s)) return s.length;
  let w = 0;
  if (simple(s)) {
    for (const c of s) w += codeWidth(c);
    return w;
  }
  for (const { segment } of graphemes(s)) w += graphemeWidth(segment);
  return w;
}

/** Columns of one code point: below © (the first pictograph) always one. */
function codeWidth(c: string): number {
  if (c.charCodeAt(0) < 0xa9) return 1;
  return COMBINING.test(c) ? 0 : TWO.test(c) ? 2 : 1;
}

/** Columns of one grapheme: those of its widest code point (joiners and modifiers add none). */
function graphemeWidth(g: string): number {
  if (g.length === 1) return codeWidth(g);
  let w = 0;
  for (const c of g) w = Math.max(w, codeWidth(c));
  return w;
}

/** The graphemes of `s`: its UTF-16 units when none joins another (see {@link simple}). */
function pieces(s: string): Iterable<string> {
  return simple(s)
    ? s
    : (function* () {
        for (const { segment } of graphemes(s)) yield segment;
      })();
}

/**
 * `s` made terminal-safe and cut to at most `width` columns, ending in `…` when cut. Escapes
 * and graphemes are kept whole: a cut falls before them, never inside.
 */
export function fitText(s: string, width: number): string {
  // A cut ends on a character, not on a space before the `…` (`株式会社テスト　…`, a trial).
  if (PLAIN.test(s)) return s.length <= width ? s : width <= 0 ? '' : `${s.slice(0, width - 1).trimEnd()}…`;
  const safe = terminalSafe(s);
  if (textWidth(safe) <= width) return safe;
  if (width <= 0) return '';
  const room = width - 1;
  let out = '';
  let used = 0;
  for (const piece of pieces(s)) {
    const shown = terminalSafe(piece);
    // An escaped control is several columns of plain text; anything else is one grapheme.
    const w = shown === piece ? graphemeWidth(piece) : textWidth(shown);
    if (used + w > room) break;
    out += shown;
    used += w;
  }
  return `${out.trimEnd()}…`;
}

/** Where a line prefers to break: after one of its parts (`…: `, `…; `, ` · `), svc's separators. */
const PART_END = /(?:[:;]| ·)$/;
/** A count (`3`, `9,998`, `(3`): kept on one line with the word after it (`3 created`). */
const COUNT = /^\(?[-+]?\d[\d,.]*%?$/;
/** A mark standing alone (`·`, `→`, `+`): kept at the end of the line with the word before it. */
const LONE_MARK = /^[^\p{L}\p{N}]$/u;

/**
 * Text for people fitted to a terminal `width` columns wide (wide characters take two): each of
 * its lines that is wider is broken between words, its continuation lines indented two more
 * spaces than it. A break falls after one of the line's parts (`: `, `; `, ` · `) when the next
 * part fits on a line of its own, else between words; a count stays with its word. Never inside a
 * word: a path, an id or a URL wider than the terminal stays whole on a line of its own, to be
 * copied as it is. `width` undefined (no terminal: logs, pipes, scripts) leaves the text as it is.
 */
export function fitLines(text: string, width: number | undefined): string {
  if (width === undefined || fitsAsIs(text, width)) return text;
  return text
    .split('\n')
    .flatMap((l) => fitLine(l, width))
    .join('\n');
}

/** Whether `text` is plain ASCII no wider than `width` in all: the common case, checked cheaply. */
function fitsAsIs(text: string, width: number): boolean {
  return text.length <= width && PLAIN.test(text.replace(/\n/g, ' '));
}

/**
 * The words with each shell-quoted one made whole again (`'/tmp/my files/a.csv'` of a command
 * line svc shows, as quoteWord writes it): one unit, so that it is copied as it is.
 */
function shellQuoted(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const close = /^(?:[\w.-]+=)?'[^']*$/.test(w) ? words.findIndex((x, k) => k > i && /^[^']*'[)\],;:.]*$/.test(x)) : -1;
    if (close < 0) out.push(w);
    else {
      out.push(words.slice(i, close + 1).join(' '));
      i = close;
    }
  }
  return out;
}

/** A word that starts a file path: `/tmp/…`, `~/…`, `./…`, `../…`, `C:\\…`. */
const PATH_START = /^(?:~?\/|\.\.?\/|[A-Za-z]:\\)/;
/** A word that may end a path: it holds a `/`, `\\` or a `.` (`2026.csv`, `my dir/x.ndjson:`). */
const PATH_END = /[./\\]/;

/**
 * The words with each file path made whole again, spaces and all, as svc's messages show paths
 * unquoted (`journal /tmp/temp 一時/leads 2026.csv.journal.ndjson`): broken at one of its spaces,
 * a copied path names another file. A path runs from a word that starts one to the last word of
 * its part (up to a `…:`, `…;` or a lone `·`) that holds a `/`, `\\` or `.`; words after it
 * (`wrote /tmp/x.csv with 3 rows`) stay words.
 */
function pathsWhole(words: string[]): string[] {
  const units: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (!PATH_START.test(w) || PART_END.test(w)) {
      units.push(w);
      continue;
    }
    let end = i;
    for (let k = i + 1; k < words.length && words[k] !== '·'; k++) {
      if (PATH_END.test(words[k]!)) end = k;
      if (PART_END.test(words[k]!)) break;
    }
    units.push(words.slice(i, end + 1).join(' '));
    i = end;
  }
  return units;
}

/**
 * The words with a command that ends the line made one unit (`…; continue with: svc events tail
 * --since-cursor c2.…`): from its `svc` to the end, or to a note in brackets after it, if no
 * part ends inside it. A command broken at a space runs without its last words when pasted (a
 * trial: the cursor on a line of its own). Such a unit starts a line of its own, as a part that
 * fits one does, and stays whole even when wider than the terminal. Elsewhere an option keeps a
 * value of one word (`--since 2026-11-30T13:00:00Z`).
 */
function commandsWhole(words: string[]): string[] {
  const endsPart = (w: string) => PART_END.test(w) || w === '·';
  const start = words.findIndex((w, i) => w === 'svc' && !words.slice(i).some(endsPart));
  let units = words;
  if (start >= 0) {
    const note = words.findIndex((w, i) => i > start && w.startsWith('('));
    const end = note < 0 ? words.length : note;
    units = [...words.slice(0, start), words.slice(start, end).join(' '), ...words.slice(end)];
  }
  const out: string[] = [];
  for (const w of units) {
    const prev = out.at(-1);
    if (prev !== undefined && /^--[\w-]+$/.test(prev) && /^[\w][\w:.+-]*$/.test(w)) out[out.length - 1] = `${prev} ${w}`;
    else out.push(w);
  }
  return out;
}

function fitLine(line: string, width: number): string[] {
  if (textWidth(line) <= width) return [line];
  const indent = line.length - line.trimStart().length;
  const pad = ' '.repeat(indent + 2);
  const units: string[] = [];
  let glued = false;
  for (const word of commandsWhole(pathsWhole(shellQuoted(line.trim().split(/ +/))))) {
    if (units.length && (glued || LONE_MARK.test(word))) units[units.length - 1] += ` ${word}`;
    else units.push(word);
    glued = COUNT.test(word);
  }
  const out: string[] = [];
  let current = line.slice(0, indent);
  let used = indent;
  let empty = true;
  const breakLine = () => {
    out.push(current);
    current = pad;
    used = pad.length;
    empty = true;
  };
  const append = (text: string, w: number) => {
    current += (empty ? '' : ' ') + text;
    used += (empty ? 0 : 1) + w;
    empty = false;
  };
  const put = (unit: string, unitWidth: number) => {
    let rest = unit;
    let w = unitWidth;
    for (;;) {
      const room = width - used - (empty ? 0 : 1);
      if (w <= room) {
        append(rest, w);
        return;
      }
      if (!empty && pad.length + w <= width) {
        breakLine();
        continue;
      }
      // Wider than any line: text of wide characters (CJK, written without spaces) breaks between
      // two of them, filling this line first. Any other word stays whole, and a path (`…/一時/…`).
      const cut = PATH_START.test(unit) ? undefined : wideBreak(rest, room);
      if (cut) {
        append(cut, textWidth(cut));
        breakLine();
        rest = rest.slice(cut.length);
        w = textWidth(rest);
      } else if (!empty) breakLine();
      else {
        append(rest, w);
        return;
      }
    }
  };
  let part: string[] = [];
  const endPart = () => {
    const widths = part.map(textWidth);
    const partWidth = widths.reduce((a, b) => a + b, 0) + widths.length - 1;
    // A part that fits on a line of its own starts one, rather than being split across two (a
    // command to copy, a file, a count), unless that leaves a label alone (`error:`, `bill:`).
    if (!empty && used >= width / 3 && used + 1 + partWidth > width && pad.length + partWidth <= width) breakLine();
    for (const [i, u] of part.entries()) put(u, widths[i]!);
    part = [];
  };
  for (const unit of units) {
    part.push(unit);
    if (PART_END.test(unit)) endPart();
  }
  if (part.length) endPart();
  out.push(current);
  return out;
}

/** The longest start of `word` no wider than `room` that ends between two wide characters; undefined when none. */
function wideBreak(word: string, room: number): string | undefined {
  let used = 0;
  let at = 0;
  let end = 0;
  let wideBefore = false;
  for (const g of pieces(word)) {
    const w = graphemeWidth(g);
    // A break may fall here, before `g`: what comes before it fits.
    if (wideBefore && w === 2) end = at;
    if (used + w > room) break;
    used += w;
    at += g.length;
    wideBefore = w === 2;
  }
  return end > 0 ? word.slice(0, end) : undefined;
}
