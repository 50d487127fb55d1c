/**
 * An undo that leaves rows as they were ends as a bulk run with failed rows does: exit 5, with how
 * many rows were not taken back and how to see them (a trial: it exited 0 after a line a script
 * never reads), and its `--plan` exits 5 too (`--dry-run` only shows: 0). Each conflict says what
 * the record shows — updatedAt, its updater ("you" for the token's user), an enrolment's state
 * now, the e-mail it delivered, a touch — never "someone else": the trial's conflicts were the
 * user's own later enrolment and a delivered e-mail. In process, over HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { liveSequence } from '../helpers/bulk.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { doc, start, type Client } from '../helpers/sandbox.js';
import { inputFile } from '../helpers/bulk.js';
import { plainCommand } from '../helpers/shell-line.js';

let c: Client;
let env: NodeJS.ProcessEnv;
/** The user the tests' token acts as (the org's owner). */
let me = '';
beforeAll(async () => {
  c = await start({ deliveryMs: 20 });
  env = baseEnv({
    SVC_CONFIG_DIR: tempDir('svc-undo-left-'),
    SVC_BASE_URL: c.sb.baseUrl,
    SVC_AUTH_URL: c.sb.authUrl,
    SVC_TOKEN: c.sb.token,
  });
  me = String((await c.get('')).body.meta.user.id);
});
afterAll(() => c.sb.close());

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 30_000 });
const runId = (stderr: string) => /recorded as run (\S+):/.exec(stderr)![1]!;
const title = async (id: string) => (await c.get(`/prospects/${id}`)).body.data.attributes.title as string;

/** As if the run that created the record was an hour ago: the service's own writes right after a create are no change. */
function backdate(type: string, id: string): void {
  const rec = c.sb.store.table(type).get(Number(id))!;
  rec.attributes['createdAt'] = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19);
}

it('conflicts left: exit 5 with the count and the way to see them; --plan 5, --dry-run 0; each names updatedAt and the updater, "you" for oneself', async () => {
  const ids = ((await c.get('/prospects?page[limit]=3')).body.data as { id: string }[]).map((d) => String(d.id));
  const was = await Promise.all(ids.map(title));
  const run = await svc([
    'prospects',
    'update',
    '--input',
    inputFile('left.csv', `id,title\n${ids.map((id, i) => `${id},Wrong ${i}`).join('\n')}\n`),
  ]);
  expect(run.code, run.stderr).toBe(0);
  const id = runId(run.stderr);
  // Another user changes row 2's title; the user changes row 3's with their own token.
  const other = c.sb.issueToken({ userId: Number(me) + 1 });
  expect((await c.patch(`/prospects/${ids[1]}`, doc('prospect', { title: 'Theirs' }, {}, ids[1]), other)).status).toBe(200);
  expect((await c.patch(`/prospects/${ids[2]}`, doc('prospect', { title: 'Mine' }, {}, ids[2]))).status).toBe(200);

  const plan = await svc(['runs', 'undo', id, '--plan', '-o', 'json']);
  expect(plan.code, plan.stderr).toBe(5);
  expect(JSON.parse(plan.stdout).bill.conflicts).toBe(2);
  expect(plan.stderr).toMatch(
    new RegExp(
      `^error: the undo of run ${id} would leave 2 of 3 rows as they are: 2 conflicts \\(changed since the run\\); nothing was written$`,
      'm',
    ),
  );
  const dry = await svc(['runs', 'undo', id, '--dry-run', '-o', 'json']);
  expect(dry.code, dry.stderr).toBe(0);

  const undo = await svc(['runs', 'undo', id]);
  expect(undo.code, undo.stderr).toBe(5);
  expect(undo.stderr).toMatch(
    new RegExp(`^error: run ${id} is partly undone: 2 of 3 rows not taken back: 2 conflicts \\(changed since the run\\)$`, 'm'),
  );
  expect(undo.stderr).toContain(`\nhint: see them row by row: svc runs undo ${id} --plan (or --report FILE)\n`);
  expect(undo.stderr).toContain(`\nhint: svc runs undo ${id} --force takes the conflicts back`);
  expect(undo.stderr).toMatch(
    new RegExp(
      `^row 2: conflict: prospect ${ids[1]}: changed since the run: title is "Theirs", the run wrote "Wrong 1"; updatedAt \\S+Z, updater user ${Number(me) + 1}; skipped`,
      'm',
    ),
  );
  expect(undo.stderr).toMatch(
    new RegExp(
      `^row 3: conflict: prospect ${ids[2]}: changed since the run: title is "Mine", the run wrote "Wrong 2"; updatedAt \\S+, updater user ${me} \\(you\\); skipped`,
      'm',
    ),
  );
  expect(undo.stderr).not.toMatch(/someone else/);
  // Said once, as the error: not also as the lines before it.
  expect(undo.stderr).not.toMatch(/is partly undone: run again/);
  expect(await title(ids[0]!)).toBe(was[0]);
  expect([await title(ids[1]!), await title(ids[2]!)]).toEqual(['Theirs', 'Mine']);

  const forced = await svc(['runs', 'undo', id, '--force']);
  expect(forced.code, forced.stderr).toBe(0);
});

it('a created prospect touched by its later enrolment, and that enrolment moved on: what moved is said (touchedAt, the state now, the e-mail delivered that cannot be unsent), exit 5', async () => {
  const made = await svc(['prospects', 'create', '--attr', 'firstName=Touched', '--attr', 'lastName=Left', '-o', 'json']);
  expect(made.code, made.stderr).toBe(0);
  const prospect = String(JSON.parse(made.stdout).id);
  const madeRun = runId(made.stderr);
  backdate('prospect', prospect);
  // The user's own enrolment: its e-mail is delivered, which touches the prospect.
  const sequence = await liveSequence(c.sb);
  const enrol = await svc([
    'sequence-states',
    'create',
    '--rel',
    `prospect=${prospect}`,
    '--rel',
    `sequence=${sequence}`,
    '--rel',
    'mailbox=1',
    '-o',
    'json',
  ]);
  expect(enrol.code, enrol.stderr).toBe(0);
  const state = String(JSON.parse(enrol.stdout).id);
  const enrolRun = runId(enrol.stderr);
  const delivered = () => c.sb.store.table('sequenceState').get(Number(state))!.attributes['deliverCount'] === 1;
  for (let i = 0; i < 200 && !delivered(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(delivered()).toBe(true);
  backdate('sequenceState', state);
  expect((await c.post(`/sequenceStates/${state}/actions/pause`)).status).toBe(200);

  const undoState = await svc(['runs', 'undo', enrolRun, '--yes']);
  expect(undoState.code, undoState.stderr).toBe(5);
  expect(undoState.stderr).toMatch(
    new RegExp(
      `^row 1: conflict: sequenceState ${state}: changed since the run created it: createdAt \\S+Z, updatedAt \\S+Z; its state is now paused \\(since \\S+Z\\); 1 e-mail of it delivered: an e-mail sent cannot be unsent; skipped`,
      'm',
    ),
  );
  expect(undoState.stderr).toMatch(new RegExp(`^error: run ${enrolRun} is not undone: 1 of 1 row not taken back: 1 conflict`, 'm'));

  const undoProspect = await svc(['runs', 'undo', madeRun, '--yes']);
  expect(undoProspect.code, undoProspect.stderr).toBe(5);
  expect(undoProspect.stderr).toMatch(
    new RegExp(
      `^row 1: conflict: prospect ${prospect}: changed since the run created it: createdAt \\S+, updatedAt \\S+, updater user ${me} \\(you\\); touchedAt is that instant too: an activity reached it, such as an e-mail delivered; skipped`,
      'm',
    ),
  );
  for (const r of [undoState, undoProspect]) expect(r.stderr).not.toMatch(/someone else/);
  expect((await c.get(`/prospects/${prospect}`)).status).toBe(200);
});

/** The undo a hint line names, from `svc runs undo` to `to` (`takes the conflicts back`), as a shell splits it. */
function hinted(stderr: string, to: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith('hint: ') && l.includes('svc runs undo ') && l.includes(` ${to}`));
  if (!line) throw new Error(`no hint ending "${to}":\n${stderr}`);
  const words = plainCommand(line.slice(line.indexOf('svc runs undo '), line.indexOf(` ${to}`)))?.args;
  if (!words) throw new Error(`not a plain command: ${line}`);
  return words;
}

it('a hint that repeats the undo with one more flag keeps the flags given: --yes (off a terminal the deletes are refused without it), --rows; pasted, it runs', async () => {
  // A CI run's `runs undo RUN --yes` hinted `svc runs undo RUN --force`: pasted, it exited 2
  // ("refusing to delete 1 record(s) … without --yes"), a trial.
  const made = await svc(['prospects', 'create', '--input', inputFile('made.csv', 'firstName,lastName\nKept,One\nKept,Two\n')]);
  expect(made.code, made.stderr).toBe(0);
  const madeRun = runId(made.stderr);
  const ids = [...c.sb.store.table('prospect').values()].filter((p) => p.attributes['firstName'] === 'Kept').map((p) => String(p.id));
  expect(ids).toHaveLength(2);
  for (const id of ids) backdate('prospect', id);
  expect((await c.patch(`/prospects/${ids[1]}`, doc('prospect', { title: 'Changed' }, {}, ids[1]))).status).toBe(200);
  const undo = await svc(['runs', 'undo', madeRun, '--yes']);
  expect(undo.code, undo.stderr).toBe(5);
  const again = hinted(undo.stderr, 'takes the conflicts back');
  expect(again).toEqual(['runs', 'undo', madeRun, '--force', '--yes']);
  const pasted = await svc(again);
  expect(pasted.code, pasted.stderr).toBe(0);
  for (const id of ids) expect(c.sb.store.table('prospect').get(Number(id))).toBeUndefined();

  // --rows: the conflict among the rows given is forced back, and the row left out stays left out.
  const ps = ((await c.get('/prospects?page[limit]=3')).body.data as { id: string }[]).map((d) => String(d.id));
  const was = await Promise.all(ps.map(title));
  const run = await svc([
    'prospects',
    'update',
    '--input',
    inputFile('rows.csv', `id,title\n${ps.map((id, i) => `${id},Rows ${i}`).join('\n')}\n`),
  ]);
  expect(run.code, run.stderr).toBe(0);
  const id = runId(run.stderr);
  for (const p of ps.slice(1)) expect((await c.patch(`/prospects/${p}`, doc('prospect', { title: 'Since' }, {}, p))).status).toBe(200);
  const some = await svc(['runs', 'undo', id, '--rows', '1-2', '--yes']);
  expect(some.code, some.stderr).toBe(5);
  const forced = hinted(some.stderr, 'takes the conflicts back');
  expect(forced).toEqual(['runs', 'undo', id, '--rows', '1-2', '--force', '--yes']);
  // The rows --rows left out: all of them again, without it.
  expect(hinted(some.stderr, 'again does them')).toEqual(['runs', 'undo', id, '--yes']);
  expect((await svc(forced)).code).toBe(0);
  expect([await title(ps[0]!), await title(ps[1]!), await title(ps[2]!)]).toEqual([was[0], was[1], 'Since']);
});
