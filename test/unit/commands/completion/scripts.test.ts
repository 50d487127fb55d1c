/**
 * `svc completion <shell>`, in-process: the committed scripts are what it prints, and the zsh
 * install lines a user is given write into their HOME. (The e2e tests
 * keep the shells loading them, and an unknown shell, through the built binary.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../../helpers/in-process-cli.js';
import { baseEnv, ROOT, tempDir } from '../../../helpers/run-svc.js';

const SCRIPTS = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' } as const;

describe('completion scripts', () => {
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    it(`completions/${SCRIPTS[shell]} is what \`svc completion ${shell}\` prints (run npm run completions after changing commands)`, async () => {
      const r = await runInProcess(['completion', shell], baseEnv({ SVC_CONFIG_DIR: tempDir() }));
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(10_000);
      expect(
        r.stdout === fs.readFileSync(path.join(ROOT, 'completions', SCRIPTS[shell]), 'utf8'),
        `completions/${SCRIPTS[shell]} is out of date: run npm run completions`,
      ).toBe(true);
    });
  }
});

describe('zsh install lines', () => {
  // `svc completion zsh > "${fpath[1]}/_svc"` wrote into /usr/local/share/zsh/site-functions in a
  // fresh HOME: permission denied for a normal user (a trial).
  it('--help, the script header and the README write the script under HOME, in fpath before compinit, or source it after', async () => {
    const help = await runInProcess(['completion', '--help'], baseEnv({ SVC_CONFIG_DIR: tempDir() }));
    expect(help.code).toBe(0);
    const zsh = help.stdout.slice(help.stdout.indexOf('  zsh '), help.stdout.indexOf('  fish '));
    expect(zsh).toMatch(/^ {2}zsh +mkdir -p ~\/\.zfunc && svc completion zsh > ~\/\.zfunc\/_svc$/m);
    expect(zsh).toMatch(/before compinit: fpath=\(~\/\.zfunc \$fpath\)/);
    expect(zsh).toMatch(/after compinit: source <\(svc completion zsh\)/);
    const script = await runInProcess(['completion', 'zsh'], baseEnv({ SVC_CONFIG_DIR: tempDir() }));
    const header = script.stdout.split('\n').slice(0, 5).join('\n');
    expect(header).toMatch(/~\/\.zfunc\/_svc with fpath=\(~\/\.zfunc \$fpath\) before compinit/);
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toMatch(/^# zsh \(~\/\.zshrc, after compinit.*\nsource <\(svc completion zsh\)$/m);
    for (const text of [help.stdout, header, readme]) expect(text).not.toContain('${fpath[1]}');
  });
});
