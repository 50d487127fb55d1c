/**
 * `svc enroll` against the sandbox: by id and by e-mail, prospects already in the sequence,
 * prospects the server refuses (exclusivity, opted out), ids no prospect has (checked before
 * anything is sent), the report and journal, the requests sent (batched lookups, one state
 * listing), exit codes, --dry-run, --shard. The usage
 * errors that need no terminal are checked in-process in test/unit/commands/enroll/usage.test.ts.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { spawnSvc, tempDir } from '../helpers/run-svc.js';
import { afterRecorded } from '../helpers/arrivals.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { enrollHandler } from '../../src/commands/enroll/handler.js';
import { systemClock } from '../../src/runtime/context.js';
import { terminalContext } from '../helpers/terminal-context.js';
import {
  call,
  emailOf,
  enrollDirect,
  freeProspects,
  inputFile,
  liveSequence,
  ndjson,
  newSequence,
  stateProspects,
} from '../helpers/bulk.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 150 }));
  // The seeded org's statistics opt some prospects out; these tests choose who opts out.
  for (const rec of sb.store.table('prospect').values()) {
    if (rec.attributes['optedOut']) Object.assign(rec.attributes, { optedOut: false, optedOutAt: null, emailsOptStatus: null });
  }
});
afterAll(() => sb.close());

const svc = (args: string[]) => svcInProcess(args, { env: env() });

describe('svc enroll --prospect', () => {
  it('enrolls the new ones, skips those already in, reports refusals per row, exit 5', async () => {
    const [p1, p2, p3, p5, p6] = freeProspects(sb, 5, 100) as [number, number, number, number, number];
    const seq = await newSequence(sb);
    await enrollDirect(sb, p3, seq);
    // p5 is active in a sequence whose ruleset says all_sequences: no other sequence may take it.
    const exclusive = await newSequence(sb, { sequenceExclusivity: 'all_sequences' });
    await enrollDirect(sb, p5, exclusive);
    // p6 opted out.
    expect(
      (await call(sb, 'PATCH', `prospects/${p6}`, { data: { type: 'prospect', id: p6, attributes: { optedOut: true } } })).status,
    ).toBe(200);
    const dir = tempDir('svc-enroll-');
    const report = `${dir}/report.ndjson`;
    const mark = sb.requests.length;
    const r = await svc([
      'enroll',
      '--sequence',
      String(seq),
      '--mailbox',
      '2',
      '--prospect',
      `${p1},${p2},${p3}`,
      '--prospect',
      String(p5),
      String(p6),
      '--report',
      report,
    ]);
    expect(r.code, r.stderr).toBe(5);
    expect(stateProspects(sb, seq)).toEqual([p1, p2, p3]);
    const lines = ndjson<{ row: number; status: string; id: number | null; error: string | null; prospect: number; reason?: string }>(
      report,
    ).sort((a, b) => a.row - b.row);
    expect(lines.map((l) => [l.row, l.prospect, l.status])).toEqual([
      [1, p1, 'created'],
      [2, p2, 'created'],
      [3, p3, 'skipped'],
      [4, p5, 'failed'],
      [5, p6, 'failed'],
    ]);
    expect(lines[2]!.reason).toBe('already in the sequence');
    expect(lines[3]!.error).toMatch(/HTTP 422 .*sequence exclusivity \(all_sequences\)/);
    expect(lines[4]!.error).toMatch(/opted out/);
    for (const l of lines) expect(Object.keys(l).slice(0, 4)).toEqual(['row', 'status', 'id', 'error']);
    expect(typeof lines[0]!.id).toBe('number');
    expect(r.stderr).toMatch(/enroll: 2 created, 1 skipped, 2 failed \(5 of 5 rows/);
    expect(r.stderr).toMatch(/error: 2 of 5 rows failed/);
    expect(r.stdout).toBe('');
    // What was sent: the two checks, one step of the sequence (whether it has any), one listing
    // of the sequence's states, one read of the ids not in it (that they exist, and who opted
    // out), one POST per candidate: not the opted-out one's.
    const sent = received(sb, mark);
    expect(sent.map((q) => `${q.method} ${q.path}`).slice(0, 5)).toEqual([
      `GET /api/v2/sequences/${seq}`,
      'GET /api/v2/mailboxes/2',
      'GET /api/v2/sequenceSteps',
      'GET /api/v2/sequenceStates',
      'GET /api/v2/prospects',
    ]);
    expect(sent[2]!.query.parsed).toMatchObject({ 'filter[sequence][id]': String(seq), 'page[limit]': '1' });
    expect(sent[3]!.query.parsed).toMatchObject({ 'filter[sequence][id]': String(seq), 'page[limit]': '1000' });
    // Ids and what says whether each may be mailed (an opted-out prospect's row fails before sending).
    expect(sent[4]!.query.parsed).toMatchObject({ 'fields[prospect]': 'optedOut,emailsOptStatus' });
    expect(
      String(sent[4]!.query.parsed['filter[id]'])
        .split(',')
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([p1, p2, p5, p6]);
    const posts = sent.filter((q) => q.method === 'POST');
    expect(posts).toHaveLength(3);
    expect(JSON.parse(posts.find((p) => p.body.includes(`"id":${p1}}`))!.body)).toEqual({
      data: {
        type: 'sequenceState',
        relationships: {
          prospect: { data: { type: 'prospect', id: p1 } },
          sequence: { data: { type: 'sequence', id: seq } },
          mailbox: { data: { type: 'mailbox', id: 2 } },
        },
      },
    });
  });

  it('exit 0 when every row is done or skipped; nothing is sent for prospects already in', async () => {
    const seq = await newSequence(sb);
    await enrollDirect(sb, 7, seq);
    const mark = sb.requests.length;
    const r = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--prospect', '7', '--prospect', '8', '--prospect', '8']);
    expect(r.code, r.stderr).toBe(0);
    expect(stateProspects(sb, seq)).toEqual([7, 8]);
    expect(received(sb, mark, 'sequenceStates').filter((q) => q.method === 'POST')).toHaveLength(1);
    expect(r.stderr).toMatch(/1 created, 2 skipped/);
  });

  it('an id no prospect has is refused before anything is sent, with or without --strict: exit 2, nothing enrolled (a new user’s trial)', async () => {
    const [p1, p2] = freeProspects(sb, 2, 140) as [number, number];
    const seq = await newSequence(sb);
    const enroll = (...args: string[]) => svc(['enroll', '--sequence', String(seq), '--mailbox', '1', ...args]);
    const mark = sb.requests.length;
    // The trial's command: the summary promised 2 enrolments, the run made one and exited 5.
    const strict = await enroll('--prospect', `${p1},99999`, '--strict');
    expect(strict.code, strict.stderr).toBe(2);
    expect(strict.stderr).toContain('error: --prospect 99999: no prospect has this id; nothing was enrolled\n');
    expect(strict.stderr).toContain(
      '\nhint: leave it out or correct it; svc prospects list --filter emails=ADDRESS finds the id of a prospect\n',
    );
    expect(strict.stderr).not.toMatch(/to enroll: |created/);
    // Without --strict the same: the ids were typed, and a typo among them is a usage error.
    const loose = await enroll('--prospect', String(p1), '--prospect', `888888,${p2},99999`);
    expect(loose.code, loose.stderr).toBe(2);
    expect(loose.stderr).toContain('error: --prospect 888888, 99999: no prospect has these ids; nothing was enrolled\n');
    expect(loose.stderr).toContain('\nhint: leave them out or correct them; ');
    expect(received(sb, mark).filter((q) => q.method !== 'GET')).toEqual([]);
    expect(stateProspects(sb, seq)).toEqual([]);
    // Cheap: one read of the ids a run (ids only), never one request per id.
    expect(received(sb, mark, 'prospects')).toHaveLength(2);
    const many = Array.from({ length: 300 }, (_, i) => 500_000 + i).join(',');
    const big = sb.requests.length;
    const r = await enroll('--prospect', `${p1},${many}`);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --prospect 500000, 500001, .*, 500009 and 290 more: no prospect has these ids; nothing was enrolled$/m,
    );
    expect(received(sb, big, 'prospects')).toHaveLength(1);
    expect(stateProspects(sb, seq)).toEqual([]);
  });
});

describe('svc enroll --input', () => {
  it('--by email: a header-less file, addresses matched ignoring case in batches, unknown address reported', async () => {
    const seq = await newSequence(sb);
    const ids = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
    await enrollDirect(sb, 10, seq);
    const emails = ids.map((id) => emailOf(sb, id));
    emails[3] = emails[3]!.toUpperCase();
    const file = inputFile('leads.csv', [...emails, 'nobody@nowhere.test'].join('\n') + '\n');
    const report = inputFile('r.ndjson', '');
    const mark = sb.requests.length;
    const r = await svc([
      'enroll',
      '--sequence',
      String(seq),
      '--mailbox',
      '1',
      '--input',
      file,
      '--by',
      'email',
      '--report',
      report,
      '--concurrency',
      '3',
    ]);
    expect(r.code, r.stderr).toBe(5);
    expect(stateProspects(sb, seq)).toEqual(ids);
    // The prospects' addresses read once (pages of 1,000, addresses only), compared lower-cased;
    // then the ten found read by id in one request.
    const lookups = received(sb, mark, 'prospects');
    const scans = lookups.filter((q) => q.query.parsed['filter[id]'] === undefined);
    expect(scans).toHaveLength(Math.ceil(sb.store.table('prospect').size / 1000));
    expect(scans.every((q) => q.query.parsed['fields[prospect]'] === 'emails')).toBe(true);
    const reads = lookups.filter((q) => q.query.parsed['filter[id]'] !== undefined);
    expect(reads).toHaveLength(1);
    expect(
      String(reads[0]!.query.parsed['filter[id]'])
        .split(',')
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(ids);
    const lines = ndjson<{ row: number; status: string; email: string; prospect?: number; error: string | null }>(report);
    expect(lines).toHaveLength(11);
    expect(lines.find((l) => l.row === 11)).toMatchObject({
      status: 'failed',
      email: 'nobody@nowhere.test',
      error: 'not found: no prospect has the address nobody@nowhere.test',
    });
    expect(lines.find((l) => l.row === 4)).toMatchObject({ status: 'created', prospect: 13 });
    expect(lines.find((l) => l.row === 1)).toMatchObject({ status: 'skipped', prospect: 10 });
    // The journal beside the input records each enrolment with the server's id.
    const journal = ndjson<{ key: string; row: number; status: string; id?: number; at: string }>(`${file}.journal.ndjson`);
    const created = journal.filter((j) => j.status === 'created');
    expect(created).toHaveLength(9);
    for (const j of created) {
      expect(typeof j.id).toBe('number');
      expect(j.key).toMatch(/^[\w-]{22}$/);
      expect(Date.parse(j.at)).not.toBeNaN();
    }
    expect(journal.filter((j) => j.status === 'pending')).toHaveLength(9);

    // A rerun does only what is left: no enrolment and no address lookup for journaled rows.
    const again = sb.requests.length;
    const r2 = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--by', 'email']);
    expect(r2.code).toBe(5);
    expect(received(sb, again, 'sequenceStates').filter((q) => q.method === 'POST')).toHaveLength(0);
    // Only the two rows not journaled are looked up: the one found (prospect 10) is read by id.
    const reads2 = received(sb, again, 'prospects').filter((q) => q.query.parsed['filter[id]'] !== undefined);
    expect(reads2.map((q) => String(q.query.parsed['filter[id]']))).toEqual(['10']);
    expect(r2.stderr).toMatch(/10 skipped, 1 failed/);
  });

  it('--by id from NDJSON list output and CSV with an id column; --strict stops invalid input before sending', async () => {
    const seq = await newSequence(sb);
    const nd = inputFile(
      'p.ndjson',
      [20, 21, 22].map((id) => JSON.stringify({ id, type: 'prospect', emails: [emailOf(sb, id)] })).join('\n'),
    );
    const r = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', nd]);
    expect(r.code, r.stderr).toBe(0);
    const csv = inputFile('p.csv', 'id,firstName\n23,A\nabc,B\n24,C\n');
    const mark = sb.requests.length;
    const strict = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', csv, '--strict']);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/row 2: id: "abc" is not a prospect id/);
    expect(strict.stderr).toMatch(/1 of 3 rows are invalid; nothing was sent \(--strict\)/);
    expect(sb.requests.length).toBe(mark);
    const loose = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', csv]);
    expect(loose.code).toBe(5);
    expect(stateProspects(sb, seq)).toEqual([20, 21, 22, 23, 24]);
    // Listed once, by the checks before the run.
    expect(loose.stderr.match(/row 2: .*"abc" is not a prospect id/g)).toHaveLength(1);
  });

  it('a row whose prospect does not exist: --strict stops before any enrolment (exit 2); without it the row fails and is not counted to enroll (a new user’s trial)', async () => {
    const [p1, p2] = freeProspects(sb, 2, 145) as [number, number];
    const seq = await newSequence(sb);
    const csv = inputFile('ids.csv', `id\n${p1}\n99999\n${p2}\n`);
    const enroll = (...args: string[]) => svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', csv, ...args]);
    const mark = sb.requests.length;
    const strict = await enroll('--strict');
    expect(strict.code, strict.stderr).toBe(2);
    expect(strict.stderr).toContain('row 2: not found: no prospect has id 99999\n');
    expect(strict.stderr).toContain('error: 1 of 3 rows would fail; nothing was enrolled (--strict)\n');
    expect(strict.stderr).not.toMatch(/to enroll: |created/);
    expect(received(sb, mark).filter((q) => q.method !== 'GET')).toEqual([]);
    expect(stateProspects(sb, seq)).toEqual([]);
    // Without --strict the row fails as bulk rows do, said before the summary, which promises the two others only.
    const report = `${tempDir('svc-enroll-')}/r.ndjson`;
    const loose = await enroll('--report', report);
    expect(loose.code, loose.stderr).toBe(5);
    const before = loose.stderr.slice(0, loose.stderr.indexOf('enroll into sequence'));
    expect(before).toContain('row 2: failed: not found: no prospect has id 99999\n');
    expect(loose.stderr).toMatch(/rows: 3 · already enrolled: 0 · to enroll: 2 · failing checks: 1\n/);
    expect(loose.stderr).toMatch(/enroll: 2 created, 1 failed \(3 of 3 rows/);
    expect(stateProspects(sb, seq)).toEqual([p1, p2]);
    expect(received(sb, mark, 'sequenceStates').filter((q) => q.method === 'POST')).toHaveLength(2);
    expect(ndjson<{ row: number; status: string; error: string }>(report).find((l) => l.row === 2)).toMatchObject({
      status: 'failed',
      error: 'not found: no prospect has id 99999',
    });
  });

  it('an opted-out prospect fails its row before anything is sent, by id and by address, and is not counted to enroll (a trial)', async () => {
    // The dry run said "to enroll: 3"; the server refused the opted-out one after the others (422).
    // Prospects of its own, made here: the other tests take free ones from the seed's.
    const made: number[] = [];
    for (const [i, attributes] of [{}, { optedOut: true }, { emailsOptStatus: 'opted_out' }].entries()) {
      const r = await call(sb, 'POST', 'prospects', {
        data: { type: 'prospect', attributes: { firstName: `Opt${i}`, emails: [`opt.${i}@optout.test`], ...attributes } },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      made.push(Number(r.body.data.id));
    }
    const [p1, out, byMail] = made as [number, number, number];
    const seq = await newSequence(sb);
    const mark = sb.requests.length;
    const ids = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--prospect', `${p1},${out}`, '--yes']);
    expect(ids.code, ids.stderr).toBe(5);
    expect(ids.stderr).toContain(`row 2: failed: opted out: prospect ${out} has opted out of email, and a sequence would mail it\n`);
    expect(ids.stderr).toMatch(/rows: 2 · already enrolled: 0 · to enroll: 1 · failing checks: 1\n/);
    const csv = inputFile('mails.csv', `email\n${emailOf(sb, byMail)}\n`);
    const mails = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', csv, '--by', 'email', '--yes']);
    expect(mails.code, mails.stderr).toBe(5);
    expect(mails.stderr).toContain(`opted out: prospect ${byMail} has opted out of email`);
    // Only the one that may be mailed was sent.
    expect(received(sb, mark, 'sequenceStates').filter((q) => q.method === 'POST')).toHaveLength(1);
    expect(stateProspects(sb, seq)).toEqual([p1]);
  });

  it('the reasons of failing rows come before the summary and its question, each said once; an empty cell is said empty (a trial)', async () => {
    const seq = await liveSequence(sb);
    const [a, b, c] = freeProspects(sb, 3, 120) as [number, number, number];
    // Two prospects share an address: enrolling by it would guess.
    const shared = emailOf(sb, a);
    expect(
      (await call(sb, 'PATCH', `prospects/${b}`, { data: { type: 'prospect', id: b, attributes: { emails: [shared] } } })).status,
    ).toBe(200);
    const unknown = [1, 2, 3, 4, 5].map((i) => `nobody${i}@nowhere.test`);
    // As Excel writes it: BOM, CRLF, quoted cells, an empty cell.
    const rows = [
      `"A","${shared.toUpperCase()}","VIP, Tokyo"`,
      ...unknown.map((u) => `"N","${u}",`),
      '"Blank","",',
      `"C","${emailOf(sb, c)}",`,
    ];
    const file = inputFile('team.csv', `\ufeff"Name","E-mail Address","Comment"\r\n${rows.join('\r\n')}\r\n`);
    const r = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--by', 'email']);
    expect(r.code, r.stderr).toBe(5);
    expect(stateProspects(sb, seq)).toEqual([c]);
    const before = r.stderr.slice(0, r.stderr.indexOf('enroll into sequence'));
    expect(before).toContain('row 7: email: "E-mail Address" is empty\n');
    expect(before).toContain(
      `row 1: failed: ambiguous: 2 prospects have the address ${shared.toUpperCase()} (ids ${[a, b].sort((x, y) => x - y).join(', ')}); enroll by id\n`,
    );
    for (const row of [2, 3, 4, 5])
      expect(before).toContain(`row ${row}: failed: not found: no prospect has the address ${unknown[row - 2]}\n`);
    expect(before).toContain('… and 1 more row that will fail\n');
    expect(r.stderr).toMatch(/rows: 8 · already enrolled: 0 · to enroll: 1 · failing checks: 7/);
    // The sixth is said as the run meets it; none twice.
    expect(r.stderr.slice(r.stderr.indexOf('enroll into sequence'))).toContain(
      `row 6: failed: not found: no prospect has the address ${unknown[4]}`,
    );
    for (const row of [1, 2, 3, 4, 5, 6, 7]) expect(r.stderr.match(new RegExp(`^row ${row}: `, 'gm'))).toHaveLength(1);
  });

  it('--column names a column headed as people write it (Adresse e-mail); without it, the hint names it (a trial)', async () => {
    const seq = await newSequence(sb);
    const [a, b] = freeProspects(sb, 2, 40);
    const byEmail = (sequence: number, file: string, ...more: string[]) =>
      svc(['enroll', '--sequence', String(sequence), '--mailbox', '1', '--input', file, '--by', 'email', ...more]);
    const csv = inputFile('fr.csv', `Nom;Adresse e-mail;Société\r\nUn;${emailOf(sb, a!).toUpperCase()};X\r\nDeux;${emailOf(sb, b!)};Y\r\n`);
    const missing = await byEmail(seq, csv);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /no "email" or "emails" column \(columns: Nom, Adresse e-mail, Société\)\nhint: name it: --column "Adresse e-mail"; --by id/,
    );
    const wrong = await byEmail(seq, csv, '--column', 'Mail');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`error: --column Mail: no such column in ${csv} (columns: Nom, Adresse e-mail, Société)\n`);
    const r = await byEmail(seq, csv, '--column', 'Adresse e-mail');
    expect(r.code, r.stderr).toBe(0);
    expect(stateProspects(sb, seq)).toEqual([a, b].sort((x, y) => x! - y!));
    // The same member of NDJSON records (ignored there, a review).
    const seq2 = await newSequence(sb);
    const nd = inputFile('fr.ndjson', `{"Adresse e-mail":"${emailOf(sb, a!)}"}\n`);
    const n = await byEmail(seq2, nd, '--column', 'Adresse e-mail');
    expect(n.code, n.stderr).toBe(0);
    expect(stateProspects(sb, seq2)).toEqual([a]);
  });

  it('--dry-run sends only the read-only lookups and prints the plan', async () => {
    const seq = await newSequence(sb);
    await enrollDirect(sb, 30, seq);
    const file = inputFile('ids.txt', '30\n31\n');
    const mark = sb.requests.length;
    const r = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(received(sb, mark).every((q) => q.method === 'GET')).toBe(true);
    const plan = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(plan[0]).toMatchObject({ row: 1, prospect: 30, status: 'skipped', reason: 'already in the sequence' });
    expect(plan[1]).toMatchObject({ row: 2, prospect: 31, method: 'POST', url: `${sb.baseUrl}/sequenceStates` });
    expect(stateProspects(sb, seq)).toEqual([30]);
    expect(fs.existsSync(`${file}.journal.ndjson`)).toBe(false);
  });

  it('--shard i/n: the shards together enroll every row exactly once', async () => {
    const seq = await newSequence(sb, { permitDuplicateProspects: 'allow' });
    const ids = Array.from({ length: 20 }, (_, i) => 40 + i);
    const file = inputFile('ids.csv', 'id\n' + ids.join('\n') + '\n');
    const seen: number[] = [];
    for (const shard of ['1/3', '2/3', '3/3']) {
      const report = inputFile('r.ndjson', '');
      const r = await svc([
        'enroll',
        '--sequence',
        String(seq),
        '--mailbox',
        '1',
        '--input',
        file,
        '--shard',
        shard,
        '--journal',
        `${report}.j`,
        '--report',
        report,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const rows = ndjson<{ row: number; prospect: number; status: string }>(report);
      const i = Number(shard[0]);
      expect(rows.every((l) => (l.row - 1) % 3 === i - 1)).toBe(true);
      seen.push(...rows.map((l) => l.prospect));
    }
    expect(seen.sort((a, b) => a - b)).toEqual(ids);
    expect(stateProspects(sb, seq)).toEqual(ids);
  });
});

describe('a closed stdout (`--report - | head`)', () => {
  // The process matters here (its streams and their EPIPE): the built bin/svc, its stdout a pipe
  // whose reader goes away, as `head -2` does, once the second enrolment reaches the sandbox.
  it('winds the run down as Ctrl-C does: lock released, journal kept, the rerun named, exit 141 (a trial: exit 0, silent)', async () => {
    const seq = await newSequence(sb);
    const ids = freeProspects(sb, 40, 50);
    const file = inputFile('piped.csv', 'id\n' + ids.join('\n') + '\n');
    const args = ['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file];
    const e = env(); // one config dir for both runs: the rerun continues the run's record
    const child = spawnSvc([...args, '--concurrency', '1', '--report', '-'], { env: e });
    let posts = 0;
    const disarm = afterRecorded(sb.requests, (recs) => {
      posts += recs.filter((q) => q.method === 'POST').length;
      if (posts === 2) child.stdout!.destroy();
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    disarm();
    expect(code, stderr).toBe(141);
    expect(stderr).toMatch(/error: stdout was closed \(the command reading it ended, as `\| head` does\): stopped, \d+ of 40 rows done/);
    expect(stderr).toMatch(/hint: the report lines of rows done after that are lost \(--report FILE keeps them all\)/);
    expect(stderr).toContain(`hint: run the same command again to do the rest: the journal ${file}.journal.ndjson records what is done`);
    expect(fs.existsSync(`${file}.journal.ndjson.lock`)).toBe(false);
    const done = stateProspects(sb, seq);
    expect(done.length).toBeLessThan(40);
    // The rerun does the rest from the journal.
    const again = await svcInProcess(args, { env: e });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`continuing run .* \\(stopped after ${done.length} of 40 rows\\)`));
    expect(stateProspects(sb, seq)).toEqual([...ids].sort((a, b) => a - b));
  });
});

describe('usage errors send nothing (exit 2)', () => {
  it.each([
    // No terminal here: a missing --sequence is an error, never a picker.
    [['enroll', '--mailbox', '1', '--prospect', '1'], /--sequence is required: a sequence id or name/],
    [['enroll', '--sequence', '1', '--prospect', '1'], /--mailbox is required: a mailbox id or e-mail address/],
  ])('%j', async (args, message) => {
    const mark = sb.requests.length;
    const r = await svc(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(sb.requests.length).toBe(mark);
  });

  it('an unknown sequence stops the run before any enrolment (exit 1)', async () => {
    const mark = sb.requests.length;
    const r = await svc(['enroll', '--sequence', '987654', '--mailbox', '1', '--prospect', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sequence/i);
    expect(received(sb, mark).filter((q) => q.method === 'POST')).toHaveLength(0);
  });
});

describe('what the summary counts (a new user’s trial)', () => {
  it('a rerun counts this part and the run in all, as runs list counts it', async () => {
    // One configuration for both parts: the rerun finds the run to continue in its data directory.
    const e = env();
    const run = (args: string[]) => svcInProcess(args, { env: e });
    const [p1, p2, p3, p4] = freeProspects(sb, 4, 120) as [number, number, number, number];
    const seq = await newSequence(sb);
    await enrollDirect(sb, p4, seq);
    const file = inputFile('parts.csv', `id\n${p1}\n${p2}\n${p4}\n999999\n`);
    const args = ['enroll', '--sequence', String(seq), '--mailbox', '2', '--input', file];
    const first = await run(args);
    expect(first.code, first.stderr).toBe(5);
    expect(first.stderr).toMatch(/\nenroll: 2 created, 1 skipped, 1 failed \(4 of 4 rows in [\d.]+ s\)\n/);
    // The rerun (one more row) continues the run: p1 and p2 are its part before's, not "skipped".
    fs.writeFileSync(file, `id\n${p1}\n${p2}\n${p4}\n999999\n${p3}\n`);
    const again = await run(args);
    expect(again.code, again.stderr).toBe(5);
    const id = /continuing run (\S+) /.exec(again.stderr)?.[1];
    expect(id, again.stderr).toBeTruthy();
    expect(again.stderr).toMatch(
      /\nenroll, this part: 1 created, 1 skipped, 1 failed \(5 of 5 rows in [\d.]+ s; 2 done by the part before\)\n/,
    );
    expect(again.stderr).toContain(`\nenroll, in all (run ${id}): 3 created, 1 skipped, 1 failed\n`);
    const listed = JSON.parse((await run(['runs', 'list', '-o', 'json'])).stdout) as { id: string; rows: string }[];
    expect(listed[0]).toMatchObject({ id, rows: '3 created, 1 skipped, 1 failed' });
    expect(stateProspects(sb, seq)).toEqual([p1, p2, p3, p4].sort((a, b) => a - b));
  });

  it('times the run from the answer to its question, not the time spent at it', async () => {
    const [p] = freeProspects(sb, 1, 130) as [number];
    const seq = await newSequence(sb);
    const e: NodeJS.ProcessEnv = { ...env() };
    delete e.CI;
    // The person answers 12 s after the question (a trial's "1 of 1 row in 11.9 s").
    let late = 0;
    const clock = { now: () => Date.now() + late, sleep: systemClock.sleep };
    const { ctx, stderr: err } = terminalContext(e, {
      confirm: () => {
        late += 12_000;
        return true;
      },
      stdoutIsTTY: false,
      clock,
    });
    try {
      await enrollHandler(ctx, { sequence: String(seq), mailbox: '2', prospect: [String(p)] });
    } finally {
      await ctx.close();
    }
    expect(late).toBe(12_000);
    const stderr = err();
    const secs = Number(/enroll: 1 created \(1 of 1 row in ([\d.]+) s\)/.exec(stderr)?.[1]);
    expect(secs, stderr).toBeLessThan(10);
  });
});
