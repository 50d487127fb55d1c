/**
 * Help that fits the terminal: hand-written help text (examples, field lists) wrapped at word
 * boundaries to the width commander uses for its own columns, so that no line is wider than the
 * terminal (80 columns when it is unknown).
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

/** Wraps every line of a block of help text (see {@link wrapLine}). */
export function wrapBlock(text: string, width: number): string {
  return (
    text
      .split('\n')
      // A command line that must wrap continues under its first word, past the `$ `.
      .flatMap((l) => wrapLine(l, width, /^ *\$ /.test(l) ? l.indexOf('$') + 4 : undefined))
      .join('\n')
  );
}
