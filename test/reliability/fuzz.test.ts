/**
 * Property-based fuzzing of what users type and feed: `--filter`, `--attr`, `--data`, CSV /
 * NDJSON / JSON inputs and whole command lines, a few thousand cases run through svc's real
 * entry (`runCli`) in this process against a real sandbox (test/helpers/in-process-cli.ts).
 * Every case exits 0, 1 or 2 (5 for a bulk run with failed rows) with an `error:` line when it
 * fails — never a hang, a crash, "unexpected failure" or a stack trace — and a usage error sends
 * nothing. test/reliability/fuzz-spawn.test.ts runs a smaller set as real child processes.
 *
 * Cases: SVC_FUZZ_RUNS multiplies the counts written below (unset: 0.3 of them, 720 cases, 1,200
 * before; each property still meets exit 0 and usage and API errors, the names property its usage
 * errors, as at 1,200; 1 for all 2,400; 10 for the long run); SVC_FUZZ_SEED changes the seed.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
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
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { recordStats } from '../helpers/stats.js';

let sb: TestSandbox;
let env: NodeJS.ProcessEnv;
const files = tempDir('svc-fuzz-');
const counts: Record<string, number> = {};
/** Exit codes seen per property (printed: a fuzz that only ever meets usage errors tests little). */
const codes: Record<string, Record<string, number>> = {};
beforeAll(async () => {
  ({ sb } = await sandboxWithEnv({ seed: 25 }));
  env = baseEnv({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: sb.baseUrl, SVC_AUTH_URL: sb.authUrl, SVC_TOKEN: sb.token });
});
afterAll(async () => {
  await sb.close();
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  recordStats('fuzz', {
    fuzzCases: total,
    fuzzInProcessCases: total,
    ...Object.fromEntries(Object.entries(counts).map(([k, v]) => [`fuzz:${k}`, v])),
  });
  if (process.env.SVC_RELIABILITY_STATS)
    console.log(`fuzz (in process): ${total} cases; exit codes per property: ${JSON.stringify(codes)}`);
});

const runs = (n: number) => Math.max(1, Math.round(n * FUZZ_SCALE));

/**
 * Runs a property over argv arrays; fails with the shrunk case and what went wrong. `lookups`:
 * the command lines whose usage errors may follow read-only lookups (never a write).
 */
async function fuzz<T>(
  name: string,
  arb: fc.Arbitrary<T>,
  n: number,
  toArgv: (v: T) => string[],
  allowed?: (argv: string[]) => number[],
  lookups?: (argv: string[]) => boolean,
) {
  counts[name] = 0;
  await fc.assert(
    fc.asyncProperty(arb, async (v) => {
      const argv = toArgv(v);
      const mark = sb.requests.length;
      const r = await runInProcess(argv, env);
      counts[name]!++;
      const c = (codes[name] ??= {});
      c[String(r.code)] = (c[String(r.code)] ?? 0) + 1;
      // --verbose may show a stack; `-v` can hide in a cluster of short flags (`-vG9`).
      const verbose = argv.some((a) => a === '--verbose' || /^-[A-Za-z]*v/.test(a));
      const problem = violation(r, { sent: sentSince(sb.requests, mark, lookups?.(argv)), allowed: allowed?.(argv), verbose });
      if (problem) throw new Error(`${problem}\nargv: ${JSON.stringify(argv)}\nexit: ${r.code}\nstderr:\n${r.stderr.slice(0, 2000)}`);
    }),
    { numRuns: runs(n), seed: FUZZ_SEED, endOnFailure: true },
  );
}

let fileNo = 0;
function writeInput(f: { name: string; text: string }): string {
  const dir = path.join(files, String(++fileNo));
  fs.mkdirSync(dir);
  const p = path.join(dir, f.name);
  fs.writeFileSync(p, f.text);
  return p;
}

const resource = fc.constantFrom('prospects', 'accounts', 'sequence-states', 'tasks');

describe('fuzzing through runCli', () => {
  it('--filter expressions', { timeout: 120_000 }, async () => {
    await fuzz(
      'filter',
      fc.tuple(resource, fc.array(filterExpr, { minLength: 1, maxLength: 3 }), fc.boolean()),
      500,
      ([r, exprs, newSyntax]) => [
        r,
        'list',
        ...exprs.flatMap((e) => ['--filter', e]),
        ...(newSyntax ? ['--new-filter-syntax'] : []),
        '--limit',
        '2',
        '-o',
        'json',
      ],
    );
  });

  it('--attr flags on create and update (half of them --dry-run)', { timeout: 120_000 }, async () => {
    await fuzz(
      'attr',
      fc.tuple(
        fc.constantFrom(['prospects', 'create'], ['prospects', 'update', '3'], ['accounts', 'create'], ['accounts', 'update', '2']),
        fc.array(attrFlag, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
      ),
      400,
      ([cmd, attrs, dry]) => [...cmd, ...attrs.flatMap((a) => ['--attr', a]), ...(dry ? ['--dry-run'] : []), '-o', 'json'],
    );
  });

  it('--data documents, inline and @file', { timeout: 120_000 }, async () => {
    await fuzz(
      'data',
      fc.tuple(
        fc.constantFrom(['prospects', 'create'], ['accounts', 'update', '2'], ['api', 'POST', 'accounts'], ['api', 'PATCH', 'prospects/4']),
        dataArg,
        fc.boolean(),
      ),
      400,
      // `-` reads stdin, which this process does not feed: fuzz-spawn.test.ts pipes it.
      ([cmd, data, asFile]) => [
        ...cmd,
        '--data',
        asFile ? `@${writeInput({ name: 'data.json', text: data })}` : data === '-' ? '-x' : data,
      ],
    );
  });

  it('CSV, NDJSON and JSON inputs of bulk runs (dry runs and real ones)', { timeout: 180_000 }, async () => {
    await fuzz(
      'input',
      fc.tuple(
        fc.constantFrom('create', 'update', 'delete', 'enroll-id', 'enroll-email'),
        inputFile,
        fc.constantFrom('--dry-run', '--strict', 'real'),
      ),
      300,
      ([op, file, mode]) => {
        const p = writeInput(file);
        const how = mode === 'real' ? [] : [mode];
        if (op.startsWith('enroll'))
          return ['enroll', '--sequence', '1', '--mailbox', '1', '--input', p, '--by', op === 'enroll-id' ? 'id' : 'email', ...how];
        return ['prospects', op, '--input', p, '--yes', ...how];
      },
      (argv) => (argv.includes('--dry-run') || argv.includes('--strict') ? [0, 1, 2, 5] : [0, 1, 2, 5]),
      // --strict refuses rows whose prospect the lookups did not find (exit 2, nothing enrolled).
      (argv) => argv[0] === 'enroll' && argv.includes('--strict'),
    );
  });

  it('command lines: command names, options, near misses and junk', { timeout: 180_000 }, async () => {
    await fuzz('command', commandLine, 600, (argv) => argv);
  });

  it('junk as the resource command and its operation', { timeout: 60_000 }, async () => {
    await fuzz('names', fc.tuple(junk(16), junk(16)), 200, ([a, b]) => [a, b].filter((x) => !/^(login|sandbox|-)$/.test(x)));
  });
});
