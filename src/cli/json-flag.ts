/**
 * `--json` is both gh's `--json a,b,c` (fields) and svc's older bare `--json` (same as
 * `-o json`). Commander gives an option with an optional value the next word whatever it is, so
 * `svc --json prospects list` or `svc prospects get --json 12` would lose their command or id.
 * The rule: the word after `--json` is its field list when it is written as field names
 * (`a,b.c`, `id,Lead Score`) and is not a command word (a command or subcommand name, or an HTTP method of
 * `svc api`); otherwise `--json` stands alone. `--json=a,b` always gives fields.
 */
import type { Command } from 'commander';

// A name may hold spaces: a custom-field label (`--json "id,Lead Score"`).
const FIELD_LIST = /^[A-Za-z_][\w -]*(\.[A-Za-z_][\w -]*)*(,\s*[A-Za-z_][\w -]*(\.[A-Za-z_][\w -]*)*)*$/;
const METHODS = ['get', 'post', 'patch', 'put', 'delete', 'head'];

/** Every command and alias name at any depth, lower-case. */
function commandWords(program: Command): Set<string> {
  const words = new Set(METHODS);
  const walk = (c: Command) => {
    for (const sub of c.commands) {
      for (const n of [sub.name(), ...sub.aliases()]) words.add(n.toLowerCase());
      walk(sub);
    }
  };
  walk(program);
  return words;
}

/**
 * The command line with each `--json` that must stand alone written as `--json=` (no fields), so
 * that commander leaves the next word to the command.
 */
export function separateJsonFlag(argv: readonly string[], program: Command): string[] {
  let words: Set<string> | undefined;
  const out = [...argv];
  for (let i = 0; i < out.length; i++) {
    if (out[i] === '--') break;
    if (out[i] !== '--json') continue;
    const next = out[i + 1];
    if (next === undefined || next.startsWith('-')) continue;
    words ??= commandWords(program);
    if (!FIELD_LIST.test(next) || (!next.includes(',') && words.has(next.toLowerCase()))) out[i] = '--json=';
  }
  return out;
}

/**
 * The command line asks for JSON output: `--json` (with or without fields), or `-o json` as the
 * last `-o` (`--output json`, `--output=json`, `-ojson`), before any `--`. For the errors commander
 * finds before a command runs (an unknown option or command, a missing argument), which get the
 * `{"errors":[...]}` line as a command's errors do from its parsed flags (runtime/app.ts): the
 * words are read whole, so a flag after the point of the error counts too.
 */
export function asksForJson(argv: readonly string[]): boolean {
  let output: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (word === '--json' || word.startsWith('--json=')) return true;
    if (word === '-o' || word === '--output') output = argv[++i];
    else if (word.startsWith('--output=')) output = word.slice('--output='.length);
    else if (/^-o./.test(word)) output = word.slice(2);
  }
  return output === 'json';
}
