/**
 * Bulk runs killed with SIGKILL at seeded random points, then rerun until they finish: every
 * row is done exactly once — no duplicate sequence state and none missing, no prospect created
 * twice — even though the server carries out requests whose answers the killed run never read.
 * The sandbox is set to allow duplicates, so only the CLI stands between a rerun and a duplicate.
 *
 * The enrolment is killed three times for each of `SVC_BULK_KILL_SEEDS` seeds (1..N; 2 by
 * default: six kill points, each run killed with rows left; 3 before, the figure; more
 * for a longer hunt). Each killed run is a bin/svc; the last run of each scenario, the one that
 * finishes, runs in process.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { spawnSvc } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { freeProspects, inputFile, newSequence, prng, stateProspects } from '../helpers/bulk.js';
import { killAtRequest } from '../helpers/trials.js';

/** Seeds of the enrolment's kill points (header). */
const SEEDS = Array.from({ length: Number(process.env['SVC_BULK_KILL_SEEDS'] ?? 2) }, (_, i) => i + 1);

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 400, latencyMs: 8 }));
});
afterAll(() => sb.close());

/** Runs svc and kills it with SIGKILL once the sandbox has received `after` more matching POSTs. */
async function killAfter(args: string[], after: number, path: string): Promise<{ killed: boolean; code: number | null }> {
  const child = spawnSvc(args, { env: env() });
  const ended = await killAtRequest(child, sb.requests, (q) => q.method === 'POST' && q.path === path, after);
  return { killed: ended.interrupted, code: ended.code };
}

describe('SIGKILL at random points, then rerun', () => {
  it.each(SEEDS)('enroll, seed %i: every prospect in the sequence exactly once', async (seed) => {
    const rnd = prng(seed);
    const seq = await newSequence(sb, { permitDuplicateProspects: 'allow' });
    const ids = freeProspects(sb, 70);
    const file = inputFile('ids.csv', 'id\n' + ids.join('\n') + '\n');
    // A short settle window: a pending row not yet among the states is watched that long.
    const args = ['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--concurrency', '8', '--settle', '1'];
    let kills = 0;
    for (let i = 0; i < 3; i++) {
      const left = ids.length - new Set(stateProspects(sb, seq)).size;
      const r = await killAfter(args, 1 + Math.floor(rnd() * Math.max(1, left - 1) * 0.6), '/api/v2/sequenceStates');
      if (r.killed) kills++;
      if (i === 1) fs.appendFileSync(`${file}.journal.ndjson`, '{"key":"torn-by-kill","row":'); // a write cut short
    }
    expect(kills).toBeGreaterThanOrEqual(2);
    // A kill can leave a row pending whose request never left: the last run may send it again
    // (after looking it up), which the user asks for with --resend-unconfirmed.
    const last = await svcInProcess([...args, '--resend-unconfirmed'], { env: env() });
    expect(last.code, last.stderr).toBe(0);
    expect(stateProspects(sb, seq)).toEqual([...ids].sort((a, b) => a - b));
  });

  it('prospects create: no record created twice across kills (pending rows are looked up first)', async () => {
    const rnd = prng(42);
    const rows = Array.from({ length: 100 }, (_, i) => ({ firstName: `K${i}`, lastName: 'Kill', emails: [`k${i}@kill.test`] }));
    const file = inputFile('new.ndjson', rows.map((r) => JSON.stringify(r)).join('\n'));
    const args = ['prospects', 'create', '--input', file, '--concurrency', '8', '--settle', '1'];
    for (let i = 0; i < 3; i++) await killAfter(args, 5 + Math.floor(rnd() * 25), '/api/v2/prospects');
    const last = await svcInProcess([...args, '--resend-unconfirmed', '--report', `${file}.report`], { env: env() });
    expect(last.code, last.stderr).toBe(0);
    const made = [...sb.store.table('prospect').values()].filter((p) => p.attributes['lastName'] === 'Kill');
    const emails = made.map((p) => (p.attributes['emails'] as string[])[0]!).sort();
    expect(emails).toEqual(rows.map((r) => r.emails[0]!).sort());
  });
});
