/**
 * A bulk run stopped in the middle, and the undo of the creates it left in doubt — in-process
 * against the sandbox over HTTP (the SIGTERM of a spawned bin/svc is in
 * test/reliability/interrupt-bulk.test.ts).
 *
 * The rows a run reads ahead (a page of 100 for their before-images) but never sends are not in
 * its record: they were all recorded as maybe sent, and a run stopped after 755 rows with
 * --concurrency 1 said "755 created, 45 cut short", whose undo failed on each of the 45, exit 5 (a
 * new user's trial). A create that may truly have been done without an answer is looked up by
 * the undo, as a rerun's settle lookup does: found, deleted; not found, nothing to undo; several
 * found, never guessed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRunRecord, RunRecordWriter, runsDir, type RowLine, type RunMeta } from '../../src/bulk/run/run-record.js';
import { call, enrollDirect, inputFile, ndjson, newSequence } from '../helpers/bulk.js';
import { onRecorded } from '../helpers/trials.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: NodeJS.ProcessEnv;
let dir: string;
beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 5, latencyMs: 3 });
  sb = s.sb;
  env = baseEnv(s.env());
  dir = runsDir(path.join(env.SVC_CONFIG_DIR!, 'data'));
});
afterAll(() => sb?.close());

const svc = (args: string[], signal?: AbortSignal) => runInProcess(args, env, { timeoutMs: 60_000, ...(signal ? { signal } : {}) });
const posts = () => sb.requests.filter((r) => r.method === 'POST' && r.path === '/api/v2/prospects').length;
const byEmail = (email: string) =>
  [...sb.store.table('prospect').values()].filter((p) => (p.attributes['emails'] as string[] | null)?.includes(email)).map((p) => p.id);

/** The meta line of the stopped run: its org, to write records of runs in doubt in. */
let meta: RunMeta;

it('a run stopped after 5 of 150 rows with --concurrency 1 records the rows it sent, each with its outcome, and no other', async () => {
  const rows = Array.from({ length: 150 }, (_, i) => `S${i},Stopped,s${i}@stopped.test`);
  const file = inputFile('stopped.csv', `firstName,lastName,email\n${rows.join('\n')}\n`);
  const stop = new AbortController();
  const start = posts();
  const disarm = onRecorded(sb.requests)(() => {
    if (posts() - start >= 5) stop.abort();
    return stop.signal.aborted;
  });
  const r = await svc(['prospects', 'create', '--input', file, '--concurrency', '1'], stop.signal);
  disarm();
  expect(r.code, r.stderr).toBe(130);
  const sent = posts() - start;
  const id = /recorded as run (\S+):/.exec(r.stderr)![1]!;
  const rec = readRunRecord(dir, id);
  meta = rec.meta;
  // The 95 rows of the page read ahead and never sent are not in the record: a rerun does them.
  expect(rec.rows.size).toBe(sent);
  for (const { row, done } of rec.rows.values()) expect([row.row, done?.status]).toEqual([row.row, 'created']);
  const journal = ndjson<{ status?: string }>(`${file}.journal.ndjson`);
  expect(journal.filter((e) => e.status === 'created')).toHaveLength(sent);
  const list = await svc(['runs', 'list', '-o', 'json']);
  expect((JSON.parse(list.stdout) as { id: string; rows: string }[]).find((x) => x.id === id)?.rows).toBe(`${sent} created (of 150)`);
});

/** Writes a record of a run in the org of the stopped one: each row its image and, when given, its outcome. */
function record(
  id: string,
  rows: { line: Omit<RowLine, 'k' | 'row' | 'key'>; done?: { status: string; id: string | null } }[],
  at = new Date().toISOString(),
): void {
  const w = RunRecordWriter.create(dir, { ...meta, id, at, rows: rows.length }, Date.now);
  for (const [i, r] of rows.entries()) {
    const key = `doubt-${id}-${i + 1}`;
    w.write({ k: 'row', row: i + 1, key, ...r.line });
    if (r.done) w.write({ k: 'done', row: i + 1, key, ...r.done });
  }
  w.write({ k: 'end', at: new Date().toISOString(), counts: {}, interrupted: true });
  w.close();
}

const person = (n: string) => ({ firstName: `D${n}`, lastName: 'Doubt', emails: [`d${n}@doubt.test`] });
const created = (n: string) => ({ op: 'create' as const, type: 'prospect', after: { attributes: person(n), relationships: {} } });
/** A prospect made outside svc (no run records it), as the lost create would have. */
async function made(n: string): Promise<string> {
  const r = await call(sb, 'POST', 'prospects', { data: { type: 'prospect', attributes: person(n) } });
  expect(r.status).toBe(201);
  return String(r.body.data.id);
}

it('runs undo looks the creates in doubt up: found, deleted (an enrolment finished); not found, nothing to undo; exit 0, the org as before', async () => {
  const lost = await made('1');
  const unknown = await made('3');
  const confirmed = await made('4');
  const seq = await newSequence(sb);
  const prospect = Number(await made('5'));
  const state = await enrollDirect(sb, prospect, seq);
  const id = '20260101-000000-00d0b1';
  const at = new Date().toISOString();
  record(
    id,
    [
      { line: created('1') }, // sent, the run stopped before the answer: the record exists
      { line: created('2') }, // sent, never carried out
      { line: created('3'), done: { status: 'unknown', id: null } }, // its answer lost, then not found in the window
      { line: created('4'), done: { status: 'created', id: confirmed } },
      {
        line: {
          op: 'enroll',
          type: 'sequenceState',
          after: { attributes: {}, relationships: { prospect: String(prospect), sequence: String(seq), mailbox: '1' } },
        },
      },
      { line: created('7') }, // never carried out; a later run made its prospect (below)
    ],
    at,
  );
  // That later run's record is its own: the undo of this one leaves it.
  const later = await svc(['prospects', 'create', ...Object.entries(person('7')).map(([k, v]) => `--attr=${k}=${String(v)}`)]);
  expect(later.code, later.stderr).toBe(0);
  const theirs = byEmail('d7@doubt.test');
  expect(theirs).toHaveLength(1);
  // The run's last write is long past: the settle window is over.
  const past = new Date(Date.now() - 3_600_000);
  fs.utimesSync(path.join(dir, `${id}.run.ndjson`), past, past);

  const plan = await svc(['runs', 'undo', id, '--plan', '-o', 'json']);
  expect(plan.code, plan.stderr).toBe(0);
  // Ids as numbers, as listings write them (they were strings here).
  const planned = (JSON.parse(plan.stdout) as { rows: { row: number; action: string; id: number | null; reason?: string }[] }).rows;
  expect(planned.map((r) => [r.row, r.action, r.id])).toEqual([
    [1, 'delete', Number(lost)],
    [2, 'nothing to do', null],
    [3, 'delete', Number(unknown)],
    [4, 'delete', Number(confirmed)],
    [5, 'finish', Number(state)],
    [6, 'nothing to do', null],
  ]);
  expect(planned[1]!.reason).toMatch(/a lookup by its fields \(firstName, lastName, emails\) finds no such record: it was not created$/);

  const undo = await svc(['runs', 'undo', id, '--yes']);
  expect(undo.code, undo.stderr).toBe(0);
  for (const n of ['1', '2', '3', '4']) expect(byEmail(`d${n}@doubt.test`), n).toEqual([]);
  expect(byEmail('d7@doubt.test')).toEqual(theirs);
  expect(sb.store.table('sequenceState').get(state)!.attributes['state']).toBe('finished');
  const list = await svc(['runs', 'list', '-o', 'json']);
  expect((JSON.parse(list.stdout) as { id: string; state: string }[]).find((x) => x.id === id)?.state).toMatch(/^undone by /);
});

it('a create in doubt that several records match, or that nothing identifies, is never guessed: cannot, exit 5; looked up after the settle window', async () => {
  const twins = [await made('6'), await made('6')];
  const id = '20260101-000000-00d0b2';
  record(id, [
    { line: created('6') },
    // Nothing the lookup can go by (a date may come back in another form).
    { line: { op: 'create', type: 'prospect', after: { attributes: { dateOfBirth: '1990-01-01' }, relationships: {} } } },
  ]);
  const plan = await svc(['runs', 'undo', id, '--plan', '-o', 'json', '--settle', '1']);
  expect(plan.code, plan.stderr).toBe(5);
  expect(plan.stderr).toMatch(
    /2 create\(s\) of the run may have been done without an answer: looked up once the settle window after its last write is over, in 1 s/,
  );
  const planned = (JSON.parse(plan.stdout) as { rows: { action: string; reason: string }[] }).rows;
  expect(planned.map((r) => r.action)).toEqual(['cannot', 'cannot']);
  expect(planned[0]!.reason).toMatch(
    new RegExp(
      `several records match its fields \\(firstName, lastName, emails\\) \\(${twins.join(', ')}\\): which one the run made, if any, is not known; check by hand$`,
    ),
  );
  expect(planned[1]!.reason).toMatch(/the row has no field to look the record up by: whether it exists is not known; check by hand$/);
  expect(byEmail('d6@doubt.test')).toHaveLength(2);
});
