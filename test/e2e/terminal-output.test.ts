/**
 * Output in a real terminal (tmux, `script`): the spinner shows while a slow listing is fetched,
 * and what is left on the screen is the data exactly as a pipe gets it — no spinner residue
 * before the first line, no line of data erased. A terminal that reports zero columns (`script`,
 * `docker exec -t`) gets no spinner and the command ends at once. A bulk run's `--report -` on
 * the terminal of its progress bar gets clean lines.
 *
 * Time: every answer takes 0.7 s (so the spinner draws); the tests touch different records, each
 * in its own terminal, so they wait side by side (describe.concurrent).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputFile } from '../helpers/bulk.js';
import { baseEnv, BIN, runSvc, type SvcResult, tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { sh, TmuxSession } from '../helpers/tmux.js';

let sb: TestSandbox;
let env: Record<string, string>;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  // Slow enough answers that the spinner draws frames before the data comes.
  const s = await sandboxWithEnv({ seed: 31, latencyMs: 700 });
  sb = s.sb;
  env = { ...s.env(), SVC_CONFIG_DIR: tempDir(), TERM: 'xterm-256color', NO_COLOR: '' };
});
afterAll(async () => {
  for (const s of sessions) s.kill();
  await sb.close();
});

/** Runs svc in a terminal of the given size; `stty` first sets what the terminal reports. */
function term(args: string, opts: { width?: number; stty?: string } = {}): TmuxSession {
  const stty = opts.stty ? `stty ${opts.stty}; ` : '';
  // `timeout`: a spinner that runs away must not outlive the test.
  const s = new TmuxSession(
    `unset NO_COLOR CI; ${stty}timeout -s KILL 20 ${sh(process.execPath)} ${sh(BIN)} ${args}; echo "[exit $?]"; sleep 30`,
    {
      width: opts.width ?? 100,
      height: 60,
      env,
    },
  );
  sessions.push(s);
  return s;
}

/** The screen above the `[exit N]` line, trailing blanks trimmed (what the terminal shows of the output). */
function output(screen: string): string {
  const lines = screen.split('\n');
  const end = lines.findIndex((l) => /^\[exit \d+\]/.test(l));
  return (
    lines
      .slice(0, end)
      .map((l) => l.trimEnd())
      .join('\n') + '\n'
  );
}

const ARGS = 'prospects list --limit 2 --fields firstName -o json';

/**
 * What a pipe gets of ARGS: one run of the built bin/svc, its stdout a pipe, shared by the four
 * tests that compare a terminal's output with it (a listing that reads only: a run per test gave the same bytes four times).
 */
let piping: Promise<SvcResult> | undefined;
const pipedOutput = () => (piping ??= runSvc(ARGS.split(' '), { env }));

describe.concurrent('spinner', () => {
  it('shows while fetching, then leaves exactly the data on the screen: valid JSON, identical to a pipe', async () => {
    const piped = await pipedOutput();
    expect(piped.code, piped.stderr).toBe(0);
    const s = term(ARGS);
    await s.waitFor(/Fetching prospects…/);
    const screen = await s.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/\[exit 0\]/);
    const shown = output(screen);
    expect(() => JSON.parse(shown), shown).not.toThrow();
    expect(JSON.parse(shown)).toEqual(JSON.parse(piped.stdout));
    expect(shown).toBe(piped.stdout);
    expect(screen).not.toMatch(/Fetching|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  });

  it('a terminal that reports zero columns: no spinner, the listing ends in seconds with the data intact', async () => {
    const piped = await pipedOutput();
    const started = Date.now();
    const s = term(ARGS, { stty: 'cols 0 rows 0' });
    const screen = await s.waitFor(/\[exit \d+\]/, 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(screen).toMatch(/\[exit 0\]/);
    expect(screen).not.toMatch(/Fetching|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(JSON.parse(output(screen))).toEqual(JSON.parse(piped.stdout));
  });
});

/** Runs svc under `script` (a pty whose size is what `stty` sets, 0×0 by default); returns every byte the terminal got. */
function underScript(args: string, stty = ''): Promise<{ code: number | null; raw: string; ms: number }> {
  const started = Date.now();
  const cmd = `${stty ? `stty ${stty}; ` : ''}exec timeout -s KILL 20 ${sh(process.execPath)} ${sh(BIN)} ${args}`;
  const child = spawn('script', ['-q', '-e', '-c', cmd, '/dev/null'], {
    // CI is unset as in a user's terminal: under CI the spinner is off by design.
    env: { ...baseEnv(env), NO_COLOR: undefined, CI: undefined } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let raw = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (raw += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, raw, ms: Date.now() - started });
    });
  });
}

/** A spinner frame (`\r⠋ text\e[K`) or its erasure (`\r\e[K`): what the spinner may write, nothing else. */
const SPINNER = /\r(?:[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [^\r\n\x1b]*)?\x1b\[K/g;

describe.concurrent('spinner, byte by byte (script)', () => {
  it('the terminal gets the data as a pipe does, plus spinner frames that are all erased', async () => {
    const piped = await pipedOutput();
    const r = await underScript(ARGS, 'cols 80 rows 24');
    expect(r.code).toBe(0);
    expect(r.raw).toMatch(/⠋ Fetching prospects…/);
    // The tty turns \n into \r\n; the spinner's own sequences are all that is added.
    expect(r.raw.replace(SPINNER, '').replace(/\r\n/g, '\n')).toBe(piped.stdout);
  });

  it("script's own 0×0 terminal: not one escape code, and the command ends at once", async () => {
    const piped = await pipedOutput();
    const r = await underScript(ARGS);
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(10_000);
    expect(r.raw).not.toMatch(/\x1b/);
    expect(r.raw.replace(/\r\n/g, '\n')).toBe(piped.stdout);
  });
});

describe.concurrent('bulk progress bar and --report - on one terminal', () => {
  it('every report line stands alone on its line: no bar in front of it', async () => {
    const rows = [1, 2, 3, 4].map((id) => JSON.stringify({ id, title: `Shown ${id}` })).join('\n') + '\n';
    const file = inputFile('shown.ndjson', rows);
    const s = term(`prospects update --input ${sh(file)} --report - --concurrency 1`, { width: 120 });
    const screen = await s.waitFor(/\[exit \d+\]/, 20_000);
    expect(screen).toMatch(/\[exit 0\]/);
    const lines = screen.split('\n').filter((l) => l.includes('"row"'));
    expect(lines, screen).toHaveLength(4);
    for (const l of lines) expect(l.trimEnd(), screen).toMatch(/^\{"row":\d,"status":"updated","id":\d,"error":null\}$/);
    expect(screen).not.toMatch(/rows\/s/);
  });

  it("script's 0×0 terminal: no bar drawn at a width it cannot know; plain lines, clean report", async () => {
    const rows = [5, 6].map((id) => JSON.stringify({ id, title: `Plain ${id}` })).join('\n') + '\n';
    const file = inputFile('plain.ndjson', rows);
    const r = await underScript(`prospects update --input ${sh(file)} --report - --concurrency 1`);
    expect(r.code, r.raw).toBe(0);
    expect(r.raw).not.toMatch(/\x1b/);
    expect(r.raw.split('\r\n').filter((l) => l.startsWith('{'))).toEqual([
      '{"row":1,"status":"updated","id":5,"error":null}',
      '{"row":2,"status":"updated","id":6,"error":null}',
    ]);
  });
});
