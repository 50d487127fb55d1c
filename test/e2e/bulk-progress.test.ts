/**
 * Progress of a bulk run: a bar redrawn in place on a terminal (tmux), plain periodic lines when
 * stderr is not a terminal, and data (the report on `--report -`) alone on stdout.
 *
 * The two runs go at once (describe.concurrent), each into a sequence of its own with prospects
 * of its own (split before either starts: a run that is enrolling changes which are free).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runSvc, tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { sh, TmuxSession } from '../helpers/tmux.js';
import { requireProgram, without } from '../helpers/programs.js';
import { freeProspects, inputFile, newSequence } from '../helpers/bulk.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
const sessions: TmuxSession[] = [];
/** Free prospects for the two runs: the terminal's 120, then the other's 60. */
let free: number[];

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 300, latencyMs: 25 }));
  free = freeProspects(sb, 180);
});
afterAll(async () => {
  for (const s of sessions) s.kill();
  await sb.close();
});

async function job(ids: number[]) {
  const seq = await newSequence(sb);
  const file = inputFile('ids.csv', 'id\n' + ids.join('\n') + '\n');
  // --yes: on a terminal enroll would otherwise ask before its first write.
  return ['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--concurrency', '2', '--yes'];
}

describe.concurrent('progress', () => {
  it.skipIf(without('tmux', 'the progress-bar test'))(
    'on a terminal: one line redrawn with bar, count, rate, ETA; cleared at the end',
    async () => {
      requireProgram('tmux');
      const args = await job(free.slice(0, 120));
      const s = new TmuxSession(`${sh(process.execPath)} ${sh(BIN)} ${args.map(sh).join(' ')}; echo "[exit $?]"; sleep 30`, {
        width: 110,
        env: { ...env(), SVC_CONFIG_DIR: tempDir(), TERM: 'xterm-256color' },
      });
      sessions.push(s);
      const during = await s.waitFor(/enroll \[█+░+\] \d+\/120 \(\d+%\) · [\d.]+ rows\/s · ETA \d+:\d\d/);
      // Redrawn in place: a single progress line on the screen, not one per update.
      expect(
        during.split('\n').filter((l) => l.includes('rows/s')),
        during,
      ).toHaveLength(1);
      const end = await s.waitFor(/\[exit 0\]/);
      expect(end).toMatch(/enroll: 120 created \(120 of 120 rows in [\d.]+ s\)/);
      expect(end).not.toMatch(/rows\/s/);
    },
  );

  it('off a terminal: plain periodic lines on stderr; the report alone on stdout', async () => {
    const args = await job(free.slice(120));
    const r = await runSvc([...args, '--report', '-'], { env: { ...env(), SVC_PROGRESS_INTERVAL: '0.2' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('progress: '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(/^progress: enroll: \d+\/60 \(\d+%\) · [\d.]+ rows\/s/);
    expect(r.stderr).not.toMatch(/\x1b|\r/);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out).toHaveLength(60);
    expect(out.every((l) => l.status === 'created')).toBe(true);
  });
});
