/**
 * The help layout at 80 columns (and 60): notes fill the width instead of leaving a word or two on
 * every other line, and example commands that must wrap break between shell words with a
 * trailing ` \`, so that the wrapped text, pasted into bash, gives the same words as the
 * unwrapped one (checked by running both through bash). In-process `--help` of the real program.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { wrapBlock, wrapExample } from '../../../src/runtime/help-layout.js';
import { runInProcess } from '../../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../../helpers/run-svc.js';

const help = async (args: string[], columns: number) => {
  const r = await runInProcess([...args, '--help'], baseEnv({ SVC_CONFIG_DIR: tempDir(), COLUMNS: String(columns) }));
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

const HELPS = [
  ['enroll'],
  ['sandbox'],
  ['prospects', 'upsert'],
  ['login'],
  ['api'],
  ['webhooks', 'listen'],
  ['report', 'sequence'],
  ['report', 'sequences'],
  ['prospects'],
  ['prospects', 'list'],
  ['schema'],
];

/** Lines of notes that end early: the next line of the same paragraph would have fitted a word more. */
function ragged(text: string, width: number): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const [a, b] = [lines[i]!, lines[i + 1]!];
    // A heading (`Examples:`) is not prose; the end of a sentence that introduces an example is.
    const prose = (l: string) => l !== '' && !/^\s/.test(l) && !/^[A-Z].*:$/.test(l);
    if (!prose(a) || !prose(b) || /^[A-Z][A-Za-z -]{0,24}: /.test(b)) continue;
    const next = b.split(' ')[0]!;
    if ([...a].length + 1 + [...next].length <= width) out.push(`${a}⏎${b}`);
  }
  return out;
}

/** The example commands of a help, continuation lines joined back as the shell reads them. */
function examples(text: string): string[] {
  const out: string[] = [];
  let continued = false;
  for (const l of text.split('\n')) {
    if (continued) out[out.length - 1] += `\n${l}`;
    else if (/^ {2}\$ /.test(l)) out.push(l.slice(4));
    else continue;
    continued = l.endsWith(' \\');
  }
  return out;
}

/**
 * The words bash makes of each command line (svc replaced by printf, one word a line), without
 * what follows a pipe or the note after a gap of spaces (the example's explanation). One bash
 * for all of them (a bash a command, then a bash a help, cost most of this file's time): each command runs in a
 * subshell of its own (set -e: one that fails fails them all) and ends with a marker line; a
 * command bash cannot parse to its end (an open quote) takes the markers after it and fails the
 * count.
 */
function bashWords(commands: string[]): string[] {
  const MARK = '--svc-help-layout-end--';
  const script = commands
    .map((command) => {
      const words = command
        .replace(/^svc /, '')
        .replace(/\|.*$/s, '')
        .replace(/(\S) {2,}\S.*$/gm, '$1');
      return `(\nprintf '%s\\n' ${words}\n)\necho ${MARK}\n`;
    })
    .join('');
  const out = execFileSync('bash', ['-c', `set -ef\n${script}`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, SECRET: 's3cret', TOKEN: 't0ken' },
  }).split(`${MARK}\n`);
  expect(out.pop()).toBe('');
  expect(out).toHaveLength(commands.length);
  return out;
}

describe('help layout', () => {
  it.each([80, 60])('notes fill the width at %i columns: no line ends where the next word would have fitted', async (width) => {
    const bad: string[] = [];
    for (const args of HELPS) for (const l of ragged(await help(args, width), width)) bad.push(`svc ${args.join(' ')}: ${l}`);
    expect(bad).toEqual([]);
  });

  it.each([80, 60])('examples wrap with a trailing \\ at %i columns and give bash the same words', async (width) => {
    // Every help's wrapped examples and their one-line twins, through one bash at the end.
    const pairs: (readonly [string, string])[] = [];
    for (const args of HELPS) {
      const narrow = await help(args, width);
      // Only a single shell word too long for any line (a quoted JSON body) may pass the width: it cannot be broken.
      for (const l of narrow.split('\n'))
        if (!/^ +-?\S* ?'[^']*'$/.test(l)) expect([...l].length, `svc ${args.join(' ')}: ${l}`).toBeLessThanOrEqual(width);
      const a = examples(narrow);
      const b = examples(await help(args, 400));
      expect(a.length).toBe(b.length);
      pairs.push(...a.flatMap((cmd, i) => (cmd.includes('\\\n') ? [[cmd, b[i]!] as const] : [])));
    }
    expect(pairs.length).toBeGreaterThan(3);
    const words = bashWords(pairs.flat());
    for (const [i, [cmd]] of pairs.entries()) expect(words[2 * i], cmd).toBe(words[2 * i + 1]);
  });

  it('a repeatable option shows no empty default (a Paris trial read "svc sql --help": --param … (default: []))', async () => {
    expect(await help(['sql'], 80)).not.toMatch(/default: \[\]/);
  });

  it('a note after an example is a # comment, so that the line typed as shown is the command (login --help at 80)', async () => {
    // A trial typed "svc login --no-browser print the URL; open it on any machine": too many
    // arguments, then `open` ran xdg-open.
    for (const width of [80, 60])
      expect(await help(['login'], width)).toMatch(/^ {2}\$ svc login --no-browser.*\n? *# print the URL; open it on any machine$/m);
    expect(wrapExample('  $ svc x --flag                 explain it; here', 30)).toEqual(['  $ svc x --flag', '      # explain it; here']);
    expect(wrapExample('  $ svc x --flag                 explain', 30)).toEqual(['  $ svc x --flag # explain']);
  });

  it('never breaks inside quotes; an option stays with its value; a comment goes on a line of its own', () => {
    const out = wrapExample(
      '  $ svc enroll --sequence "Outbound Enterprise Accounts" --mailbox ada@example.com --by email # a comment here',
      50,
    );
    expect(out).toEqual([
      '  $ svc enroll \\',
      '      --sequence "Outbound Enterprise Accounts" \\',
      '      --mailbox ada@example.com --by email',
      '      # a comment here',
    ]);
    expect(wrapBlock('Intro line that ends\nearly and goes on here.\nExit codes: 0 ok.\n\nNext:\n  table  row', 80)).toBe(
      'Intro line that ends early and goes on here.\nExit codes: 0 ok.\n\nNext:\n  table  row',
    );
  });
});
