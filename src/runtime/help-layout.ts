/**
 * Help that fits the terminal: hand-written help text (examples, field lists) wrapped at word
 * boundaries to the width commander uses for its own columns, so that no line is wider than the
 * terminal (80 columns when it is unknown). Notes are written in the source as paragraphs broken
 * anywhere: their lines are joined and filled again to the width (wrapping each source line on
 * its own left a word or two dangling on every other line). Example command lines that must
 * wrap break between shell words with a trailing ` \`, so that they still paste and run.
 */

/** Help group of the built-in commands (resource commands have theirs, by area). */
export const COMMAND_GROUP = 'Commands:';
/** Help group of login, profiles and settings commands. */
export const SETTINGS_GROUP = 'Login and settings:';

/** The width help is laid out for: the terminal's, or 80 when unknown or absurdly narrow. */
export function helpWidth(columns: number | undefined): number {
  return columns && columns >= 40 ? columns : 80;
}

/**
 * Wraps one line at spaces to `width`; continuation lines are indented by `hang` spaces (or, when
 * not given, by the line's own indent). A word longer than the room left is cut, so that the
 * promise "no line wider than the width" holds for any input.
 */
export function wrapLine(line: string, width: number, hang?: number): string[] {
  if (line.length <= width) return [line];
  const indent = line.length - line.trimStart().length;
  const pad = ' '.repeat(hang ?? indent);
  const out: string[] = [];
  let current = line.slice(0, indent);
  let empty = true;
  for (const word of line.trimStart().split(/ +/)) {
    const room = width - current.length - (empty ? 0 : 1);
    if (word.length <= room) {
      current += (empty ? '' : ' ') + word;
      empty = false;
      continue;
    }
    if (!empty) out.push(current);
    let rest = word;
    while (pad.length + rest.length > width) {
      out.push(pad + rest.slice(0, width - pad.length));
      rest = rest.slice(width - pad.length);
    }
    current = pad + rest;
    empty = rest === '';
  }
  if (current.trim()) out.push(current);
  return out;
}

/** An example command line: `  $ svc …`. */
const EXAMPLE = /^ *\$ /;
/** A line that starts something of its own: a label (`Exit codes: …`, `Requests: …`), a list item, the usage line. */
const STARTS_ITS_OWN = /^(?:[A-Z][A-Za-z -]{0,24}: |[-*•] |\d+[.)] |Usage:)/;

/**
 * A heading (`Examples:`, `Exit codes:`): ends with `:` and starts with a capital, as a new
 * sentence does. The last line of a sentence that introduces an example ends with `:` too but
 * belongs to its paragraph: kept apart, it left a line of two words above it (`schema --help`).
 */
const HEADING = /^[A-Z].*:\s*$/;

/**
 * The lines of `text` with each paragraph of notes joined into one line: consecutive lines at
 * indent 0 (not examples, not blank) are one paragraph, unless the earlier line ends with `:`
 * (it introduces what follows), the later one is a {@link HEADING} or starts its own item (see
 * {@link STARTS_ITS_OWN}). Indented lines (commander's columns, tables, examples) stay as they are.
 */
function paragraphs(text: string): string[] {
  const out: string[] = [];
  let joinable = false;
  for (const line of text.split('\n')) {
    const prose = line !== '' && !/^\s/.test(line) && !EXAMPLE.test(line);
    if (prose && joinable && !STARTS_ITS_OWN.test(line) && !HEADING.test(line)) out[out.length - 1] += ` ${line.trim()}`;
    else out.push(line);
    joinable = prose && !line.trimEnd().endsWith(':');
  }
  return out;
}

/** Shell words of a command line, quotes kept with their word (`--sequence "Outbound Enterprise"` is two). */
function shellWords(command: string): string[] {
  // A `#` that starts a word starts a comment, which runs to the end of the line.
  return command.match(/#.*$|(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g) ?? [];
}

/**
 * An example command line fitted to `width`: broken between shell words (never inside quotes;
 * an option and its value together),
 * each line but the last ending in ` \`, continuations under the command's first word. A trailing
 * `# comment` (or a note after a gap of spaces, made one) goes on the last line when it fits, else on lines
 * of its own after the command (a comment cannot be continued with `\`). A single word wider than
 * the room stays whole.
 */
export function wrapExample(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const dollar = line.indexOf('$');
  const head = line.slice(0, dollar + 2);
  const pad = ' '.repeat(dollar + 4);
  let body = line.slice(dollar + 2);
  // A note after a gap of spaces (`$ svc login --no-browser    print the URL…`) is the example's
  // explanation, not words of the command: it is placed as a comment is.
  const gap = body.search(/ {2,}\S/);
  // Written as a comment: words after the command would be typed as arguments, and `;` starts another.
  const noted = gap > 0 ? body.slice(gap).trim() : undefined;
  let note = noted === undefined || noted.startsWith('#') ? noted : `# ${noted}`;
  if (note !== undefined) body = body.slice(0, gap);
  const split = shellWords(body);
  if (note === undefined && split.length && split[split.length - 1]!.startsWith('#')) note = split.pop()!;
  const comment = note;
  // An option stays with its value (`--mailbox ada@example.com`): they break as one.
  const words: string[] = [];
  for (const w of split) {
    const prev = words[words.length - 1];
    if (prev !== undefined && /^-[^\s]*$/.test(prev) && !w.startsWith('-')) words[words.length - 1] = `${prev} ${w}`;
    else words.push(w);
  }
  const out: string[] = [];
  let current = head + (words.shift() ?? '');
  words.forEach((word, i) => {
    const last = i === words.length - 1;
    // Room for the ` \` that a line followed by another needs.
    if (current.length + 1 + word.length + (last ? 0 : 2) <= width) current += ` ${word}`;
    else {
      out.push(`${current} \\`);
      current = pad + word;
    }
  });
  if (comment && current.length + 1 + comment.length <= width) current += ` ${comment}`;
  out.push(current);
  if (comment && !out[out.length - 1]!.endsWith(comment)) out.push(...wrapLine(pad + comment, width, pad.length + 2));
  return out;
}

/** Lays out a block of help text: notes filled to the width, examples and other lines wrapped. */
export function wrapBlock(text: string, width: number): string {
  return paragraphs(text)
    .flatMap((l) => (EXAMPLE.test(l) ? wrapExample(l, width) : wrapLine(l, width)))
    .join('\n');
}
