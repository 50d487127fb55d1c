/**
 * A file never takes back an opt-out unless asked (src/bulk/rows/consent.ts): a sheet exported
 * before a prospect opted out still says `optedOut: false`, and sending it again opted them back
 * in. Upsert and update by key read the record and leave out only such a change (said in the plan
 * and the run); a plain update by id leaves out every consent value that is not an opt-out, and
 * says so only where it mattered, by the records its run reads for their before-images (and its
 * plan reads); `--allow-opt-in` sends them. In process against the sandbox over HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { doc, start, type Client } from '../helpers/sandbox.js';

let c: Client;
let env: () => Record<string, string>;
let dir: string;
beforeAll(async () => {
  c = await start();
  dir = tempDir('svc-consent-');
  env = () => ({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });
});
afterAll(() => c.sb.close());

/** Three prospects exported, then the first opts out: the export is now stale. */
async function staleExport(name: string): Promise<{ file: string; ids: string[] }> {
  const ids: string[] = [];
  for (const who of ['山田 太郎', 'José Ñúñez', 'Ada Byron']) {
    const [first, last] = who.split(' ');
    const email = `${name}.${ids.length}@consent.test`;
    const r = await c.post(
      '/prospects',
      doc('prospect', { firstName: first, lastName: last, emails: [email], title: 'CEO', optedOut: false, emailsOptStatus: 'opted_in' }),
    );
    expect(r.status, r.text).toBe(201);
    ids.push(String(r.body.data.id));
  }
  const file = path.join(dir, `${name}.csv`);
  const out = await svcInProcess(
    [
      'prospects',
      'list',
      '--filter',
      `id=${ids.join(',')}`,
      '--sort',
      'id',
      '-o',
      'csv',
      '--columns',
      'id,emails,title,optedOut,emailsOptStatus',
    ],
    { env: env() },
  );
  expect(out.code, out.stderr).toBe(0);
  fs.writeFileSync(file, out.stdout.replaceAll(',CEO,', ',Chief Executive,'));
  const opt = await c.patch(`/prospects/${ids[0]}`, doc('prospect', { optedOut: true, emailsOptStatus: 'opted_out' }, {}, ids[0]));
  expect(opt.status, opt.text).toBe(200);
  return { file, ids };
}

const consent = async (id: string) => {
  const a = (await c.get(`/prospects/${id}`)).body.data.attributes;
  return { optedOut: a.optedOut, emailsOptStatus: a.emailsOptStatus, title: a.title };
};

it('upsert by e-mail from a stale sheet: the opt-out stays, the rest is sent; the plan said so', async () => {
  const { file, ids } = await staleExport('upsert');
  const plan = await svcInProcess(['prospects', 'upsert', '--input', file, '--match', 'emails', '--plan'], { env: env() });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain('  optedOut: true kept (the row says false; --allow-opt-in sends it)');
  expect(plan.stdout).toContain('  emailsOptStatus: "opted_out" kept (the row says "opted_in"; --allow-opt-in sends it)');
  expect(plan.stderr).toContain(
    '1 row takes back an opt-out (optedOut, emailsOptStatus): left out, the record stays opted out (--allow-opt-in sends them)',
  );
  const run = await svcInProcess(['prospects', 'upsert', '--input', file, '--match', 'emails'], { env: env() });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toContain(
    '1 row takes back an opt-out (optedOut, emailsOptStatus): left out, the record stays opted out (to send them: the same command with --allow-opt-in and a new --journal)',
  );
  expect(await consent(ids[0]!)).toEqual({ optedOut: true, emailsOptStatus: 'opted_out', title: 'Chief Executive' });
  expect(await consent(ids[1]!)).toEqual({ optedOut: false, emailsOptStatus: 'opted_in', title: 'Chief Executive' });

  // Asked for (a journal of its own: the first run did these rows): the row's values are sent,
  // and the prospect is opted back in.
  const again = await svcInProcess(
    ['prospects', 'upsert', '--input', file, '--match', 'emails', '--allow-opt-in', '--journal', path.join(dir, 'again.journal')],
    { env: env() },
  );
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).not.toContain('opt-out');
  expect(await consent(ids[0]!)).toEqual({ optedOut: false, emailsOptStatus: 'opted_in', title: 'Chief Executive' });
});

it('update --match id reads the records: a consent value that takes nothing back is sent, one that would is kept (a review)', async () => {
  const { ids } = await staleExport('byid');
  const file = path.join(dir, 'byid.csv');
  fs.writeFileSync(file, `id,title,optedOut,emailOptedOut\n${ids[0]},Kept,false,false\n${ids[1]},Sent,false,false\n`);
  const r = await svcInProcess(['prospects', 'update', '--input', file, '--match', 'id'], { env: env() });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain('1 row takes back an opt-out (optedOut): left out');
  expect(r.stderr).not.toContain('not opted out: left out');
  const attrs = async (id: string) => (await c.get(`/prospects/${id}`)).body.data.attributes;
  expect([(await attrs(ids[0]!)).optedOut, (await attrs(ids[0]!)).title]).toEqual([true, 'Kept']);
  expect([(await attrs(ids[1]!)).emailOptedOut, (await attrs(ids[1]!)).title]).toEqual([false, 'Sent']);
});

it('a plain update by id sends no consent value but an opt-out, and says so; one explicit update still opts in', async () => {
  const { file, ids } = await staleExport('plain');
  const run = await svcInProcess(['prospects', 'update', '--input', file], { env: env() });
  expect(run.code, run.stderr).toBe(0);
  // The run has done these rows: the flag needs a journal of its own (a rerun found them done, a review).
  // Said of the one row whose record is opted out; the two holding the file's values changed nothing.
  expect(run.stderr).toContain(
    'warning: 1 row takes back an opt-out (optedOut, emailsOptStatus): left out, the record stays opted out (to send them: the same command with --allow-opt-in and a new --journal)',
  );
  expect(run.stderr).not.toMatch(/carr(y|ies)|changes? \w+ \(no opt-out/);
  expect(await consent(ids[0]!)).toEqual({ optedOut: true, emailsOptStatus: 'opted_out', title: 'Chief Executive' });
  expect(await consent(ids[2]!)).toEqual({ optedOut: false, emailsOptStatus: 'opted_in', title: 'Chief Executive' });

  // A row that sets nothing else is refused, naming the flag; with it, the row is sent.
  const only = path.join(dir, 'only.csv');
  fs.writeFileSync(only, `id,optedOut\n${ids[0]},false\n`);
  const refused = await svcInProcess(['prospects', 'update', '--input', only], { env: env() });
  expect(refused.code).toBe(5);
  expect(refused.stderr).toContain(
    'nothing to update but optedOut, left out: a file does not take back an opt-out (--allow-opt-in sends it)',
  );
  const sent = await svcInProcess(['prospects', 'update', '--input', only, '--allow-opt-in', '--journal', path.join(dir, 'only.journal')], {
    env: env(),
  });
  expect(sent.code, sent.stderr).toBe(0);
  expect((await consent(ids[0]!)).optedOut).toBe(false);

  // One record named on the command line is asked for in so many words.
  const one = await svcInProcess(['prospects', 'update', ids[1]!, '--attr', 'optedOut=true'], { env: env() });
  expect(one.code, one.stderr).toBe(0);
  const back = await svcInProcess(['prospects', 'update', ids[1]!, '--attr', 'optedOut=false'], { env: env() });
  expect(back.code, back.stderr).toBe(0);
  expect((await consent(ids[1]!)).optedOut).toBe(false);
  const stray = await svcInProcess(['prospects', 'update', ids[1]!, '--attr', 'title=x', '--allow-opt-in'], { env: env() });
  expect([stray.code, stray.stderr.trim()]).toEqual([2, 'error: --allow-opt-in works only with --input FILE']);
});

/**
 * The README's "Change many records": a list read back unedited carries every consent value as the
 * records hold it (`optedOut: false`, `emailOptedOut: null`, `emailsOptStatus: "opted_in"`). Its
 * plan and run said "N rows carry emailOptedOut, emailsOptStatus, optedOut not opted out: left
 * out" of every row (a new user's trial), though none would take an opt-out back.
 */
it('a plain update of a list read back unedited says nothing of consent; a take-back and another change are said, none is sent', async () => {
  const e = env();
  const ids: string[] = [];
  for (const n of [0, 1, 2, 3]) {
    const r = await c.post(
      '/prospects',
      doc('prospect', {
        firstName: `Round${n}`,
        lastName: 'Trip',
        emails: [`round.${n}@consent.test`],
        title: 'Round Trip',
        optedOut: false,
        emailsOptStatus: 'opted_in',
      }),
    );
    expect(r.status, r.text).toBe(201);
    ids.push(String(r.body.data.id));
  }
  expect((await c.get(`/prospects/${ids[0]}`)).body.data.attributes.emailOptedOut).toBeNull();
  const listed = await svcInProcess(['prospects', 'list', '--filter', 'title=Round Trip', '--all', '-o', 'ndjson'], { env: e });
  expect(listed.code, listed.stderr).toBe(0);
  const file = path.join(dir, 'round.ndjson');
  fs.writeFileSync(file, listed.stdout);
  expect(listed.stdout.trimEnd().split('\n')).toHaveLength(4);

  const plan = await svcInProcess(['prospects', 'update', '--input', file, '--plan'], { env: e });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stderr + plan.stdout).not.toMatch(/left out|opt-out|opted out|OptStatus|OptedOut/);
  const run = await svcInProcess(['prospects', 'update', '--input', file], { env: e });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).not.toMatch(/left out|opt-out|opted out|OptStatus|OptedOut/);

  // The same file after one prospect opted out, and with another's emailOptedOut edited from
  // empty to false (no opt-out taken back): each said once, by the records read; neither sent.
  const opt = await c.patch(`/prospects/${ids[1]}`, doc('prospect', { optedOut: true, emailsOptStatus: 'opted_out' }, {}, ids[1]));
  expect(opt.status, opt.text).toBe(200);
  const edited = path.join(dir, 'round-edited.ndjson');
  fs.writeFileSync(
    edited,
    listed.stdout
      .trimEnd()
      .split('\n')
      .map((l) => {
        const rec = JSON.parse(l) as Record<string, unknown>;
        return JSON.stringify(String(rec.id) === ids[2] ? { ...rec, emailOptedOut: false } : rec);
      })
      .join('\n') + '\n',
  );
  const changeLine =
    '1 row changes emailOptedOut (no opt-out taken back): left out, a plain update --input sends no consent value but an opt-out (--match id sends such changes)';
  const plan2 = await svcInProcess(['prospects', 'update', '--input', edited, '--plan'], { env: e });
  expect(plan2.code, plan2.stderr).toBe(0);
  expect(plan2.stderr).toContain(
    'warning: 1 row takes back an opt-out (emailsOptStatus, optedOut): left out, the record stays opted out (--allow-opt-in sends them)',
  );
  expect(plan2.stderr).toContain(changeLine);
  expect(plan2.stdout).toContain('  optedOut: true kept (the row says false; --allow-opt-in sends it)');
  expect(plan2.stdout).toContain(
    '  emailOptedOut: (empty) kept (the row says false; a plain update sends no consent value but an opt-out)',
  );
  // --dry-run reads no record: it says what it leaves out with -v only.
  const dry = await svcInProcess(['prospects', 'update', '--input', edited, '--dry-run'], { env: e });
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stderr).not.toMatch(/left out|opt-out|opted out/);
  const dryV = await svcInProcess(['-v', 'prospects', 'update', '--input', edited, '--dry-run'], { env: e });
  expect(dryV.stderr).toContain('* 4 rows carry emailOptedOut, emailsOptStatus, optedOut not opted out: left out of the requests');
  const run2 = await svcInProcess(['prospects', 'update', '--input', edited], { env: e });
  expect(run2.code, run2.stderr).toBe(0);
  expect(run2.stderr).toContain(
    'warning: 1 row takes back an opt-out (emailsOptStatus, optedOut): left out, the record stays opted out (to send them: the same command with --allow-opt-in and a new --journal)',
  );
  expect(run2.stderr).toContain(changeLine);
  expect(await consent(ids[1]!)).toMatchObject({ optedOut: true, emailsOptStatus: 'opted_out' });
  expect((await c.get(`/prospects/${ids[2]}`)).body.data.attributes.emailOptedOut).toBeNull();
});

it('runs undo keeps an opt-out the run set, unless --allow-opt-in (the person may have asked again since, a review)', async () => {
  const { ids } = await staleExport('undo');
  // One config directory: the runs are recorded in it.
  const e = env();
  const file = path.join(dir, 'optout.csv');
  fs.writeFileSync(file, `id,optedOut,title\n${ids[1]},true,Out\n${ids[2]},true,Out\n`);
  expect((await svcInProcess(['prospects', 'update', '--input', file], { env: e })).code).toBe(0);
  const run = JSON.parse((await svcInProcess(['runs', 'list', '-o', 'json'], { env: e })).stdout)[0].id as string;
  const undo = await svcInProcess(['runs', 'undo', run], { env: e });
  // Rows not taken back: exit 5, as rows left as conflicts.
  expect(undo.code, undo.stderr).toBe(5);
  expect(undo.stderr).toContain('warning: 2 records keep an opt-out the undo would take back (optedOut): --allow-opt-in takes them back');
  expect(undo.stderr).toContain(`error: run ${run} is not undone: 2 of 2 rows not taken back: 2 keeping an opt-out\n`);
  expect(undo.stderr).toContain(`hint: svc runs undo ${run} --allow-opt-in takes the opt-outs back`);
  expect(await consent(ids[1]!)).toMatchObject({ optedOut: true, title: 'Out' });
  // The undo stays unfinished: the same undo with the flag finishes it.
  const again = await svcInProcess(['runs', 'undo', run, '--allow-opt-in'], { env: e });
  expect(again.code, again.stderr).toBe(0);
  expect(await consent(ids[2]!)).toMatchObject({ optedOut: false, title: 'CEO' });
});
