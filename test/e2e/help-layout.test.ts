/**
 * Help that reads well at 80 columns: no line wider than the terminal, resource commands grouped
 * by area without their aliases, global options listed once (every other help points there), and
 * examples that work as written against the sandbox.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/registry/index.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { BIN, baseEnv, runSvc, tempDir } from '../helpers/run-svc.js';
import { requireProgram, without } from '../helpers/programs.js';
import { sh, TmuxSession } from '../helpers/tmux.js';

const env = (columns = '80') => baseEnv({ SVC_CONFIG_DIR: tempDir(), COLUMNS: columns });
/**
 * Each help's text, made once per file for its words and width: the width test, the placeholder
 * test and the examples test read the same 51 resource helps at 80 columns (~3 ms of CPU each
 * in process), and a help depends only on its words and COLUMNS (each run has an empty config
 * dir of its own). The text checked is the program's, made the same way as before.
 */
const helps = new Map<string, string>();
const help = async (args: string[], columns = '80') => {
  const key = `${columns} ${args.join(' ')}`;
  const known = helps.get(key);
  if (known !== undefined) return known;
  const r = await runInProcess([...args, '--help'], env(columns));
  expect(r.code, `${args.join(' ')} --help: ${r.stderr}`).toBe(0);
  helps.set(key, r.stdout);
  return r.stdout;
};
const tooWide = (text: string, width: number) => text.split('\n').filter((l) => [...l].length > width);

const BUILT_INS = [
  [],
  ['api'],
  ['enroll'],
  ['login'],
  ['logout'],
  ['auth'],
  ['auth', 'status'],
  ['auth', 'token'],
  ['profiles'],
  ['profiles', 'use'],
  ['sandbox'],
  ['schema'],
  ['schema', 'show'],
  ['schema', 'pull'],
  ['resources'],
  ['completion'],
  ['webhooks', 'listen'],
  ['webhooks', 'verify'],
  ['webhooks', 'trigger'],
  ['webhooks', 'cleanup'],
  ['config'],
  ['config', 'set'],
  ['alias'],
  ['alias', 'set'],
  ['open'],
];
const OPERATIONS = [
  ['prospects', 'list'],
  ['prospects', 'get'],
  ['prospects', 'create'],
  ['prospects', 'update'],
  ['prospects', 'delete'],
  ['sequence-states', 'finish'],
  ['tasks', 'mark-complete'],
];

describe('help width', () => {
  it('no line of any help is wider than 80 columns when COLUMNS=80', async () => {
    const wide: string[] = [];
    for (const args of [...BUILT_INS, ...RESOURCES.map((r) => [r.command]), ...OPERATIONS]) {
      for (const l of tooWide(await help(args), 80)) wide.push(`svc ${args.join(' ')} --help: ${l}`);
    }
    expect(wide).toEqual([]);
  }, 60_000);

  it('follows a wider or narrower terminal (and 80 when the width is unknown)', async () => {
    const wide = await help([], '120');
    expect(tooWide(wide, 120)).toEqual([]);
    // The long descriptions use the room: at 120 columns they no longer wrap.
    expect(wide).toMatch(/^ {2}prospects +A person being contacted: the centre of sequences, mailings, calls and tasks\.$/m);
    expect(tooWide(await help(['prospects'], '60'), 60)).toEqual([]);
    const unknown = await runInProcess(['login', '--help'], baseEnv({ SVC_CONFIG_DIR: tempDir(), COLUMNS: undefined }));
    expect(tooWide(unknown.stdout, 80)).toEqual([]);
  });
});

describe('svc --help', () => {
  it('groups resource commands by area, names only, after the built-in commands', async () => {
    const out = await help([]);
    const headings = out.split('\n').filter((l) => /^[A-Z][^:]*:$/.test(l));
    expect(headings).toEqual([
      'Global options (before or after the command):',
      'Commands:',
      'Login and settings:',
      'CRM:',
      'Sequences:',
      'Mail:',
      'Calls:',
      'Tasks:',
      'Content:',
      'Org and admin:',
      'Other resources:',
      'Examples:',
    ]);
    const section = (h: string) => out.split(`\n${h}\n`)[1]!.split('\n\n')[0]!;
    expect(section('CRM:')).toMatch(/^ {2}prospects +A person/m);
    expect(section('Sequences:')).toMatch(/^ {2}sequence-states +/m);
    expect(section('Tasks:')).toMatch(/^ {2}task-priorities +/m);
    expect(section('Login and settings:')).toMatch(/^ {2}login +log in/m);
    // No aliases, no `[operation]`: the command column is as wide as the longest name.
    expect(out.split('\nExamples:')[0]).not.toMatch(/\||\[operation\]/);
    expect(out).toMatch(/^ {2}content-category-memberships {2}Puts a sequence/m);
    // Every resource command is listed exactly once.
    for (const r of RESOURCES) expect(out.match(new RegExp(`^  ${r.command} `, 'gm'))?.length, r.command).toBe(1);
  });

  it('lists the global options once; every other help ends pointing there', async () => {
    const root = await help([]);
    expect(root).toMatch(/^ {2}--profile <name> +profile to use/m);
    for (const args of [['prospects'], ['prospects', 'list'], ['api'], ['auth', 'status'], ['sequence-states', 'finish']]) {
      const out = await help(args);
      expect(out, args.join(' ')).not.toMatch(/--profile <name>|--base-url/);
      expect(out.trimEnd().split('\n').slice(-2), args.join(' ')).toEqual([
        '',
        'Global options (--profile, --sandbox, -o, --json, -v, …): svc --help',
      ]);
      expect(out, args.join(' ')).not.toMatch(/\n\n\n/);
      expect(out).toMatch(/^Options:\n(.*\n)* {2}-h, --help +show help$/m);
    }
  });

  it("shows a resource's alias in its own help", async () => {
    const out = await help(['content-category-memberships'], '120');
    expect(out).toMatch(/^Usage: svc content-category-memberships\|contentCategoryMemberships <operation> \[options\]$/m);
    expect(out).toMatch(/^Also callable as: svc contentCategoryMemberships$/m);
  });

  it('the real --help of bin/svc is the one checked here (spawned, COLUMNS=80)', async () => {
    const r = await runSvc(['--help'], { env: { SVC_CONFIG_DIR: tempDir(), COLUMNS: '80' } });
    expect(r.code).toBe(0);
    expect(tooWide(r.stdout, 80)).toEqual([]);
    expect(r.stdout).toMatch(/^CRM:$/m);
  });
});

describe('help examples work as written against the sandbox', () => {
  let sb: TestSandbox;
  let sbEnv: () => Record<string, string>;
  beforeAll(async () => {
    ({ sb, env: sbEnv } = await sandboxWithEnv());
  });
  afterAll(() => sb.close());

  /** `$ svc …` lines of a help text, wrapped ones joined back (` \` ends a line continued), as argv (our examples quote nothing). */
  const examples = (text: string) =>
    text
      .replace(/ \\\n +/g, ' ')
      .split('\n')
      .filter((l) => l.startsWith('  $ svc '))
      .map((l) => l.slice('  $ svc '.length));

  it('uses no placeholders', async () => {
    for (const r of RESOURCES) {
      const lines = examples(await help([r.command]));
      expect(lines.length, r.command).toBeGreaterThan(0);
      expect(lines.join('\n'), r.command).not.toMatch(/VALUE|<|\bID\b|=\.\.\.$/m);
    }
  });

  it("every resource command's examples and the program's succeed", async () => {
    const failed: string[] = [];
    const lines = [...examples(await help([])), ...(await Promise.all(RESOURCES.map((r) => help([r.command])))).flatMap(examples)];
    expect(lines.length).toBeGreaterThan(100);
    for (const line of lines) {
      // `login` opens a browser; a pipe is the shell's. `--sandbox` finds this same kind of server.
      if (line === 'login' || line.includes('|')) continue;
      const argv = line.split(' ').filter((a) => a !== '--sandbox');
      const r = await runInProcess([...argv, '-o', 'json'], baseEnv(sbEnv()));
      if (r.code !== 0) failed.push(`svc ${line}: ${r.stderr.trim()}`);
    }
    expect(failed).toEqual([]);
  }, 120_000);
});

describe.skipIf(without('tmux', 'the help width test in a terminal'))('in an 80-column terminal (tmux)', () => {
  it('svc --help and svc prospects --help: no line the terminal has to wrap', async () => {
    requireProgram('tmux');
    for (const args of ['--help', 'prospects --help', 'login --help']) {
      const s = new TmuxSession(`${sh(process.execPath)} ${sh(BIN)} ${args}; echo "[exit $?]"; sleep 30`, {
        width: 80,
        height: 50,
        env: { SVC_CONFIG_DIR: tempDir(), TERM: 'xterm-256color' },
      });
      try {
        await s.waitFor(/\[exit 0\]/);
        // -J joins the lines the terminal wrapped: a joined line wider than 80 was cut mid-word.
        const all = await s.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', s.name);
        expect(all).toMatch(/Global options|Options:/);
        expect(
          all.split('\n').filter((l) => [...l.trimEnd()].length > 80),
          args,
        ).toEqual([]);
      } finally {
        s.kill();
      }
    }
  }, 60_000);
});
