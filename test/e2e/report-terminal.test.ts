/**
 * What a person sees of `svc report` in a real terminal (tmux) at 80 and 200 columns, with colour
 * and with NO_COLOR: every line fits, bars are drawn (blocks, or # without colour) and follow the
 * numbers of `-o json`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { BIN, baseEnv, json, tempDir } from '../helpers/run-svc.js';
import { textWidth } from '../../src/output/terminal-text.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { sh, TmuxSession } from '../helpers/tmux.js';
import { requireProgram, without } from '../helpers/programs.js';

let sb: TestSandbox;
let env: Record<string, string>;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 900 });
  sb = s.sb;
  env = { ...s.env(), SVC_CONFIG_DIR: tempDir(), TERM: 'xterm-256color', NO_COLOR: '' };
});
afterAll(async () => {
  for (const s of sessions) s.kill();
  await sb?.close();
});

function term(args: string, width: number, colour: boolean): TmuxSession {
  const pre = colour ? 'unset NO_COLOR;' : 'export NO_COLOR=1;';
  const s = new TmuxSession(`${pre} ${sh(process.execPath)} ${sh(BIN)} ${args}; echo "[exit $?]"; sleep 30`, { width, height: 60, env });
  sessions.push(s);
  return s;
}

const cells = (l: string) => [...l].length;

describe.skipIf(without('tmux', 'the report terminal tests'))('report in a terminal', () => {
  beforeAll(() => requireProgram('tmux'));
  for (const width of [80, 200]) {
    for (const colour of [true, false]) {
      it(`sequences at ${width} columns ${colour ? 'with colour' : 'with NO_COLOR'}: fits, bars follow the reply rates`, async () => {
        const s = term('report sequences', width, colour);
        const screen = await s.waitFor(/\[exit \d+\]/);
        expect(screen).toMatch(/\[exit 0\]/);
        const lines = screen.split('\n');
        for (const l of lines) expect(cells(l.replace(/\s+$/, ''))).toBeLessThan(width); // a full line would be a wrapped one
        const rows = json<any[]>(await svcInProcess(['report', 'sequences', '-o', 'json'], { env }));
        const bar = colour ? /[█▏▎▍▌▋▊▉]+/ : /#+/;
        const drawn = rows.map((r) => {
          const line = lines.find((l) => l.includes(r.name.slice(0, 10)))!;
          expect(line, `row of ${r.name}`).toBeDefined();
          return cells((line.match(bar) ?? [''])[0]);
        });
        const max = Math.max(...rows.map((r) => r.replyRate));
        const longest = Math.max(...drawn);
        expect(longest).toBeGreaterThanOrEqual(width === 80 ? 10 : 40);
        for (const [i, r] of rows.entries()) expect(Math.abs(drawn[i]! - (r.replyRate / max) * longest)).toBeLessThanOrEqual(1.01);
        const raw = await s.screen(true);
        if (colour) expect(raw).toMatch(/\x1b\[/);
        else expect(raw).not.toMatch(/\x1b\[[0-9;]*[1-9][0-9;]*m/);
      });
    }
  }

  it('the funnel and the prospect histogram fit 80 columns', async () => {
    for (const args of ['report sequence 1', 'report prospect 1', 'report mailings --by week']) {
      const s = term(args, 80, true);
      const screen = await s.waitFor(/\[exit \d+\]/);
      expect(screen, args).toMatch(/\[exit 0\]/);
      for (const l of screen.split('\n')) expect(cells(l.replace(/\s+$/, '')), `${args}: ${l}`).toBeLessThan(80); // tmux wraps at 80: a full line would be a wrapped one
      expect(screen).toMatch(/[█▏▎▍▌▋▊▉▁▂▃▄▅▆▇]/);
    }
  });
});

describe('report at 80 columns, long names (in-process)', () => {
  let own: TestSandbox;
  let ownEnv: Record<string, string>;
  beforeAll(async () => {
    const s = await sandboxWithEnv();
    own = s.sb;
    ownEnv = s.env();
  });
  afterAll(() => own?.close());

  it('cuts the long names of sequences with … so that every line fits; numbers and bars stay whole', async () => {
    const names = [
      "José's very long Q1 re-engagement campaign for EMEA enterprise accounts",
      '山田チーム・アウトバウンド 2026 第一四半期 エンタープライズ向け再エンゲージメント',
    ];
    for (const name of names) {
      const seq = json<{ id: number }>(
        await svcInProcess(['sequences', 'create', '--attr', `name=${name}`, '-o', 'json'], { env: ownEnv }),
      );
      await svcInProcess(['sequence-states', 'create', '--rel', 'prospect=1', '--rel', `sequence=${seq.id}`, '--rel', 'mailbox=1'], {
        env: ownEnv,
      });
    }
    const env = baseEnv({ ...ownEnv, NO_COLOR: '1' });
    for (const args of [
      ['report', 'sequences'],
      ['report', 'prospect', '1'],
    ]) {
      const r = await runInProcess(args, env, { columns: 80, tty: true });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.split('\n');
      for (const l of lines) expect(textWidth(l), `${args.join(' ')}: ${l}`).toBeLessThan(80);
      expect(
        lines.filter((l) => /José's very long .*… /.test(l)),
        args.join(' '),
      ).toHaveLength(1);
      expect(
        lines.filter((l) => /山田チーム.*… /.test(l)),
        args.join(' '),
      ).toHaveLength(1);
    }
    const table = (await runInProcess(['report', 'sequences'], env, { columns: 80, tty: true })).stdout;
    expect(table).toMatch(/ reply rate\n/);
    const rows = json<{ id: number; delivered: number }[]>(await svcInProcess(['report', 'sequences', '-o', 'json'], { env: ownEnv }));
    for (const r of rows) expect(table).toMatch(new RegExp(`^ +${r.id}  .*  ${r.delivered}  `, 'm'));
  });
});
