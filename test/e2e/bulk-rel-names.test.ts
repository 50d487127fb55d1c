/**
 * Names instead of ids in bulk input: a relationship column holding `name:<value>` /
 * `email:<value>` is resolved before the first write, in batched list requests (not one per row),
 * and unknown or ambiguous names fail their rows with candidate ids, never sent. `--dry-run` and
 * `--plan` show the resolved ids; the journal keys rows as written.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { call, inputFile } from '../helpers/bulk.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 418 }));
});
afterAll(() => sb.close());

const svc = (args: string[]) => svcInProcess(args, { env: env() });

async function account(name: string): Promise<number> {
  const r = await call(sb, 'POST', 'accounts', { data: { type: 'account', attributes: { name } } });
  expect(r.status).toBe(201);
  return Number(r.body.data.id);
}

/** The account id a POST body points to. */
function accountOf(body: unknown): unknown {
  return (body as { data: { relationships?: { account?: { data?: { id?: unknown } } } } }).data.relationships?.account?.data?.id;
}

describe('relationship names in bulk input', () => {
  it('a CSV with account=name:…: resolved in one batch, the unknown and the ambiguous rows refused with candidates and never sent', async () => {
    const t = Date.now();
    const atlas = await account(`Atlas Systems ${t}`);
    const twinA = await account(`Twin Co ${t}`);
    const twinB = await account(`Twin Co ${t}`);
    const file = inputFile(
      'names.csv',
      [
        'firstName,lastName,account',
        `Ana,One,name:atlas systems ${t}`,
        `Bo,Two,name:Nowhere Ltd ${t}`,
        `Cy,Three,name:Twin Co ${t}`,
        `Di,Four,name:  Atlas Systems ${t} `,
        `Ed,Five,${atlas}`,
      ].join('\r\n') + '\r\n',
    );

    // --dry-run: the bodies carry the resolved id; only reads were sent.
    let mark = sb.requests.length;
    const dry = await svc(['prospects', 'create', '--input', file, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = dry.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(plan.map((p) => accountOf(p.body ?? { data: {} }))).toEqual([atlas, undefined, undefined, atlas, atlas]);
    expect(plan[1]).toMatchObject({ row: 2, status: 'failed' });
    expect(plan[1]!.error).toMatch(new RegExp(`account: name "Nowhere Ltd ${t}": no account has that name`));
    expect(plan[2]!.error).toMatch(
      new RegExp(
        `account: name "Twin Co ${t}": 2 accounts have that name: id ${twinA} "Twin Co ${t}"; id ${twinB} "Twin Co ${t}"; give the id instead`,
      ),
    );
    expect(received(sb, mark).every((q) => q.method === 'GET')).toBe(true);

    // The run: three distinct names, one batch (one list request) plus one candidate page for the miss.
    mark = sb.requests.length;
    const journal = `${file}.journal`;
    const run = await svc(['prospects', 'create', '--input', file, '--journal', journal, '--report', `${file}.report`]);
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toMatch(/relationship names: 3 distinct looked up in 2 requests, 2 not resolved/);
    const sent = received(sb, mark);
    const reads = sent.filter((q) => q.method === 'GET' && q.path === '/api/v2/accounts');
    expect(reads).toHaveLength(2);
    expect(reads[0]!.query.parsed).toMatchObject({ 'fields[account]': 'name' });
    const firstPost = sent.findIndex((q) => q.method === 'POST');
    expect(sent.slice(firstPost).some((q) => q.path === '/api/v2/accounts')).toBe(false);
    const posts = sent.filter((q) => q.method === 'POST' && q.path === '/api/v2/prospects');
    expect(posts).toHaveLength(3);
    expect(posts.map((q) => accountOf(JSON.parse(String(q.body))))).toEqual([atlas, atlas, atlas]);
    expect(run.stderr).toMatch(/row 2: .*Nowhere Ltd/);
    expect(run.stderr).toMatch(new RegExp(`row 3: .*id ${twinA} .*id ${twinB}`));

    // Rerun: the journal keys rows as written (names, not the ids they became), so the three
    // created rows are skipped and nothing is duplicated.
    mark = sb.requests.length;
    const again = await svc(['prospects', 'create', '--input', file, '--journal', journal]);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/5 rows: 0 to create, 3 done by earlier runs, 2 invalid/);
    expect(received(sb, mark).filter((q) => q.method === 'POST')).toHaveLength(0);
    expect(fs.existsSync(journal)).toBe(true);
  });

  it('many rows, few names: ⌈distinct / batch⌉ lookups, not one per row; owner=email: resolves users', async () => {
    const t = Date.now();
    const ids = [await account(`Batch A ${t}`), await account(`Batch B ${t}`)];
    const user = (await call(sb, 'GET', 'users?page[size]=1')).body.data[0];
    const email = String(user.attributes.email);
    const rows = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify({
        firstName: `R${i}`,
        lastName: `${t}`,
        account: `name:Batch ${i % 2 ? 'B' : 'A'} ${t}`,
        owner: `email:${email.toUpperCase()}`,
      }),
    );
    const file = inputFile('names.ndjson', rows.join('\n') + '\n');
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file, '--journal', `${file}.j`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/relationship names: 3 distinct looked up in 2 requests/);
    const sent = received(sb, mark);
    expect(sent.filter((q) => q.method === 'GET' && (q.path === '/api/v2/accounts' || q.path === '/api/v2/users'))).toHaveLength(2);
    const posts = sent.filter((q) => q.method === 'POST').map((q) => JSON.parse(String(q.body)).data.relationships);
    expect(posts).toHaveLength(60);
    expect(new Set(posts.map((p) => p.account.data.id))).toEqual(new Set(ids));
    expect(posts.every((p) => String(p.owner.data.id) === String(user.id))).toBe(true);
  });

  it('update --input by id: a named account is set by its id', async () => {
    const t = Date.now();
    const acct = await account(`Update Target ${t}`);
    const p = await call(sb, 'POST', 'prospects', { data: { type: 'prospect', attributes: { firstName: 'U' } } });
    const file = inputFile('update.csv', `id,account\n${p.body.data.id},name:UPDATE TARGET ${t}\n`);
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'update', '--input', file, '--journal', `${file}.j`]);
    expect(r.code, r.stderr).toBe(0);
    const patches = received(sb, mark).filter((q) => q.method === 'PATCH');
    expect(patches.map((q) => accountOf(JSON.parse(String(q.body))))).toEqual([acct]);
  });

  it('upsert --plan shows the resolved id (diff of an update, relationships of a create) and bills the name lookups; the run matches it', async () => {
    const t = Date.now();
    const acct = await account(`Plan Target ${t}`);
    const mail = `plan${t}@names.test`;
    const fresh = `fresh${t}@names.test`;
    const p = await call(sb, 'POST', 'prospects', { data: { type: 'prospect', attributes: { emails: [mail], firstName: 'P' } } });
    const file = inputFile('upsert.csv', `emails,account\n${mail},name:Plan Target ${t}\n${fresh},name:plan target ${t}\n`);
    const plan = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--plan', '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout) as { rows: Record<string, any>[]; bill: Record<string, number> };
    expect(doc.rows[0]).toMatchObject({ action: 'update', changes: [{ field: 'account', new: String(acct) }] });
    expect(doc.rows[1]).toMatchObject({ action: 'create', relationships: { account: { data: { type: 'account', id: acct } } } });
    // One name lookup; the prospects' addresses read once (pages of 1,000: e-mail matching ignores
    // case) and the matched record read by id; the run's read of whose org it writes to (its
    // journal's owner); then the two writes.
    const scan = Math.ceil(sb.store.table('prospect').size / 1000);
    expect(doc.bill).toMatchObject({ creates: 1, updates: 1, lookups: 3 + scan, requests: 5 + scan });
    const mark = sb.requests.length;
    const run = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--journal', `${file}.j`]);
    expect(run.code, run.stderr).toBe(0);
    expect(received(sb, mark)).toHaveLength(doc.bill.requests!);
    const after = await call(sb, 'GET', `prospects/${p.body.data.id}`);
    expect(String(after.body.data.relationships.account.data.id)).toBe(String(acct));
    // Resumed with the same journal: every row is done (its names still resolve, as they are
    // checked before the journal is), nothing is written again.
    const mark2 = sb.requests.length;
    const again = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--journal', `${file}.j`]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/2 rows: 0 to match, 2 done by earlier runs, 0 invalid/);
    expect(received(sb, mark2).filter((q) => q.method !== 'GET')).toHaveLength(0);
  });
});
