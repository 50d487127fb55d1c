/**
 * What a person at a terminal sees of long listings: `list --all` draws progress (records, total
 * from count=true, rate, ETA) on stderr even when stdout is a file, and a list that stopped at
 * the default page says there is more. Scripts (stderr not a terminal) get neither.
 *
 * The tests wait on tmux screens and the sandbox's latency side by side (describe.concurrent):
 * each terminal is a tmux server of its own with its own config dir, and the one test that reads
 * the sandbox's request log picks its own requests out by a token issued for it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { BIN, tempDir } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { sh, TmuxSession } from '../helpers/tmux.js';
import { without } from '../helpers/programs.js';
import { prospectIds } from '../helpers/bulk.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  // 3,000 prospects: the small default org's and more put straight into its store. What these
  // tests watch is the progress of pages that take the sandbox's latency, not what a record
  // holds; a demo org of 3,000 (its accounts, mailings, calls and enrolments) was seeded for it.
  ({ sb, env } = await sandboxWithEnv({ latencyMs: 120 }));
  for (let i = sb.store.table('prospect').size; i < 3000; i++)
    sb.store.insert(
      'prospect',
      { firstName: `Ada${i}`, lastName: 'Listed', title: 'CEO', emails: [`ada${i}@listed.test`] },
      {},
      { silent: true },
    );
  expect(sb.store.table('prospect').size).toBe(3000);
});
afterAll(async () => {
  for (const s of sessions) s.kill();
  await sb.close();
});

function term(command: string, height = 20, extra: Record<string, string> = {}): TmuxSession {
  const s = new TmuxSession(`${command}; echo "[exit $?]"; sleep 30`, {
    width: 120,
    height,
    env: { ...env(), SVC_CONFIG_DIR: tempDir(), TERM: 'xterm-256color', ...extra },
  });
  sessions.push(s);
  return s;
}

describe.skipIf(without('tmux', 'the terminal tests')).concurrent('on a terminal', () => {
  it('list --all with stdout to a file: progress with the total on stderr, every record in the file', async () => {
    const out = path.join(tempDir('svc-list-'), 'p.csv');
    // A token of its own: the other tests list prospects from the same sandbox meanwhile.
    const token = sb.issueToken({});
    const mark = sb.requests.length;
    const s = term(`${sh(process.execPath)} ${sh(BIN)} prospects list --all --page-size 200 -o csv > ${sh(out)}`, 20, { SVC_TOKEN: token });
    const during = await s.waitFor(/prospects list \[█*░+\] [\d,]+\/3,000 \(\d+%\) · [\d.]+ rows\/s · ETA \d+:\d\d/);
    expect(during).not.toMatch(/^id,/m); // the data went to the file
    const end = await s.waitFor(/\[exit \d+\]/);
    expect(end).toMatch(/\[exit 0\]/);
    expect(end).not.toMatch(/prospects list \[/); // the bar is cleared at the end
    expect(fs.readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(1 + prospectIds(sb).length);
    expect(received(sb, mark, 'prospects').filter((q) => q.headers['authorization'] === `Bearer ${token}`)[0]!.query.parsed).toMatchObject({
      count: 'true',
    });
  });

  it('export shows the same progress while it writes the file', async () => {
    const out = path.join(tempDir('svc-list-'), 'p.ndjson');
    const s = term(`${sh(process.execPath)} ${sh(BIN)} prospects export ${sh(out)} --page-size 200`);
    await s.waitFor(/prospects export \[█*░+\] [\d,]+\/3,000 \(\d+%\) · [\d.]+ rows\/s · ETA \d+:\d\d/);
    expect(await s.waitFor(/\[exit \d+\]/)).toMatch(/exported 3,000 prospects to .*p\.ndjson\s+\[exit 0\]/);
  });

  it('the default page says there is more: the total when counted', async () => {
    const s = term(`${sh(process.execPath)} ${sh(BIN)} prospects list --columns id,firstName`);
    expect(await s.waitFor(/\[exit \d+\]/)).toMatch(
      /first 50 shown — `--all` or `--limit N` for more \(--count for the total\)\s+\[exit 0\]/,
    );
    const c = term(`${sh(process.execPath)} ${sh(BIN)} prospects list --count -o json > /dev/null`);
    expect(await c.waitFor(/\[exit \d+\]/)).toMatch(/50 of 3,000 shown — `--all` or `--limit N` for more/);
    const asked = term(`${sh(process.execPath)} ${sh(BIN)} prospects list --limit 50 -o json > /dev/null`);
    expect(await asked.waitFor(/\[exit \d+\]/)).not.toMatch(/shown/);
  });
});

describe.concurrent('not on a terminal', () => {
  it('no progress, but the default page still says there is more: a script would miss the rest (a trial)', async () => {
    const r = await svcInProcess(['prospects', 'list', '-o', 'csv'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('first 50 shown — `--all` or `--limit N` for more (--count for the total)\n');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(51);
    const asked = await svcInProcess(['prospects', 'list', '--limit', '50', '-o', 'csv'], { env: env() });
    expect(asked.stderr).toBe('');
  });

  it('--bom starts CSV output with a byte order mark; other formats refuse it', async () => {
    const r = await svcInProcess(['prospects', 'list', '--limit', '2', '-o', 'csv', '--bom'], { env: env() });
    expect(r.stdout.startsWith('\ufeffid,')).toBe(true);
    const j = await svcInProcess(['prospects', 'list', '--bom'], { env: env() });
    expect(j.code).toBe(2);
    expect(j.stderr).toMatch(/--bom is for CSV output/);
  });
});
