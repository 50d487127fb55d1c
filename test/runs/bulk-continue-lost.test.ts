/**
 * `svc prospects update --input` whose PATCH of one record is carried out by the server but its
 * answer never arrives (the connection reset after the server did the work, every attempt), nor
 * can it be read back: the run ends with that row in doubt. The rerun sends it again and continues the first run's record
 * (bulk-run/run-continue.ts) — where that row keeps its FIRST before-image: read again by the
 * rerun, the record already holds the value the lost PATCH wrote. `svc runs undo` of the one run
 * then sets every record back, the one in doubt included. In-process, through the fault proxy
 * (test/helpers/fault-proxy.ts); the process does not matter. Size: SVC_BULK_CONT_LOST_ROWS
 * rows (default 10: about 3 s).
 *
 * Also a `delete --input` whose last row's DELETE a kill cut off after the server did it (the
 * record's outcome line written and the journal's not, or neither): the state is made by cutting
 * both files where the kill would have, so the kill lands there every time (bulk-continue-kill
 * hit the first once under load).
 *
 * And an upsert whose last create the server made while its answer was lost — a kill before the
 * answer (the files cut as it leaves them: the journal's row `pending`), or the answer and the
 * lookup both lost (`unknown`): the rerun's match finds the record holding the row, and the row
 * is the run's create (`created`, recovered; `runs list`, `show` and the undo count it), not
 * "unchanged" and skipped, the run's record keeping it cut short or unknown (a trial).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dataDir } from '../../src/auth/config-dir.js';
import { runFile, runsDir } from '../../src/bulk/run/run-record.js';
import { emailHolders, emailOf, inputFile, ndjson } from '../helpers/bulk.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

const ROWS = Number(process.env.SVC_BULK_CONT_LOST_ROWS ?? 10);
/** Rows of the delete whose last journal line a kill took. */
const DELETES = 3;

let sb: TestSandbox;
let proxy: FaultProxy;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: ROWS + 2 * DELETES + 5 });
  sb = s.sb;
  proxy = await startFaultProxy(new URL(sb.baseUrl).origin);
  const e = s.env();
  env = baseEnv({ ...e, SVC_BASE_URL: e.SVC_BASE_URL!.replace(new URL(sb.baseUrl).origin, proxy.origin) });
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await sb?.close();
});

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 60_000 });
const title = (id: number) => (sb.store.table('prospect').get(id)!.attributes as Record<string, unknown>)['title'];

it('an update whose answer was lost, a rerun, the undo: every record back, the one in doubt too', { timeout: 60_000 }, async () => {
  const ids = [...sb.store.table('prospect').keys()].sort((a, b) => a - b).slice(0, ROWS);
  const before = new Map(ids.map((id) => [id, title(id)]));
  const lost = ids[Math.floor(ROWS / 2)]!;
  const file = inputFile('lost.csv', `id,title\n${ids.map((id) => `${id},Lost ${id}`).join('\n')}\n`);
  const args = ['prospects', 'update', '--input', file, '--settle', '0'];

  // Every PATCH of that record reaches the server, and no answer comes back; its read-back fails
  // too: the row ends in doubt (failed, to be sent again by a rerun).
  const record = new RegExp(`/prospects/${lost}(\\?|$)`);
  const removePatch = proxy.always({ method: 'PATCH', path: record }, { kind: 'reset-after' });
  const removeGet = proxy.always({ method: 'GET', path: record }, { kind: 'reset-before' });
  const first = await svc(args);
  removePatch();
  removeGet();
  expect(first.code, first.stderr).not.toBe(0);
  expect(title(lost)).toBe(`Lost ${lost}`);
  const firstRun = /recorded as run (\S+):/.exec(first.stderr)?.[1];
  expect(firstRun, first.stderr).toBeTruthy();

  const rerun = await svc(args);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stderr).toMatch(new RegExp(`continuing run ${firstRun} \\((it ended with \\d+ of|stopped after)`));
  for (const id of ids) expect(title(id)).toBe(`Lost ${id}`);
  const list = await svc(['runs', 'list', '-o', 'json']);
  expect((JSON.parse(list.stdout) as { id: string }[]).map((r) => r.id)).toEqual([firstRun]);
  const show = await svc(['runs', 'show', firstRun!, '-o', 'json']);
  const row = (JSON.parse(show.stdout) as { id: number; before: { attributes: Record<string, unknown> } }[]).find((r) => r.id === lost);
  expect(row?.before.attributes['title']).toBe(before.get(lost) ?? null);

  const undo = await svc(['runs', 'undo', firstRun!]);
  expect(undo.code, undo.stderr).toBe(0);
  for (const id of ids) expect(title(id), `prospect ${id}`).toBe(before.get(id));
});

/**
 * Runs `args` to its end (exit 0) and reads its run record and journal, each line a string, the
 * last of `rows` rows done last: the tests cut them where a kill would.
 */
async function finishedRun(args: string[], rows: number) {
  const first = await svc(args);
  expect(first.code, first.stderr).toBe(0);
  const id = /recorded as run (\S+):/.exec(first.stderr)?.[1];
  expect(id, first.stderr).toBeTruthy();
  const recFile = runFile(runsDir(dataDir(env)), id!);
  const rec = fs.readFileSync(recFile, 'utf8').split('\n').slice(0, -1);
  expect(rec.at(-1)).toContain('"k":"end"');
  expect(rec.at(-2)).toContain(`"k":"done","row":${rows},`);
  const journalFile = (JSON.parse(rec[0]!) as { r: { journal: string } }).r.journal;
  const journal = fs.readFileSync(journalFile, 'utf8').split('\n').slice(0, -1);
  return { id: id!, recFile, rec, journalFile, journal };
}

/**
 * A `delete --input` of DELETES rows whose last row's DELETE the server carried out, with the
 * files as a kill leaves them: `cut` 'journal' lands between the record's outcome line and the
 * journal's (the record says deleted, the journal has no line); 'answer' lands before the answer
 * (the record holds the row's image and no outcome, the journal no line). Made by cutting both
 * files where the kill would have, so it lands there every time.
 */
async function tornDelete(cut: 'journal' | 'answer', from: number): Promise<void> {
  const ids = [...sb.store.table('prospect').keys()].sort((a, b) => a - b).slice(from, from + DELETES);
  const emails = ids.map((id) => emailOf(sb, id));
  expect(emails.every(Boolean)).toBe(true);
  const file = inputFile(`torn-delete-${cut}.csv`, `id\n${ids.join('\n')}\n`);
  // One worker: the record's and the journal's lines come in the order of the rows.
  const args = ['prospects', 'delete', '--input', file, '--yes', '--concurrency', '1'];
  const { id, recFile, rec, journalFile, journal } = await finishedRun(args, DELETES);
  expect(rec.at(-2)).toContain('"status":"deleted"');
  fs.writeFileSync(recFile, `${rec.slice(0, cut === 'journal' ? -1 : -2).join('\n')}\n`);
  expect(journal.at(-1)).toContain(`"row":${DELETES},"status":"deleted"`);
  fs.writeFileSync(journalFile, `${journal.slice(0, -1).join('\n')}\n`);

  // The rerun sends that delete again and is refused 404: the first attempt did it (the record
  // was there when the killed run read it), so the row is deleted and the run finishes. It was
  // failed (exit 5), the run left unfinished and each rerun refused again.
  const rerun = await svc(args);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stderr).toContain(`continuing run ${id} (killed after ${cut === 'journal' ? DELETES : DELETES - 1} of ${DELETES} rows`);
  expect(rerun.stderr).not.toMatch(/failed/);
  const show = await svc(['runs', 'show', id, '-o', 'json']);
  expect((JSON.parse(show.stdout) as { row: number; status: string }[]).map((r) => r.status)).toEqual(Array(DELETES).fill('deleted'));

  const undo = await svc(['runs', 'undo', id]);
  expect(undo.code, undo.stderr).toBe(0);
  const held = emailHolders(sb);
  for (const e of emails) expect(held.get(e), e).toBe(1);
}

it('a delete killed between its record line and its journal line, a rerun, the undo: the record re-created', { timeout: 60_000 }, () =>
  tornDelete('journal', ROWS),
);

it('a delete killed before its answer, a rerun, the undo: the run finishes, the record re-created', { timeout: 60_000 }, () =>
  tornDelete('answer', ROWS + DELETES),
);

/** Rows of the upserts whose creates landed unheard. */
const UPSERTS = 4;

/** An upsert's file of new prospects as the trial's: a BOM, CRLF, blank lines, unique addresses. */
function newProspects(tag: string): { file: string; emails: string[] } {
  const emails = Array.from({ length: UPSERTS }, (_, i) => `renee.chateau${i + 1}.${tag}@harbor-capital.test`);
  const lines = emails.map((e, i) => `Renée,Château ${i + 1},${e}\r\n\r\n`);
  return { file: inputFile(`landed-${tag}.csv`, `\uFEFFfirstName,lastName,email\r\n${lines.join('')}`), emails };
}

/** The run's counts, its rows' outcomes, and the records an undo plan would delete. */
async function runState(id: string): Promise<{ rows: string; statuses: string[]; deletes: number }> {
  const list = await svc(['runs', 'list', '-o', 'json']);
  const run = (JSON.parse(list.stdout) as { id: string; rows: string }[]).find((r) => r.id === id)!;
  const show = await svc(['runs', 'show', id, '-o', 'json']);
  const statuses = (JSON.parse(show.stdout) as { row: number; status: string }[]).sort((a, b) => a.row - b.row).map((r) => r.status);
  const plan = await svc(['runs', 'undo', id, '--plan', '-o', 'json', '--settle', '0']);
  const deletes = (JSON.parse(plan.stdout) as { rows: { action: string }[] }).rows.filter((r) => r.action === 'delete').length;
  return { rows: run.rows, statuses, deletes };
}

/** The rerun of an upsert whose last create landed unheard: that row is the one run's create, found by the match. */
async function rerunFindsLanded(args: string[], file: string, emails: string[], id: string, left: string): Promise<void> {
  // Its plan shows the row done earlier, nothing to send (it showed it unchanged).
  const plan = await svc([...args, '--plan', '-o', 'json']);
  expect(plan.code, plan.stderr).toBe(0);
  const planned = JSON.parse(plan.stdout) as { rows: { row: number; action: string; reason?: string }[]; bill: Record<string, number> };
  expect(planned.rows.find((r) => r.row === UPSERTS)).toMatchObject({ action: 'skip', reason: expect.stringContaining('answer was lost') });
  expect(planned.bill).toMatchObject({ creates: 0, updates: 0, unchanged: 0, done: UPSERTS });
  const report = `${file}.report`;
  const rerun = await svc([...args, '--report', report, '-o', 'json']);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(rerun.stderr).toContain(`continuing run ${id} (${left}`);
  // It was `1 row unchanged: the record already holds every value (not sent)`, counted skipped.
  expect(rerun.stderr).not.toContain('unchanged');
  const summary = JSON.parse(rerun.stdout) as { run: string; counts: Record<string, number> };
  expect(summary.run).toBe(id);
  expect(summary.counts).toMatchObject({ created: 1, skipped: UPSERTS - 1, unknown: 0, failed: 0 });
  const held = [...sb.store.table('prospect').values()].filter((r) => emails.includes(String((r.attributes['emails'] as string[])[0])));
  expect(held).toHaveLength(UPSERTS);
  const last = held.find((r) => (r.attributes['emails'] as string[])[0] === emails.at(-1))!;
  expect(ndjson<{ row: number; status: string; id: number; recovered?: boolean }>(report).find((l) => l.row === UPSERTS)).toEqual({
    row: UPSERTS,
    status: 'created',
    id: last.id,
    error: null,
    recovered: true,
  });
  // The run's record counts it created by the run (it said "3 created, 1 cut short"), and its undo takes it back.
  expect(await runState(id)).toEqual({ rows: `${UPSERTS} created`, statuses: Array(UPSERTS).fill('created'), deletes: UPSERTS });
  // Journaled created: a further rerun skips every row as done.
  const again = await svc([...args, '-o', 'json']);
  expect(again.code, again.stderr).toBe(0);
  expect((JSON.parse(again.stdout) as { counts: Record<string, number> }).counts).toMatchObject({ created: 0, skipped: UPSERTS });
}

it('an upsert killed after its last create landed, before the answer: the rerun reports it created (recovered), the run counts it', {
  timeout: 60_000,
}, async () => {
  const { file, emails } = newProspects('kill');
  // One worker: the record's and the journal's lines come in the order of the rows.
  const args = ['prospects', 'upsert', '--input', file, '--match', 'email', '--concurrency', '1'];
  const { id, recFile, rec, journalFile, journal } = await finishedRun(args, UPSERTS);
  // The files as a kill between the create's sending and its answer leaves them: the record holds
  // the last row's image and no outcome (nor the end), the journal the row `pending`.
  fs.writeFileSync(recFile, `${rec.slice(0, -2).join('\n')}\n`);
  expect(journal.at(-2)).toContain(`"row":${UPSERTS},"status":"pending"`);
  expect(journal.at(-1)).toContain(`"row":${UPSERTS},"status":"created"`);
  fs.writeFileSync(journalFile, `${journal.slice(0, -1).join('\n')}\n`);

  await rerunFindsLanded(args, file, emails, id, `killed after ${UPSERTS - 1} of ${UPSERTS} rows`);
});

it('an upsert whose last create landed and could not be confirmed (unknown): the rerun reports it created (recovered)', {
  timeout: 60_000,
}, async () => {
  const { file, emails } = newProspects('lost');
  const args = ['prospects', 'upsert', '--input', file, '--match', 'email', '--concurrency', '1', '--settle', '0'];
  // The last row's create reaches the server and its answer never comes back; the lookup that
  // watches for it fails too: the row ends unknown (exit 5).
  const last = emails.at(-1)!;
  const removeLast = proxy.decide({ method: 'POST', path: /\/prospects(\?|$)/ }, (req) =>
    req.body.includes(last) ? { kind: 'reset-after' } : undefined,
  );
  const removeLookup = proxy.always({ method: 'GET', path: /filter%5BcreatedAt%5D|filter\[createdAt\]/ }, { kind: 'reset-before' });
  const first = await svc(args);
  removeLast();
  removeLookup();
  expect(first.code, first.stderr).toBe(5);
  const id = /recorded as run (\S+):/.exec(first.stderr)?.[1];
  expect(id, first.stderr).toBeTruthy();
  await rerunFindsLanded(args, file, emails, id!, 'it ended with 1 of');
});
