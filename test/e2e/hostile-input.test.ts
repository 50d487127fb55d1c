/**
 * Hostile or broken local input and surroundings: deeply nested JSON, a damaged config file or
 * sandbox data file, a journal that is not a file, a full disk (`/dev/full`), an enormous CSV
 * cell, Ctrl-C at a prompt, and an include beyond the token's scopes. Each ends in one `error:`
 * line with the exit code of the contract, never "unexpected failure" or a stack trace.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanFailure, expectNoCrash } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { BIN, baseEnv, ROOT, tempDir, type SvcResult } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { sh, TmuxSession } from '../helpers/tmux.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 10 }));
});
afterAll(() => sb.close());

/** `[[[…1…]]]` nested `depth` times, as text (building it as a value would overflow first). */
function deepArray(depth: number): string {
  return '['.repeat(depth) + '1' + ']'.repeat(depth);
}

/** Requests since `mark` whose query or body holds `marker` (tests run concurrently against one sandbox). */
function sentWith(mark: number, marker: string) {
  return received(sb, mark).filter((r) => r.query.raw.includes(marker) || r.body.includes(marker));
}

function file(name: string, content: string): string {
  const f = path.join(tempDir(), name);
  fs.writeFileSync(f, content);
  return f;
}

/** Runs svc with stdout going to `/dev/full` (every write fails with ENOSPC). */
function runToFullDisk(args: string[], extraEnv: Record<string, string>): Promise<SvcResult> {
  return new Promise((resolve) => {
    const out = fs.openSync('/dev/full', 'w');
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: baseEnv(extraEnv), stdio: ['ignore', out, 'pipe'] });
    fs.closeSync(out);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code, signal) => resolve({ code, signal, stdout: '', stderr }));
  });
}

describe.concurrent('deeply nested JSON', () => {
  it('--data nested 20,000 levels: exit 2 naming the limit, nothing sent', async () => {
    const mark = sb.requests.length;
    const data = file('deep.json', `{"data":{"type":"prospect","attributes":{"firstName":"DeepData","tags":${deepArray(20_000)}}}}`);
    for (const args of [
      ['prospects', 'create', '--data', `@${data}`],
      ['api', 'POST', '/prospects', '--data', `@${data}`],
    ]) {
      const r = await svcInProcess(args, { env: env() });
      expectCleanFailure(r, 2, /^error: --data \(.*deep\.json\): nested deeper than 100 levels$/);
    }
    expect(sentWith(mark, 'DeepData')).toHaveLength(0);
  });

  it('an input row nested 20,000 levels is one invalid row (NDJSON and JSON array)', async () => {
    const row = `{"firstName":"Deep","tags":${deepArray(20_000)}}`;
    for (const [name, text] of [
      ['deep.ndjson', `${row}\n`],
      ['deep.json', `[${row}]`],
    ] as const) {
      const input = file(name, text);
      const report = path.join(tempDir(), 'report.ndjson');
      const r = await svcInProcess(['prospects', 'create', '--input', input, '--report', report], { env: env() });
      expectNoCrash(r);
      expect(r.code, r.stderr).toBe(5);
      expect(JSON.parse(fs.readFileSync(report, 'utf8'))).toMatchObject({
        row: 1,
        status: 'failed',
        error: expect.stringContaining('nested deeper than 100 levels'),
      });
    }
  });
});

describe.concurrent('damaged files', () => {
  it('a config file that is not JSON: exit 2 naming the file, what to do, nothing sent', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'config.json'), '{"profiles": {', { mode: 0o600 });
    const mark = sb.requests.length;
    for (const args of [
      ['prospects', 'list', '--filter', 'title=DamagedConfig'],
      ['auth', 'status'],
      ['profiles', 'list'],
    ]) {
      const r = await svcInProcess(args, { env: { ...env(), SVC_CONFIG_DIR: dir, ...(args[0] === 'prospects' ? {} : { SVC_TOKEN: '' }) } });
      expectCleanFailure(r, 2, /^error: config file .*config\.json is damaged \(/);
      expect(r.stderr).toMatch(/hint: fix it, or move it away/);
    }
    expect(sentWith(mark, 'DamagedConfig')).toHaveLength(0);
  });

  it('a sandbox data file that is not JSON: exit 2 for `svc sandbox --data` and `svc --sandbox`', async () => {
    const dataFile = file('org.json', '{"version":1,"store":');
    // Refused before a server starts, in the test process (sandbox-command.test.ts runs the binary's).
    const r = await svcInProcess(['sandbox', '--data', dataFile], { env: { SVC_CONFIG_DIR: tempDir() }, timeoutMs: 10_000 });
    expectCleanFailure(r, 2, /^error: sandbox data file .*org\.json is damaged \(not valid JSON/);
    expect(r.stderr).toMatch(/hint: repair it, or move it away to start a fresh org/);
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'data', 'sandbox-org.json'), '{"version":1,"org":{},"store":{"tables":7},"auth":{}}');
    const inProcess = await svcInProcess(['--sandbox', 'prospects', 'list'], { env: { SVC_CONFIG_DIR: dir }, timeoutMs: 10_000 });
    expectCleanFailure(inProcess, 2, /^error: sandbox data file .*sandbox-org\.json is damaged/);
  });

  it('--journal naming a directory or a device: exit 2 before anything is sent', async () => {
    const input = file('in.csv', 'firstName\nJournalNotAFile1\nJournalNotAFile2\n');
    const mark = sb.requests.length;
    for (const [journal, what] of [
      [tempDir(), 'is a directory'],
      ['/dev/full', 'is not a regular file'],
    ] as const) {
      const r = await svcInProcess(['prospects', 'create', '--input', input, '--journal', journal], { env: env(), timeoutMs: 15_000 });
      expect(r.code, r.stderr).toBe(2);
      expectNoCrash(r);
      expect(r.stderr).toContain(`error: --journal ${journal}: ${what}; the journal must be a file`);
    }
    expect(sentWith(mark, 'JournalNotAFile')).toHaveLength(0);
  });
});

describe.concurrent('a full disk', () => {
  it('--report /dev/full: one error naming the report and the cause, exit 1', async () => {
    const input = file('in.csv', 'firstName\nFull1\nFull2\n');
    const r = await svcInProcess(['prospects', 'create', '--input', input, '--report', '/dev/full'], { env: env() });
    expectNoCrash(r);
    expect(r.code, r.stderr).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toEqual(['error: --report /dev/full: cannot write the report: no space left on device (ENOSPC)']);
  });

  it('stdout on a full disk: one error line, exit 1, for a list and a get', async () => {
    for (const args of [
      ['prospects', 'list'],
      ['prospects', 'get', '1', '-o', 'table'],
    ]) {
      const r = await runToFullDisk(args, env());
      expectCleanFailure(r, 1, /^error: cannot write the output: no space left on device \(ENOSPC\)$/);
    }
  });
});

describe('CSV caps', () => {
  it('a 40 MB cell stops at once with the cap in the message (exit 2, nothing sent)', async () => {
    const input = path.join(tempDir(), 'huge.csv');
    fs.writeFileSync(input, `firstName,title\nHugeCell,"${'x'.repeat(40 * 1024 * 1024)}"\n`);
    const mark = sb.requests.length;
    const started = Date.now();
    const r = await svcInProcess(['prospects', 'create', '--input', input], { env: env() });
    expect(Date.now() - started).toBeLessThan(10_000);
    expectCleanFailure(
      r,
      2,
      /^error: --input .*huge\.csv: a cell is longer than 1,000,000 characters, the cap on one cell .*\(in row 1\)$/,
    );
    expect(sentWith(mark, 'HugeCell')).toHaveLength(0);
    // An unclosed quote makes the rest of the file one cell: the message says so.
    const open = file('open.csv', `firstName,title\nB,"${'y'.repeat(1_100_000)}\nC,z\n`);
    const r2 = await svcInProcess(['prospects', 'create', '--input', open], { env: env() });
    expectCleanFailure(r2, 2, /a cell is longer than .* \(is a quote left open\?\)/);
  });
});

describe('include and scopes', () => {
  it('a prospects.read token cannot read accounts through --include account (exit 4, the scope named)', async () => {
    const token = sb.issueToken({ scopes: ['prospects.read'] });
    const withAccount = [...sb.store.table('prospect').values()].find((p) => p.rels['account'])!;
    const r = await svcInProcess(['prospects', 'get', String(withAccount.id), '--include', 'account', '--json'], {
      env: { ...env(), SVC_TOKEN: token },
    });
    expectCleanFailure(r, 4, /^error: Unauthorized OAuth Scope: .*accounts\.read/);
    expect(r.stdout).toBe('');
    const plain = await svcInProcess(['prospects', 'get', String(withAccount.id), '--json'], { env: { ...env(), SVC_TOKEN: token } });
    expect(plain.code, plain.stderr).toBe(0);
  });
});

describe('Ctrl-C at a prompt', () => {
  it('at the delete confirmation: exit 130, "interrupted", nothing deleted', async () => {
    const e = env();
    const s = new TmuxSession(`${sh(process.execPath)} ${sh(BIN)} prospects delete 3; echo "[exit $?]"; sleep 30`, {
      env: { ...e, NO_COLOR: '1' },
    });
    try {
      await s.waitFor(/Delete prospect 3\?/);
      s.send('C-c');
      const screen = await s.waitFor(/\[exit \d+\]/);
      expect(screen).toContain('[exit 130]');
      expect(screen).toMatch(/error: interrupted/);
      expect(screen).not.toMatch(/unexpected failure|force closed/);
      expect(sb.store.get('prospect', 3)).toBeDefined();
    } finally {
      s.kill();
    }
  });

  it('at the login prompt for the client id: exit 130, nothing stored', async () => {
    const dir = tempDir();
    const s = new TmuxSession(`${sh(process.execPath)} ${sh(BIN)} login --no-browser --port 0; echo "[exit $?]"; sleep 30`, {
      env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sb.baseUrl, SVC_AUTH_URL: sb.authUrl, NO_COLOR: '1' },
    });
    try {
      await s.waitFor(/OAuth client id/);
      s.send('C-c');
      const screen = await s.waitFor(/\[exit \d+\]/);
      expect(screen).toContain('[exit 130]');
      expect(screen).not.toMatch(/unexpected failure|force closed/);
      expect(fs.existsSync(path.join(dir, 'config.json')) ? fs.readFileSync(path.join(dir, 'config.json'), 'utf8') : '').not.toContain(
        'accessToken',
      );
    } finally {
      s.kill();
    }
  });
});
