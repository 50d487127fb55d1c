/**
 * Shell completion: each shell really loads its committed script and completes commands,
 * subcommands, options and attribute names — driven non-interactively (bash: the function with
 * COMP_WORDS; zsh: the function with `words`/CURRENT and a compadd that prints; fish:
 * `complete -C`). One shell of each kind loads its script once and completes line after line
 * sent on its stdin (ShellSession): a shell per line was ~100 shells loading 160–210 KB each.
 * That the committed scripts are what `svc completion` prints is checked
 * in-process in test/unit/commands/completion/scripts.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireProgram, without } from '../helpers/programs.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { ROOT, runSvc, tempDir } from '../helpers/run-svc.js';
import { startTinyServer } from '../helpers/tiny-server.js';

const SCRIPTS = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' } as const;
const file = (shell: keyof typeof SCRIPTS) => path.join(ROOT, 'completions', SCRIPTS[shell]);

/** A single-quoted word for bash, zsh or fish (fish: backslash and quote escaped inside). */
const quoted = (shell: keyof typeof SCRIPTS, w: string) =>
  shell === 'fish' ? `'${w.replace(/[\\']/g, '\\$&')}'` : `'${w.replace(/'/g, `'\\''`)}'`;

/** What a shell runs once: the committed script loaded as a person's shell loads it. */
function loadScript(shell: keyof typeof SCRIPTS): string {
  const f = quoted(shell, file(shell));
  if (shell === 'bash') return `source ${f} || exit 9; complete -p svc >/dev/null || exit 8\n`;
  if (shell === 'fish') return `source ${f}; or exit 9\n`;
  // compadd outside a completion widget is a builtin that refuses to run: a function stands in
  // and prints the words after `--` (skipping the options that take an argument).
  return `
    compdef() { :; }
    compadd() {
      local -a a; local skip=0 seen=0 x
      for x in "$@"; do
        if (( seen )); then a+=("$x"); elif (( skip )); then skip=0
        elif [[ $x == -- ]]; then seen=1; elif [[ $x == -[PSpsiIWdJVXxrRDOAEFM] ]]; then skip=1; fi
      done
      print -l -- "\${a[@]}"
    }
    source ${f} || exit 9
`;
}

/** What a shell runs to complete one command line (the last word is the one being completed). */
function completeCommand(shell: keyof typeof SCRIPTS, line: string[]): string {
  const words = line.map((w) => quoted(shell, w)).join(' ');
  if (shell === 'bash')
    return `COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _svc; printf '%s\\n' "\${COMPREPLY[@]}"`;
  if (shell === 'zsh') return `words=(${words}); CURRENT=\${#words}; _svc; true`;
  // The line as a person types it: a space or quote in a word escaped with a backslash.
  return `complete -C ${quoted(shell, line.map((w) => w.replace(/[\\ '"]/g, '\\$&')).join(' '))}`;
}

/**
 * One shell per shell and environment, that loaded its completion script once and completes the
 * lines it is sent on stdin, each answer ended by a marker line: loading a script (160–210 KB)
 * in a new shell for each of the ~100 lines was most of the file's CPU.
 */
class ShellSession {
  private readonly child: ChildProcess;
  private out = '';
  private queue: Promise<unknown> = Promise.resolve();
  private waiting: { resolve: (text: string) => void; reject: (e: Error) => void } | undefined;
  private readonly marker = `@@svc-completion-done-${process.pid}@@`;

  constructor(
    private readonly shell: keyof typeof SCRIPTS,
    env: Record<string, string>,
  ) {
    // A UTF-8 locale, as a person's terminal has: fish in the C locale cannot open a path with
    // non-ASCII characters it read from the environment (a config dir under a CJK folder name).
    const args = {
      bash: ['--norc', '--noprofile', '-s'],
      zsh: ['-f', '-s'],
      fish: ['--no-config', '-c', 'while read -l line; eval $line; end'],
    }[shell];
    this.child = spawn(shell, args, { env: { PATH: process.env.PATH, HOME: tempDir(), LANG: 'C.UTF-8', ...env } });
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.out += d;
      const end = this.out.indexOf(`${this.marker}\n`);
      if (end >= 0 && this.waiting) {
        const text = this.out.slice(0, end);
        this.out = this.out.slice(end + this.marker.length + 1);
        this.waiting.resolve(text);
      }
    });
    let stderr = '';
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    this.child.on('close', (code) => this.waiting?.reject(new Error(`${shell} exited with ${code}: ${stderr}`)));
    this.child.stdin!.write(loadScript(shell));
  }

  /** Completions offered for a command line (the last word is the one being completed). */
  complete(line: string[]): Promise<string[]> {
    const next = this.queue.then(
      () =>
        new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`${this.shell}: no answer to ${line.join(' ')}`)), 10_000);
          this.waiting = {
            resolve: (text) => {
              clearTimeout(timer);
              resolve(text);
            },
            reject: (e) => {
              clearTimeout(timer);
              reject(e);
            },
          };
          this.child.stdin!.write(`${completeCommand(this.shell, line)}\necho ${this.marker}\n`);
        }),
    );
    this.queue = next.catch(() => undefined);
    return next.then((stdout) => {
      const lines = stdout.split('\n').filter(Boolean);
      return this.shell === 'fish' ? lines.map((l) => l.split('\t')[0]!) : lines;
    });
  }

  /** Ends the shell and waits for it (its CPU is then counted with the file's: SVC_TEST_CPU_LOG). */
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once('close', () => resolve());
    });
    this.child.stdin!.end();
    return closed;
  }
}

const sessions = new Map<string, ShellSession>();
afterAll(async () => {
  await Promise.all([...sessions.values()].map((s) => s.close()));
});

/** Completions offered for a command line, by a shell with that environment (started once). */
async function complete(shell: keyof typeof SCRIPTS, line: string[], env: Record<string, string> = {}): Promise<string[]> {
  const key = `${shell} ${JSON.stringify(env)}`;
  let session = sessions.get(key);
  if (!session) sessions.set(key, (session = new ShellSession(shell, env)));
  return session.complete(line);
}

describe('completion scripts', () => {
  it('an unknown shell is a usage error', async () => {
    const r = await runSvc(['completion', 'tcsh'], { env: { SVC_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    // bash runs the test suite's own scripts; zsh and fish may be missing on a fresh machine.
    describe.skipIf(shell !== 'bash' && without(shell, `${shell} completion tests`))(shell, () => {
      beforeAll(() => requireProgram(shell));
      it('completes commands, subcommands (also through aliases) and options', async () => {
        expect(await complete(shell, ['svc', 'pro'])).toContain('prospects');
        expect(await complete(shell, ['svc', 'pro'])).not.toContain('accounts');
        expect(await complete(shell, ['svc', 'prospects', ''])).toEqual(
          expect.arrayContaining(['list', 'get', 'create', 'update', 'delete']),
        );
        expect(await complete(shell, ['svc', 'sequenceStates', 'fi'])).toEqual(['finish']);
        expect(await complete(shell, ['svc', 'webhooks', 'li'])).toEqual(expect.arrayContaining(['list', 'listen']));
        const opts = await complete(shell, ['svc', 'prospects', 'list', '--fi']);
        expect(opts).toEqual(expect.arrayContaining(['--filter', '--fields']));
        expect(opts).not.toContain('--attr');
      });

      it('completes attribute names after --filter, --sort, --attr, --fields and values of -o', async () => {
        const filter = await complete(shell, ['svc', 'prospects', 'list', '--filter', 'ti']);
        expect(filter).toContain('title=');
        expect(filter).not.toContain('timeZoneIana='); // not filterable
        expect(await complete(shell, ['svc', 'prospects', 'list', '--filter', 'account.'])).toEqual(['account.id=']);
        expect(await complete(shell, ['svc', '--sandbox', 'prospects', 'list', '-o', 'json', '--sort', '-upd'])).toEqual(['-updatedAt']);
        expect(await complete(shell, ['svc', 'prospects', 'list', '--sort', 'emai'])).toEqual([]); // emails is F, not S
        expect(await complete(shell, ['svc', 'prospects', 'create', '--attr', 'first'])).toEqual(['firstName=']);
        expect(await complete(shell, ['svc', 'prospects', 'create', '--rel', 'acc'])).toEqual(['account=']);
        // `--json` may stand alone: the word after it is still the command line.
        expect(await complete(shell, ['svc', '--json', 'prospects', 'li'])).toEqual(['list']);
        expect(await complete(shell, ['svc', 'prospects', 'list', '--fields', 'title,last'])).toEqual(['title,lastName']);
        expect(await complete(shell, ['svc', 'accounts', 'list', '-o', 'nd'])).toEqual(['ndjson']);
        expect(await complete(shell, ['svc', 'webhooks', 'trigger', 'task.comp'])).toEqual(['task.completed']);
      });

      it('completes the values handlers check (no file names): --match, --by, --format, config keys, --json fields, --data @file', async () => {
        // fish lists what it offers sorted.
        const values = async (line: string[]) => (await complete(shell, line)).sort();
        expect(await complete(shell, ['svc', 'prospects', 'upsert', '--match', 'em'])).toEqual(['emails']);
        expect(await complete(shell, ['svc', 'accounts', 'upsert', '--match', 'dom'])).toEqual(['domain']);
        expect(await values(['svc', 'enroll', '--input', 'x.csv', '--by', ''])).toEqual(['id', 'email'].sort());
        expect(await values(['svc', 'prospects', 'export', '--format', ''])).toEqual(['csv', 'ndjson'].sort());
        expect(await values(['svc', 'report', 'sequences', '--by', 'op'])).toEqual(['open', 'optout'].sort());
        expect(await values(['svc', 'report', 'mailings', '--by', ''])).toEqual(['day', 'week', 'mailbox', 'sequence'].sort());
        expect(await values(['svc', 'config', 'set', ''])).toEqual(['output', 'pageSize', 'concurrency', 'appUrl'].sort());
        expect(await complete(shell, ['svc', 'config', 'get', 'page'])).toEqual(['pageSize']);
        expect(await values(['svc', 'webhooks', 'listen', '--payload-version', ''])).toEqual(['1', '2'].sort());
        // --json: fields of the resource after it; a field list there is its value, a command word is not.
        expect(await complete(shell, ['svc', 'prospects', 'list', '--json', 'first'])).toEqual(['firstName']);
        expect(await values(['svc', 'prospects', 'list', '--json', 'id,last'])).toEqual(['id,lastName'].sort());
        expect(await complete(shell, ['svc', 'prospects', 'list', '--json', 'id,title', '--fil'])).toEqual(['--filter']);
        expect(await complete(shell, ['svc', '--json', 'prosp'])).toContain('prospects');
        // --data @FILE completes file names after the @ (zsh's _files needs compinit, which this
        // harness does not load); a free value (--limit) offers nothing.
        // In a folder with a space and CJK in its name (fish kept the typed escapes and found nothing).
        const dir = path.join(tempDir(), 'my files 設定');
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, 'body.json'), '{}');
        if (shell !== 'zsh') {
          expect(await complete(shell, ['svc', 'prospects', 'create', '--data', `@${dir}/bo`])).toEqual([`@${dir}/body.json`]);
          expect(await complete(shell, ['svc', 'prospects', 'create', '--input', `${dir}/bo`])).toEqual([`${dir}/body.json`]);
        }
        // bash breaks a typed `@file` at its @ (COMP_WORDBREAKS): the @ a word, the name the next,
        // and nothing was offered (a trial).
        if (shell === 'bash') {
          expect(await complete(shell, ['svc', 'prospects', 'create', '--data', '@', `${dir}/bo`])).toEqual([`${dir}/body.json`]);
          expect(await complete(shell, ['svc', 'api', 'POST', '/prospects', '-d', '@', `${dir}/bo`])).toEqual([`${dir}/body.json`]);
        }
        expect(await complete(shell, ['svc', 'prospects', 'list', '--limit', ''])).toEqual([]);
      });
    });
  }

  it('adds the fields only a pulled org schema shows (bash, zsh, fish)', async () => {
    const openapi = {
      paths: { '/prospects': { get: { parameters: [{ name: 'filter[tierLevel]' }] } } },
      components: {
        schemas: { P: { properties: { type: { enum: ['prospect'] }, attributes: { properties: { tierLevel: { type: 'integer' } } } } } },
      },
    };
    const server = await startTinyServer((req) => ({
      status: 200,
      body: JSON.stringify(req.url!.endsWith('/types') ? { data: [] } : openapi),
    }));
    try {
      const config = tempDir();
      const pull = await svcInProcess(['schema', 'pull'], {
        env: { SVC_CONFIG_DIR: config, SVC_BASE_URL: `${server.url}/api/v2`, SVC_TOKEN: 'tok' },
      });
      expect(pull.code, pull.stderr).toBe(0);
      expect(fs.readFileSync(path.join(config, 'completion-extra.txt'), 'utf8')).toBe(
        'prospects attr tierLevel\nprospects fields tierLevel\nprospects filter tierLevel\n',
      );
      for (const shell of ['bash', 'zsh', 'fish'] as const) {
        if (shell !== 'bash' && without(shell, `${shell} completion tests`)) continue;
        requireProgram(shell);
        expect(await complete(shell, ['svc', 'prospects', 'list', '--filter', 'tier'], { SVC_CONFIG_DIR: config }), shell).toEqual([
          'tierLevel=',
        ]);
        expect(await complete(shell, ['svc', 'prospects', 'list', '--filter', 'tier']), shell).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });
});
