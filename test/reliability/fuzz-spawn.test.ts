/**
 * The fuzz generators of fuzz.test.ts, fed to the built `bin/svc` as real child processes: what
 * the in-process run cannot show — stdin (`--data -`, `webhooks verify … -`), the process's own
 * exit code, main.ts's last-resort handler, a reader that closes the pipe early. Fewer cases
 * (each costs a Node start); the same rules: exit 0, 1 or 2 (5 for bulk runs) with an `error:`
 * line on failure, never a crash, a hang, a signal or a stack trace, usage errors send nothing.
 *
 * Cases: unset, 12 processes, the six kinds of case in turn (two of each: 20 before, each kind 2
 * to 7 times as it fell, ~0.2 CPU-s a case); SVC_FUZZ_RUNS multiplies the 40 written below (1 for
 * all 40, 10 for the long run); SVC_FUZZ_SEED changes the seed.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  attrFlag,
  commandLine,
  dataArg,
  filterExpr,
  FUZZ_SCALE,
  FUZZ_SEED,
  inputFile,
  junk,
  sentSince,
  violation,
} from '../helpers/fuzz.js';
import { runSvc, spawnSvc, tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { recordStats } from '../helpers/stats.js';

let sb: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  ({ sb } = await sandboxWithEnv({ seed: 25 }));
  env = { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: sb.baseUrl, SVC_AUTH_URL: sb.authUrl, SVC_TOKEN: sb.token };
});
afterAll(() => sb.close());

/** Unset, 12 cases: two of each kind (below); SVC_FUZZ_RUNS=1 gives the 40 written here. */
const CASES = process.env.SVC_FUZZ_RUNS ? Math.max(12, Math.round(40 * FUZZ_SCALE)) : 12;
const files = tempDir('svc-fuzz-spawn-');
/** argv cannot carry NUL: the OS would refuse to start the process. */
const argSafe = (s: string) => s.replace(/\0/g, '');

interface Case {
  argv: string[];
  stdin?: string;
  bulk?: boolean;
}

let n = 0;
function file(f: { name: string; text: string }): string {
  const dir = path.join(files, String(++n));
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, f.name), f.text);
  return path.join(dir, f.name);
}

/** The six kinds of case; the cases take them in turn, so each is met however few the cases. */
const kinds: fc.Arbitrary<Case>[] = [
  fc
    .tuple(fc.constantFrom('prospects', 'accounts'), filterExpr)
    .map(([r, e]): Case => ({ argv: [r, 'list', '--filter', e, '--limit', '2'] })),
  fc
    .array(attrFlag, { minLength: 1, maxLength: 3 })
    .map((a): Case => ({ argv: ['prospects', 'create', ...a.flatMap((x) => ['--attr', x]), '--dry-run'] })),
  fc
    .tuple(fc.constantFrom(['prospects', 'create'], ['api', 'POST', 'accounts']), dataArg)
    .map(([cmd, d]): Case => ({ argv: [...cmd, '--data', '-'], stdin: d })),
  fc
    .tuple(junk(40), fc.constantFrom('00', 'zz', 'a'.repeat(64)))
    .map(([body, sig]): Case => ({ argv: ['webhooks', 'verify', '--secret', 's3cret', '--signature', sig, '-'], stdin: body })),
  fc
    .tuple(fc.constantFrom('create', 'update', 'delete'), inputFile)
    .map(([op, f]): Case => ({ argv: ['prospects', op, '--input', file(f), '--yes'], bulk: true })),
  commandLine.map((argv): Case => ({ argv })),
];

/** `n` cases, the kinds in turn (each kind's own sample, from the seed and the kind's place). */
function sampleCases(n: number): Case[] {
  const per = Math.ceil(n / kinds.length);
  const byKind = kinds.map((k, i) => fc.sample(k, { numRuns: per, seed: FUZZ_SEED + i }));
  return Array.from({ length: n }, (_, j) => byKind[j % kinds.length]![Math.floor(j / kinds.length)]!);
}

describe('fuzzed command lines as child processes', () => {
  it(`${CASES} cases`, { timeout: 30_000 + CASES * 1_000 }, async () => {
    const all = sampleCases(CASES);
    const problems: string[] = [];
    // Four at a time: requests cannot be told apart by case, so "sent nothing" is checked by
    // the next test, which runs its usage errors one by one.
    let next = 0;
    const worker = async () => {
      while (next < all.length) {
        const c = all[next++]!;
        const argv = c.argv.map(argSafe);
        const r = await runSvc(argv, { env, input: c.stdin ?? '', timeoutMs: 20_000 });
        const verbose = argv.some((a) => a === '--verbose' || /^-[A-Za-z]*v/.test(a));
        const problem = violation({ ...r, hung: r.signal === 'SIGKILL' }, { sent: 0, allowed: c.bulk ? [0, 1, 2, 5] : [0, 1, 2], verbose });
        if (problem) problems.push(`${problem}\nargv: ${JSON.stringify(argv)}\nexit: ${r.code}\nstderr:\n${r.stderr.slice(0, 1500)}`);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    recordStats('fuzz-spawn', { fuzzCases: all.length, fuzzChildProcessCases: all.length });
    expect(problems).toEqual([]);
  });

  it('usage errors from real processes send nothing', async () => {
    // One of each kind (6 drawn from the three before, as they fell): a usage error's "nothing
    // sent" is checked by the thousand in process (fuzz.test.ts); here, that a process exits 2 on it.
    const usage = [
      filterExpr.map((e) => ['prospects', 'list', '--filter', `contactHistogram=${argSafe(e)}`]),
      attrFlag.map((a) => ['prospects', 'create', '--attr', `createdAt=${argSafe(a)}`]),
      junk(10).map((j) => ['prospects', 'get', `x${argSafe(j)}`]),
    ].flatMap((kind, i) => fc.sample(kind, { numRuns: 1, seed: FUZZ_SEED + i }));
    for (const argv of usage) {
      const mark = sb.requests.length;
      const r = await runSvc(argv, { env });
      expect(violation(r, { sent: sentSince(sb.requests, mark) }), `${JSON.stringify(argv)}\n${r.stderr}`).toBeUndefined();
      expect(r.code, r.stderr).toBe(2);
    }
  });

  it('a reader that closes the pipe early (`svc … | head -1`) ends svc quietly', async () => {
    const child = spawnSvc(['prospects', 'list', '--all', '-o', 'ndjson'], { env });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout!.once('data', () => child.stdout!.destroy());
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });
});
