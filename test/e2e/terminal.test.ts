/**
 * What a person sees in a terminal (tmux): the table sized to the window with colour, the create
 * prompt answering field by field, and a delete confirmation.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { BIN, tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { sh, TmuxSession } from '../helpers/tmux.js';
import { requireProgram, without } from '../helpers/programs.js';

let sb: TestSandbox;
let env: Record<string, string>;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  requireProgram('tmux');
  const s = await sandboxWithEnv({ seed: 30 });
  sb = s.sb;
  env = { ...s.env(), SVC_CONFIG_DIR: tempDir(), TERM: 'xterm-256color', NO_COLOR: '' };
});
afterAll(async () => {
  for (const s of sessions) s.kill();
  await sb?.close();
});

function term(args: string, width = 100, height = 40): TmuxSession {
  const s = new TmuxSession(`unset NO_COLOR; ${sh(process.execPath)} ${sh(BIN)} ${args}; echo "[exit $?]"; sleep 30`, {
    width,
    height,
    env,
  });
  sessions.push(s);
  return s;
}

describe.skipIf(without('tmux', 'the terminal tests'))('in a terminal', () => {
  it('list prints a table that fits the window, with colour', async () => {
    const s = term('prospects list --limit 5', 70);
    const screen = await s.waitFor(/\[exit 0\]/);
    const lines = screen.split('\n').filter((l) => l.includes('│'));
    expect(lines.length).toBe(6); // header + 5 rows
    expect(lines[0]).toMatch(/id.*firstName.*lastName.*title/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(70);
    expect(await s.screen(true)).toMatch(/\x1b\[/); // colour on a TTY
  });

  it('get prints a vertical field/value list', async () => {
    const s = term('prospects get 1', 100, 150);
    const screen = await s.waitFor(/\[exit 0\]/);
    expect(screen).toMatch(/^id\s+1\s*$/m);
    expect(screen).toMatch(/^firstName\s+\S+/m);
    expect(screen).not.toMatch(/^custom150/m); // empty custom fields are not listed
  });

  it('create with no fields asks for the main ones', async () => {
    const s = term('prospects create -o json');
    await s.waitFor(/firstName/);
    s.send('Grace', 'Enter');
    await s.waitFor(/lastName/);
    s.send('Hopper', 'Enter');
    await s.waitFor(/title/);
    s.send('Rear Admiral', 'Enter');
    await s.waitFor(/emails/);
    s.send('grace@navy.mil', 'Enter');
    const screen = await s.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/\[exit 0\]/);
    const created = [...sb.store.table('prospect').values()].find((p) => p.attributes.lastName === 'Hopper');
    expect(created?.attributes).toMatchObject({ firstName: 'Grace', title: 'Rear Admiral', emails: ['grace@navy.mil'] });
  });

  it('delete asks for confirmation; "n" keeps the record', async () => {
    const s = term('prospects delete 2');
    await s.waitFor(/Delete prospect 2\?/);
    s.send('n', 'Enter');
    const screen = await s.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/not deleted/);
    expect(sb.store.get('prospect', 2)).toBeDefined();
  });

  it('SIGTERM while a confirmation waits: the prompt ends, nothing deleted, exit 143', async () => {
    // Counting SIGTERM's listeners took the prompt's exit hook for a command's own: SIGTERM then
    // did nothing at all, and the process waited at the prompt (a review of this session's change).
    const s = term('prospects delete 7 --profile sigterm-at-prompt');
    await s.waitFor(/Delete prospect 7\?/);
    // The node process (its command line starts with node's path), not the tmux one whose
    // command line holds the same words; not by its name, which Node 26 sets to its main thread's.
    const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout;
    const pids = ps
      .split('\n')
      .map((l) => /^\s*(\d+)\s+(.*)$/.exec(l))
      .filter((m) => m && m[2]!.startsWith(process.execPath) && m[2]!.includes('prospects delete 7 --profile sigterm-at-prompt'))
      .map((m) => Number(m![1]));
    expect(pids).toHaveLength(1);
    process.kill(pids[0]!, 'SIGTERM');
    const screen = await s.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/\[exit 143\]/);
    expect(sb.store.get('prospect', 7)).toBeDefined();
  });

  it('a record holding escape sequences neither clears the screen nor writes the clipboard: they show escaped', async () => {
    const made = await svcInProcess(
      ['prospects', 'create', '--attr', 'firstName=Eve\x1b]52;c;aGk=\x07', '--attr', 'lastName=Clear\x1b[2J\x1b[H', '-o', 'json'],
      { env },
    );
    expect(made.code, made.stderr).toBe(0);
    const id = (JSON.parse(made.stdout) as { id: number }).id;
    const s = term(`prospects list --filter id=${id} --columns id,firstName,lastName`, 100);
    const screen = await s.waitFor(/\[exit 0\]/);
    expect(screen).toContain('Eve\\e]52;c;aGk=\\a');
    expect(screen).toContain('Clear\\e[2J\\e[H');
    // Nothing above the table was wiped: the header is on the screen, under the command line.
    expect(screen).toMatch(/id\s+│\s+firstName\s+│\s+lastName/);
  });
});
