/**
 * `svc dedupe apply` on a sandbox with planted duplicates, over real HTTP: the plan with its
 * request bill writes nothing; the run fills the survivors, moves e-mail addresses, phone numbers
 * and tasks, finishes the duplicates' active enrolments and deletes the duplicates; killed with
 * SIGKILL mid-run and run again it does every step once; a cluster changed since the mirror, or
 * whose records have different owners, is left out and reported; `--tag-only --across-owners`
 * tags instead of deleting. Then `svc runs undo` of the run id the rerun prints: every duplicate
 * either run deleted is re-created exactly once. The rerun continues the killed run's record
 * (bulk-run/run-continue.ts), so the one undo holds every step; before that, the rerun was a run
 * of its own and its undo left the duplicates the killed run deleted deleted (the third of them).
 * That undo was dedupe/apply-kill-undo.test.ts, a file of its own with a second org, sync, plan
 * and killed bin/svc for the same kill (after the third delete, one at a time) and rerun as here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, spawnSvc, tempDir } from '../helpers/run-svc.js';
import { addCalls, externalIdCounts, sandboxApi } from '../helpers/dedupe-org.js';
import { killAtRequest } from '../helpers/trials.js';
import { sandboxWithEnv, type TestSandbox, until } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: NodeJS.ProcessEnv;
let dir: string;
let db: string;
const API = '/api/v2/';

beforeAll(async () => {
  let mk: () => Record<string, string>;
  ({ sb, env: mk } = await sandboxWithEnv({ seed: 300, duplicates: 5, latencyMs: 5 }));
  dir = tempDir('svc-dedupe-apply-');
  db = path.join(dir, 'org.sqlite');
  env = baseEnv({ ...mk(), SVC_CONFIG_DIR: dir });
}, 60_000);
afterAll(() => sb.close());

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 60_000 });
const api = (method: string, p: string, body?: unknown) => sandboxApi(sb)(method, p, body);
const writes = (since: number) => sb.requests.slice(since).filter((r) => r.method !== 'GET');

describe('svc dedupe apply', () => {
  it('merges every cluster once, across a SIGKILL and a rerun, and leaves out what changed or has other owners', async () => {
    // Planted duplicates, from the sandbox's truth.
    const all = (await api('GET', 'prospects?page[limit]=1000&filter[externalSource]=import')).body.data as any[];
    const dups = all.filter((p) => String(p.attributes.externalId).startsWith('planted-dup:'));
    expect(dups.length).toBe(15);
    // The first duplicate is enrolled (an active state to finish); the second gets another owner.
    const enrol = await api('POST', 'sequenceStates', {
      data: {
        type: 'sequenceState',
        relationships: {
          prospect: { data: { type: 'prospect', id: dups[0].id } },
          sequence: { data: { type: 'sequence', id: 1 } },
          mailbox: { data: { type: 'mailbox', id: 1 } },
        },
      },
    });
    expect(enrol.status, JSON.stringify(enrol.body)).toBe(201);
    // Its original has more activity (calls), so that the enrolled record is the duplicate.
    const original = String(dups[0].attributes.externalId).split(':')[1]!;
    await addCalls(sb, original, 4);
    const owner = dups[1].relationships.owner.data.id === '2' || dups[1].relationships.owner.data.id === 2 ? 3 : 2;
    expect(
      (
        await api('PATCH', `prospects/${dups[1].id}`, {
          data: { type: 'prospect', id: dups[1].id, relationships: { owner: { data: { type: 'user', id: owner } } } },
        })
      ).status,
    ).toBe(200);

    // The enrolment's first mailing is delivered ~200 ms later, and delivery touches the prospect
    // (touchedAt, updatedAt). Synced before that, apply found its cluster changed since the mirror
    // and left it out (12 clusters for 13, now and then on a loaded machine): the sync waits.
    await until(async () => {
      const mailings = (await api('GET', `mailings?page[limit]=1000&filter[prospect][id]=${dups[0].id}`)).body.data as any[];
      return mailings.length > 0 && mailings.every((m) => m.attributes.deliveredAt);
    }, 10_000);
    const sync = await svc(['sync', '--db', db]);
    expect(sync.code, sync.stderr).toBe(0);
    const plan = path.join(dir, 'merge.json');
    const found = await svc(['dedupe', 'prospects', '--db', db, '--plan', plan, '-o', 'json']);
    expect(found.code, found.stderr).toBe(0);
    const doc = JSON.parse(fs.readFileSync(plan, 'utf8'));
    expect(doc.clusters.length).toBeGreaterThanOrEqual(14);
    const clusterOf = (id: number) => doc.clusters.find((c: any) => [c.survivor.id, ...c.duplicates.map((d: any) => d.id)].includes(id));
    // The enrolled duplicate's state is in its plan, and so are its address and number records.
    const enrolled = clusterOf(Number(dups[0].id));
    expect(enrolled.survivor.id).toBe(Number(original));
    const enrolledDup = enrolled.duplicates.find((d: any) => d.id === Number(dups[0].id));
    expect(enrolled.duplicates.flatMap((d: any) => d.finish)).toContain(Number(enrol.body.data.id));
    expect(enrolledDup.move.emailAddress?.length).toBe(1);

    // A record of another cluster changes after the mirror read it.
    const changed = clusterOf(Number(dups[2].id));
    expect(
      (await api('PATCH', `prospects/${dups[2].id}`, { data: { type: 'prospect', id: dups[2].id, attributes: { title: 'Changed' } } }))
        .status,
    ).toBe(200);

    // An address linked to a duplicate after the mirror read it: apply finds it and moves it too.
    const late = clusterOf(Number(dups[3].id));
    const lateDup = late.duplicates[0].id;
    const lateAddress = await api('POST', 'emailAddresses', {
      data: {
        type: 'emailAddress',
        attributes: { email: 'late@example.com' },
        relationships: { prospect: { data: { type: 'prospect', id: lateDup } } },
      },
    });
    expect(lateAddress.status, JSON.stringify(lateAddress.body)).toBe(201);

    // --plan: the requests and the bill, nothing written.
    let mark = sb.requests.length;
    const preview = await svc(['dedupe', 'apply', plan, '--plan', '-o', 'ndjson']);
    expect(preview.code, preview.stderr).toBe(0);
    expect(writes(mark)).toEqual([]);
    const bill = JSON.parse(preview.stdout.trim().split('\n').at(-1)!).bill;
    // One document with -o json (what a pipe gets), lines to read on a terminal (-o table): the
    // same clusters and requests. It printed NDJSON whatever the format.
    const previews = preview.stdout
      .trim()
      .split('\n')
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    const asJson = await svc(['dedupe', 'apply', plan, '--plan', '-o', 'json']);
    expect(JSON.parse(asJson.stdout)).toEqual({ clusters: previews, bill });
    expect((await svc(['dedupe', 'apply', plan, '--plan', '-o', 'json', '--query', 'bill.clusters'])).stdout.trim()).toBe(
      String(bill.clusters),
    );
    const asText = (await svc(['dedupe', 'apply', plan, '--plan', '-o', 'table'])).stdout.split('\n');
    const first = previews[0];
    expect(asText[0]).toBe(
      `cluster ${first.cluster}: keep prospect ${first.survivor}, merge ${first.duplicates.join(', ')} (${first.requests.length} write(s))`,
    );
    expect(asText).toContainEqual(expect.stringMatching(new RegExp(`^  DELETE +/prospects/${first.duplicates[0]} +delete$`)));
    expect(asText.filter((l) => l.startsWith('cluster ')).length).toBe(previews.length);
    expect(writes(mark)).toEqual([]);
    const toMerge = doc.clusters.length - 2;
    expect(bill.clusters).toBe(toMerge);
    expect(bill.deletes).toBe(
      doc.clusters
        .slice()
        .filter((c: any) => c !== changed && c !== clusterOf(Number(dups[1].id)))
        .reduce((n: number, c: any) => n + c.duplicates.length, 0),
    );
    expect(preview.stderr).toMatch(/left out: changed since the mirror read them/);
    expect(preview.stderr).toMatch(/left out: owners differ/);

    // The run, killed after its third delete, then run again.
    const merged: number[] = doc.clusters
      .filter((c: any) => c !== changed && c !== clusterOf(Number(dups[1].id)))
      .flatMap((c: any) => c.duplicates.map((d: any) => d.id));
    expect(merged.length).toBeGreaterThan(3);
    const externalIdOf = new Map<number, string>();
    for (const id of merged) externalIdOf.set(id, sb.store.table('prospect').get(id)!.attributes['externalId'] as string);
    mark = sb.requests.length;
    const child = spawnSvc(['dedupe', 'apply', plan, '--concurrency', '1', '--yes'], { env: env as Record<string, string> });
    expect((await killAtRequest(child, sb.requests, (r) => r.method === 'DELETE', 3)).interrupted).toBe(true);
    const rerun = await svc(['dedupe', 'apply', plan, '--yes']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/row\(s\) recorded by earlier runs/);
    expect(rerun.stderr).toMatch(/continuing run \S+ \(killed after/);
    // Counted in clusters, as the summary counts them; the whole run's line says "merged" too (it
    // gave only the records' writes, and the kill line counted clusters read ahead: a review).
    const before = Number(/killed after (\d+) of \d+ clusters of /.exec(rerun.stderr)?.[1]);
    expect(rerun.stderr).toMatch(
      new RegExp(`this part: \\d+ merged, ${before} skipped \\(\\d+ of \\d+ clusters in [\\d.]+ s; ${before} done by the part before\\)`),
    );
    expect(rerun.stderr).toMatch(new RegExp(`dedupe apply prospects, in all \\(run \\S+\\): ${toMerge} merged; in their records: `));
    const run = /recorded as run (\S+):/.exec(rerun.stderr)?.[1];
    expect(run, rerun.stderr).toBeTruthy();

    // Every write once: at most the one in flight at the kill is sent twice (every step is idempotent).
    const sent = new Map<string, number>();
    for (const r of writes(mark)) sent.set(`${r.method} ${r.path}`, (sent.get(`${r.method} ${r.path}`) ?? 0) + 1);
    const twice = [...sent].filter(([, n]) => n > 1);
    expect(twice.length, JSON.stringify(twice)).toBeLessThanOrEqual(1);

    const movedTypes = new Set<string>();
    for (const c of doc.clusters) {
      const left = c === changed || c === clusterOf(Number(dups[1].id));
      for (const d of c.duplicates) expect((await api('GET', `prospects/${d.id}`)).status, `prospect ${d.id}`).toBe(left ? 200 : 404);
      const s = (await api('GET', `prospects/${c.survivor.id}`)).body.data;
      expect(s, `survivor ${c.survivor.id}`).toBeTruthy();
      if (left) continue;
      for (const [field, { value }] of Object.entries<any>(c.fill)) expect(s.attributes[field], `${c.survivor.id}.${field}`).toEqual(value);
      // Every linked record moved: addresses, numbers, tasks.
      for (const d of c.duplicates)
        for (const [type, list] of Object.entries<number[]>(d.move))
          for (const id of list) {
            const got = await api('GET', `${type === 'emailAddress' ? 'emailAddresses' : `${type}s`}/${id}`);
            const e = got.body?.data;
            expect(e, `${type} ${id}: ${JSON.stringify(got.body)}`).toBeTruthy();
            expect(String(e.relationships.prospect.data.id), `${type} ${id}`).toBe(String(c.survivor.id));
            movedTypes.add(type);
          }
    }
    expect([...movedTypes].sort()).toEqual(expect.arrayContaining(['emailAddress', 'phoneNumber']));
    const lateNow = (await api('GET', `emailAddresses/${lateAddress.body.data.id}`)).body.data;
    expect(String(lateNow.relationships.prospect.data?.id)).toBe(String(late.survivor.id));
    // The enrolment was finished before its prospect was deleted.
    expect(
      writes(mark).filter((r) => r.method === 'POST' && r.path === `${API}sequenceStates/${enrol.body.data.id}/actions/finish`).length,
    ).toBe(1);
    // Some survivor took a field it lacked (a date of birth, an address).
    expect(doc.clusters.some((c: any) => Object.keys(c.fill).length > 0)).toBe(true);

    // A rerun does nothing more.
    mark = sb.requests.length;
    const again = await svc(['dedupe', 'apply', plan, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(writes(mark)).toEqual([]);
    // Said once, counted: not a line per cluster done (a Paris trial's rerun after Ctrl-C printed
    // 32 such lines before its summary; a plan of thousands would print thousands).
    expect(again.stderr).toMatch(new RegExp(`: 0 cluster\\(s\\) to merge, ${toMerge} merged by an earlier run`));
    expect(again.stderr).not.toMatch(/left out: merged by an earlier run/);

    // --tag-only --across-owners (another journal): the cluster of two owners is tagged, its duplicate left.
    const across = clusterOf(Number(dups[1].id));
    const tagged = await svc(['dedupe', 'apply', plan, '--tag-only', '--across-owners', '--journal', path.join(dir, 'tag.journal')]);
    expect(tagged.code, tagged.stderr).toBe(0);
    for (const d of across.duplicates) {
      const r = await api('GET', `prospects/${d.id}`);
      expect(r.status).toBe(200);
      expect(r.body.data.attributes.tags).toContain(`duplicate-of-${across.survivor.id}`);
    }
    expect(tagged.stderr).toMatch(/left out: changed since the mirror read them/);

    // The undo of the run the rerun continued: every duplicate either run deleted re-created exactly once.
    const undoMark = sb.requests.length;
    const undo = await svc(['runs', 'undo', run!]);
    expect(undo.code, undo.stderr).toBe(0);
    const creates = sb.requests.slice(undoMark).filter((r) => r.method === 'POST' && r.path === `${API}prospects` && r.status === 201);
    expect(creates.length).toBe(merged.length);
    const held = externalIdCounts(sb);
    for (const id of merged) if (externalIdOf.get(id)) expect(held.get(externalIdOf.get(id)!) ?? 0, `duplicate ${id}`).toBe(1);
  }, 180_000);

  it('merges a duplicate account: its prospects move to the survivor, then it is deleted', async () => {
    const orig = (await api('GET', 'accounts?page[limit]=1&sort=id')).body.data[0];
    const dup = await api('POST', 'accounts', {
      data: {
        type: 'account',
        attributes: {
          name: `${String(orig.attributes.name).toUpperCase()}, Inc.`,
          websiteUrl: `https://www.${orig.attributes.domain}/about`,
          industry: null,
        },
        // The same owner: apply merges records of one owner only (unless --across-owners).
        relationships: { owner: orig.relationships.owner },
      },
    });
    expect(dup.status, JSON.stringify(dup.body)).toBe(201);
    const p = await api('POST', 'prospects', {
      data: {
        type: 'prospect',
        attributes: { firstName: 'Moved', lastName: 'Along' },
        relationships: { account: { data: { type: 'account', id: dup.body.data.id } } },
      },
    });
    expect(p.status).toBe(201);
    const db2 = path.join(dir, 'accounts.sqlite');
    expect((await svc(['sync', '--db', db2, 'users', 'accounts', 'prospects'])).code).toBe(0);
    const plan = path.join(dir, 'accounts.json');
    const found = await svc(['dedupe', 'accounts', '--db', db2, '--plan', plan, '-o', 'csv']);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toMatch(new RegExp(`domain ${String(orig.attributes.domain).replace(/\./g, '\\.')}`));
    const doc = JSON.parse(fs.readFileSync(plan, 'utf8'));
    const c = doc.clusters.find((x: any) => x.survivor.id === Number(orig.id));
    expect(c.duplicates.map((d: any) => d.id)).toContain(Number(dup.body.data.id));
    expect(c.duplicates.find((d: any) => d.id === Number(dup.body.data.id)).move.prospect).toEqual([Number(p.body.data.id)]);
    // Only this cluster: the plan is the user's to edit.
    doc.clusters = [c];
    fs.writeFileSync(plan, JSON.stringify(doc));
    // Deleting needs --yes outside a terminal: refused, nothing written.
    const mark = sb.requests.length;
    const files = fs.readdirSync(dir).sort();
    const refused = await svc(['dedupe', 'apply', plan]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing to delete 1 duplicate\(s\) without --yes/);
    expect(writes(mark)).toEqual([]);
    // No side file either: the journal is opened once the question is answered (it was left beside the plan).
    expect(fs.readdirSync(dir).sort()).toEqual(files);
    const r = await svc(['dedupe', 'apply', plan, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect((await api('GET', `accounts/${dup.body.data.id}`)).status).toBe(404);
    // The summary counts clusters merged, then the writes in the words and numbers `runs list`
    // gives the run (a trial: "15 updated" there, "updated 49, deleted 15" in the list).
    expect(r.stderr).toMatch(
      /dedupe apply accounts: 1 merged \(1 of 1 cluster in [\d.]+ s\); in their records: (\d+) updated, 1 deleted\n/,
    );
    const recorded = /in their records: (.*)\n/.exec(r.stderr)![1];
    const run = /recorded as run (\S+):/.exec(r.stderr)![1];
    const listed = JSON.parse((await svc(['runs', 'list', '-o', 'json'])).stdout) as { id: string; rows: string }[];
    expect(listed.find((x) => x.id === run)?.rows).toBe(recorded);
    const moved = (await api('GET', `prospects/${p.body.data.id}`)).body.data;
    expect(String(moved.relationships.account.data.id)).toBe(String(orig.id));
  }, 60_000);

  it('refuses a file that is not a merge plan (exit 2)', async () => {
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, '{"clusters": []}');
    const r = await svc(['dedupe', 'apply', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a merge plan of svc dedupe/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a plan file that is not there: exit 2, one line naming it and how to make one', async () => {
    // A new-user trial: `error: cannot read nope.json: ENOENT`, exit 1.
    const mark = sb.requests.length;
    const r = await svc(['dedupe', 'apply', 'nope.json', '--plan']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: plan nope.json: no such file (looked for ${path.resolve('nope.json')}); make one with svc dedupe prospects --plan FILE (or accounts)\n`,
    );
    expect(sb.requests.length).toBe(mark);
    // svc sql -f likewise.
    const q = await svc(['sql', '-f', 'nope.sql', '--db', db]);
    expect(q.code).toBe(2);
    expect(q.stderr).toBe(`error: -f nope.sql: no such file (looked for ${path.resolve('nope.sql')}); check the path of the SQL file\n`);
  });
});
