/**
 * What a rerun does NOT continue (bulk-run/run-continue.ts): a run that finished, a run left
 * unfinished whose journal was removed (the user started afresh), and one taken back by `svc runs
 * undo` — each rerun is a new run with a record of its own; a rerun that writes nothing (its rows
 * done by the run that finished) has none. And one it does: the same unfinished run rerun with
 * its journal. In-process (the process does not matter); about 2 s.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inputFile } from '../helpers/bulk.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 20 });
  sb = s.sb;
  env = baseEnv(s.env());
});
afterAll(() => sb?.close());

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 60_000 });
const ids = () => [...sb.store.table('prospect').keys()].sort((a, b) => a - b);
const runIds = async () => (JSON.parse((await svc(['runs', 'list', '-o', 'json'])).stdout) as { id: string }[]).map((r) => r.id);
const recorded = (stderr: string) => /recorded as run (\S+):/.exec(stderr)?.[1];

it('a finished run rerun is a new run', { timeout: 30_000 }, async () => {
  const file = inputFile(
    'done.csv',
    `id,title\n${ids()
      .slice(0, 3)
      .map((id) => `${id},Done ${id}`)
      .join('\n')}\n`,
  );
  const first = await svc(['prospects', 'update', '--input', file]);
  expect(first.code, first.stderr).toBe(0);
  const had = await runIds();
  fs.writeFileSync(
    file,
    `id,title\n${ids()
      .slice(0, 3)
      .map((id) => `${id},Again ${id}`)
      .join('\n')}\n`,
  );
  fs.rmSync(`${file}.journal.ndjson`);
  const again = await svc(['prospects', 'update', '--input', file]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).not.toContain('continuing run');
  expect(recorded(again.stderr)).not.toBe(recorded(first.stderr));
  expect((await runIds()).length).toBe(had.length + 1);
});

it('a rerun that writes nothing (rows done by a finished run) leaves no record: that run stays first', { timeout: 30_000 }, async () => {
  const rows = ids().slice(10, 12);
  const title = (id: number) => sb.store.table('prospect').get(id)!.attributes['title'];
  const before = rows.map(title);
  const file = inputFile('rerun.csv', `id,title\n${rows.map((id) => `${id},Rerun ${id}`).join('\n')}\n`);
  const first = await svc(['prospects', 'update', '--input', file]);
  expect(first.code, first.stderr).toBe(0);
  const run = recorded(first.stderr)!;
  const had = await runIds();
  expect(had[0]).toBe(run);
  // Every row done by the first run (its journal says): nothing is sent, nothing recorded.
  const again = await svc(['prospects', 'update', '--input', file]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain('2 skipped');
  expect(again.stderr).toContain('nothing was written: no run recorded, nothing to undo (svc runs list shows the runs before)');
  expect(recorded(again.stderr)).toBeUndefined();
  expect(await runIds()).toEqual(had);
  // The README's recipe: the newest run is the one that wrote.
  const undo = await svc(['runs', 'undo', (await runIds())[0]!]);
  expect(undo.code, undo.stderr).toBe(0);
  // In the words of its plan and of `runs list` (a trial: the plan said finished, the undo updated).
  expect(undo.stderr).toContain('2 set back (2 of 2 rows');
  expect(rows.map(title)).toEqual(before);
});

it('a rerun of an enrolment whose prospects are in the sequence by now leaves no record: the README recipe undoes the one that wrote', {
  timeout: 30_000,
}, async () => {
  // A CI job retried: --prospect rows have no journal to skip them; they are recorded before
  // their POST and then skipped ("already in the sequence"). That run came first in `runs list`,
  // and `runs undo <[0]>` took back nothing (a trial).
  const seq = [...sb.store.table('sequence').keys()][0]!;
  const box = [...sb.store.table('mailbox').keys()][0]!;
  const who = ids().slice(14, 16).join(',');
  const args = ['enroll', '--sequence', String(seq), '--mailbox', String(box), '--prospect', who];
  const first = await svc(args);
  expect(first.code, first.stderr).toBe(0);
  const run = recorded(first.stderr)!;
  const had = await runIds();
  expect(had[0]).toBe(run);
  const again = await svc(args);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).toContain('2 skipped');
  expect(again.stderr).toContain('nothing was written: no run recorded, nothing to undo');
  expect(await runIds()).toEqual(had);
  const made = Number(/enroll: (\d+) created/.exec(first.stderr)![1]);
  expect(made).toBeGreaterThan(0);
  const undo = await svc(['runs', 'undo', (await runIds())[0]!]);
  expect(undo.code, undo.stderr).toBe(0);
  expect(undo.stderr).toMatch(new RegExp(`^run ${run}: svc enroll `));
  expect(undo.stderr).toContain(`${made} to finish`);
  // Taken back by finishing: the redo that usually follows skips them, and the undo says so.
  // One way on that works (a `sequence-states create` is refused while the finished state is there):
  // the ids of the one state, or placeholders for several.
  const one = made === 1 ? '\\d+' : 'STATE-ID';
  expect(undo.stderr).toMatch(
    new RegExp(
      `a finished enrolment stays in its sequence: enroll skips those prospects there\\. To enrol one again, delete its state, then enroll: svc sequence-states delete ${one} --yes, then svc enroll --sequence ${seq} --mailbox ${box} --prospect ${made === 1 ? '\\d+' : 'PROSPECT-ID'}\n`,
    ),
  );
  // The undo's summary, its plan and `runs list` count the rows in one vocabulary, with the same numbers.
  expect(undo.stderr).toMatch(new RegExp(`runs undo ${run}: ${made} finished \\(${made} of ${made} rows? in `));
  const listed = JSON.parse((await svc(['runs', 'list', '-o', 'json'])).stdout) as { id: string; rows: string; undoes?: string }[];
  expect(listed.find((r) => r.undoes === run)?.rows).toBe(`${made} finished`);
  expect(listed.find((r) => r.id === run)?.rows).toMatch(new RegExp(`^${made} created\\b`));
  // Undone twice: its undo finished enrolments, which cannot be taken back, so the hint does not
  // send one to undo the undo (refused, exit 2: a review) but to run the command again.
  const twice = await svc(['runs', 'undo', run]);
  expect(twice.code).toBe(12);
  expect(twice.stderr).toMatch(
    /\nhint: nothing was sent; its undo cannot itself be taken back \(a finished sequence state cannot be made active again\): to do it again, run its command again\n$/,
  );
});

it('a run whose rows were all skipped or refused leaves no record: `[0]` stays the last run that changed something', {
  timeout: 30_000,
}, async () => {
  // The README: a run that writes nothing is not recorded. An enrolment of "skipped 1, failed 4"
  // was, and came first in `runs list` (its undo plan had 0 writes, a trial). A row the API
  // refused wrote nothing; a dedupe cluster that failed half-way has its steps done recorded as
  // rows of their own, so its record stays (RunRecordWriter.mayHaveWritten).
  const first = await svc(['prospects', 'update', ids()[18]!.toString(), '--attr', 'title=Last Changed']);
  expect(first.code, first.stderr).toBe(0);
  const had = await runIds();
  expect(had[0]).toBe(recorded(first.stderr));
  const file = inputFile('all-failed.csv', 'id,title\n99999998,Nobody\n');
  const failed = await svc(['prospects', 'update', '--input', file]);
  expect(failed.code, failed.stderr).toBe(5);
  expect(failed.stderr).toContain('nothing was written: no run recorded, nothing to undo');
  expect(await runIds()).toEqual(had);
  // Its rerun (the journal says the row failed) is a new run, recorded only if it writes.
  const again = await svc(['prospects', 'update', '--input', file]);
  expect(again.code, again.stderr).toBe(5);
  expect(again.stderr).not.toContain('continuing run');
  expect(await runIds()).toEqual(had);

  // An enrolment: one prospect in the sequence already (skipped), one that does not exist (failed
  // before sending: given with --prospect it would stop the run instead).
  const seq = [...sb.store.table('sequence').keys()][0]!;
  const box = [...sb.store.table('mailbox').keys()][0]!;
  const args = ['enroll', '--sequence', String(seq), '--mailbox', String(box)];
  const inSeq = await svc([...args, '--prospect', String(ids()[17])]);
  expect(inSeq.code, inSeq.stderr).toBe(0);
  const last = await runIds();
  const mixed = await svc([...args, '--input', inputFile('mixed.csv', `id\n${ids()[17]}\n99999997\n`)]);
  expect(mixed.code, mixed.stderr).toBe(5);
  expect(mixed.stderr).toMatch(/1 skipped, 1 failed/);
  expect(mixed.stderr).toContain('nothing was written: no run recorded');
  expect(await runIds()).toEqual(last);
});

it('an unfinished run is continued with its journal, not without it, nor once undone', { timeout: 30_000 }, async () => {
  // A row of an id that does not exist fails: the run ends unfinished.
  const rows = ids()
    .slice(5, 8)
    .map((id) => `${id},Part ${id}`);
  const file = inputFile('part.csv', `id,title\n${[...rows, '99999999,Part none'].join('\n')}\n`);
  const args = ['prospects', 'update', '--input', file];
  const first = await svc(args);
  expect(first.code, first.stderr).toBe(5);
  const run = recorded(first.stderr)!;

  const same = await svc(args);
  expect(same.code).toBe(5);
  // What it left, not "ended unfinished after 4 of 4 rows", which read as cut short (a trial).
  expect(same.stderr).toContain(`continuing run ${run} (it ended with 1 of 4 rows of ${file} failed or not reached)`);
  expect(recorded(same.stderr) ?? run).toBe(run);

  fs.rmSync(`${file}.journal.ndjson`);
  const fresh = await svc(args);
  expect(fresh.code).toBe(5);
  expect(fresh.stderr).not.toContain('continuing run');
  const freshRun = recorded(fresh.stderr)!;
  expect(freshRun).not.toBe(run);

  const undo = await svc(['runs', 'undo', freshRun]);
  expect(undo.code, undo.stderr).toBe(0);
  const after = await svc(args);
  expect(after.stderr).not.toContain('continuing run');
});

it('a rerun stopped itself counts the rows done by the part before that it reached, and its in all as runs list does', {
  timeout: 30_000,
}, async () => {
  // The part before did every row but the one that failed (the second): the rerun is stopped
  // (Ctrl-C) as it sends that row again, having passed only the first row. Counted as the rows
  // were read (the pool reads ahead), it said "5 done by the part before" and dropped its own
  // skipped count (a review: "this part: nothing to do (7 of 200 rows; 24 done by the part before)").
  const rows = ids().slice(12, 17);
  const bad = 99999996;
  const lines = [`${rows[0]},Stop ${rows[0]}`, `${bad},Stop none`, ...rows.slice(1).map((id) => `${id},Stop ${id}`)];
  const file = inputFile('stopped.csv', `id,title\n${lines.join('\n')}\n`);
  const args = ['prospects', 'update', '--input', file, '--concurrency', '1'];
  const first = await svc(args);
  expect(first.code, first.stderr).toBe(5);
  const run = recorded(first.stderr)!;
  const ctrlC = new AbortController();
  const push = sb.requests.push.bind(sb.requests);
  sb.requests.push = (...r) => {
    if (r.some((q) => q.method === 'PATCH' && q.path.endsWith(`/${bad}`))) ctrlC.abort();
    return push(...r);
  };
  let again: Awaited<ReturnType<typeof svc>>;
  try {
    again = await runInProcess(args, env, { timeoutMs: 60_000, signal: ctrlC.signal });
  } finally {
    sb.requests.push = push;
  }
  expect(again.code, again.stderr).toBe(130);
  expect(again.stderr).toMatch(/prospects update, this part: 1 failed \(2 of 6 rows in [\d.]+ s; 1 done by the part before\)\n/);
  const listed = JSON.parse((await svc(['runs', 'list', '-o', 'json'])).stdout) as { id: string; rows: string }[];
  const inAll = listed.find((r) => r.id === run)!.rows;
  expect(inAll).toBe('5 updated, 1 failed (of 6)');
  expect(again.stderr).toContain(`prospects update, in all (run ${run}): ${inAll}\n`);
  expect(again.stderr).toContain('interrupted: 2 of 6 rows done');
});
