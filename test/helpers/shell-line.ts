/**
 * Runs a documented `svc …` command line in the test process when it is a plain command (words,
 * quotes, a `> file` redirect, a trailing comment), as bash would have run it: the README's and
 * --help's examples are ~110 such lines, and a bash plus bin/svc per line cost a second each on
 * two cores against ~30 ms in process. A line with anything more of the shell in it (pipes,
 * `&&`, variables, globs, escapes) gets `undefined` from {@link plainCommand}: run it in bash.
 */
import fs from 'node:fs';
import path from 'node:path';
import { svcInProcess } from './in-process-cli.js';
import type { RunOptions, SvcResult } from './run-svc.js';

/** A plain command line: svc's arguments and where its stdout goes. */
export interface PlainCommand {
  args: string[];
  /** `> FILE`: stdout written there (relative to the directory it runs in). */
  stdoutTo?: string;
}

/**
 * Splits `svc ARGS [> FILE] [# comment]` into words as bash does, or `undefined` when the line
 * uses the shell for more than that (then only bash gives its meaning).
 */
export function plainCommand(line: string): PlainCommand | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let stdoutTo: string | undefined;
  let redirect = false;
  const end = () => {
    if (word === undefined) return;
    if (redirect) {
      if (stdoutTo !== undefined) return 'twice';
      stdoutTo = word;
      redirect = false;
    } else words.push(word);
    word = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      if (end()) return undefined;
    } else if (c === '#' && word === undefined) {
      break;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return undefined;
      word = (word ?? '') + line.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      const close = line.indexOf('"', i + 1);
      if (close < 0) return undefined;
      const inner = line.slice(i + 1, close);
      // Expansions and escapes inside double quotes are bash's to give.
      if (/[$`\\!]/.test(inner)) return undefined;
      word = (word ?? '') + inner;
      i = close;
    } else if (c === '>') {
      if (word !== undefined || redirect || line[i + 1] === '>' || line[i + 1] === '&') return undefined;
      redirect = true;
    } else if (/[|&;<>()$`\\*?[\]{}~!]/.test(c)) {
      return undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (end() || redirect) return undefined;
  if (words[0] !== 'svc') return undefined;
  return { args: words.slice(1), ...(stdoutTo !== undefined ? { stdoutTo } : {}) };
}

/**
 * Runs a {@link plainCommand} through svc's program in the test process with `dir` as the
 * working directory (relative paths in the line are the user's), writing stdout to its redirect
 * as bash would. The working directory is the process's: only for tests that run one at a time.
 */
export async function runPlainCommand(cmd: PlainCommand, dir: string, opts: RunOptions = {}): Promise<SvcResult> {
  const before = process.cwd();
  process.chdir(dir);
  try {
    const r = await svcInProcess(cmd.args, opts);
    if (cmd.stdoutTo === undefined) return r;
    if (cmd.stdoutTo !== '/dev/null') fs.writeFileSync(path.resolve(dir, cmd.stdoutTo), r.stdout);
    return { ...r, stdout: '' };
  } finally {
    process.chdir(before);
  }
}
