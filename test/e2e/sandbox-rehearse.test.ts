/**
 * Rehearsing against a copy of the org: a sandbox plays "production" (custom fields, rulesets
 * with exclusivity, sequences, mailboxes, 5,000 prospects), a profile is logged in to it, and
 * `svc sandbox --from-profile` copies a sample. An enroll, a bulk create, an enroll by e-mail and
 * an upsert matched by e-mail rehearsed on the anonymised copy (`--sandbox-data`) give the same
 * per-row outcomes as the same commands then run against production; nothing personal of
 * production survives in the copy; the requests stay within the printed budget; an interrupted
 * copy resumes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultOrg, type OrgConfig } from '../../src/sandbox/data/org.js';
import { fieldKind } from '../../src/anonymise.js';
import { call, enrollDirect, liveSequence, ndjson, newSequence } from '../helpers/bulk.js';
import { startSvc } from '../helpers/long-running.js';
import { editProfile } from '../helpers/oauth.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { json, runSvc, tempDir } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let prod: TestSandbox;
let configDir: string;
let work: string;
/** The sequence with an exclusive ruleset that the rehearsed enrolment targets. */
let target: number;
/** Rows of the rehearsed enrolment and what production should say to each. */
const plan: { id: number; expect: 'created' | 'skipped' | 'failed' }[] = [];
/** The sequence (exclusive too) of the enrolment by e-mail, and its rows. */
let byEmailTarget: number;
const byEmailPlan: { id: number; expect: 'created' | 'skipped' | 'failed' }[] = [];
const SAMPLE = 300;

function prodOrg(): OrgConfig {
  const org = defaultOrg();
  org.name = 'Production Corp';
  // A free-text custom field: anonymised. The inclusion and number ones are kept (validations act on them).
  org.customFields['prospect']!['custom5'] = { type: 'string', required: false, label: 'Private Notes', definition: null };
  return org;
}

// In process (svc's program in the test process, over real HTTP): copies, rehearsals, the login
// and their outcomes do not depend on the process. `svcBin` spawns the built bin/svc where it
// does: processes racing for one copy, a second server refused by the first's lock, and Ctrl-C.
const svc = (args: string[], env: Record<string, string> = {}) => svcInProcess(args, { env: { SVC_CONFIG_DIR: configDir, ...env } });
const svcBin = (args: string[], env: Record<string, string> = {}) => runSvc(args, { env: { SVC_CONFIG_DIR: configDir, ...env } });

beforeAll(async () => {
  ({ sb: prod } = await sandboxWithEnv({ seed: 5000, org: prodOrg() }));
  configDir = tempDir();
  work = tempDir('svc-rehearse-');
  // Production's state before the copy: an exclusive sequence some sampled prospects are active in,
  // prospects that opted out, private notes.
  const exclusive = await newSequence(prod, { sequenceExclusivity: 'exclusive_sequences', permitDuplicateProspects: 'only_if_inactive' });
  // On, with a step: the enroll summary forecasts its e-mails from the mailbox (an idle sequence has no forecast).
  target = await liveSequence(prod, { sequenceExclusivity: 'exclusive_sequences', permitDuplicateProspects: 'disallow' });
  const exclusiveIds = new Set(
    [...prod.store.table('sequence').values()]
      .filter(
        (s) =>
          prod.store.get('ruleset', (s.rels['ruleset'] as { id: number }).id)?.attributes['sequenceExclusivity'] === 'exclusive_sequences',
      )
      .map((s) => s.id),
  );
  const activeExclusive = (p: number) =>
    [...prod.store.table('sequenceState').values()].some(
      (s) =>
        (s.rels['prospect'] as { id: number } | null)?.id === p &&
        s.attributes['state'] === 'active' &&
        exclusiveIds.has((s.rels['sequence'] as { id: number }).id),
    );
  const busy: number[] = [];
  const free: number[] = [];
  const optedOut = (p: number) => {
    const a = prod.store.get('prospect', p)!.attributes;
    return a['optedOut'] === true || a['emailsOptStatus'] === 'opted_out';
  };
  for (let p = 100; p <= SAMPLE && (busy.length < 2 || free.length < 11); p++)
    if (activeExclusive(p)) busy.push(p);
    else if (!optedOut(p)) free.push(p);
  const [f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11] = free as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  // Active in an exclusive sequence: refused. Already in the target: skipped. Opted out: refused.
  for (const p of [f1, f2]) await enrollDirect(prod, p, exclusive);
  for (const p of [f3, f4]) await enrollDirect(prod, p, target);
  for (const p of [f5, f6])
    expect(
      (await call(prod, 'PATCH', `prospects/${p}`, { data: { type: 'prospect', id: p, attributes: { optedOut: true } } })).status,
    ).toBe(200);
  plan.push(
    ...busy.slice(0, 2).map((id) => ({ id, expect: 'failed' as const })),
    ...[f1, f2, f5, f6].map((id) => ({ id, expect: 'failed' as const })),
    ...[f3, f4].map((id) => ({ id, expect: 'skipped' as const })),
    ...[f7, f8].map((id) => ({ id, expect: 'created' as const })),
    { id: 999999, expect: 'failed' },
  );
  // By e-mail into another exclusive sequence: already in it (skipped), opted out, active in an
  // exclusive one, and two free.
  byEmailTarget = await newSequence(prod, { sequenceExclusivity: 'exclusive_sequences', permitDuplicateProspects: 'disallow' });
  await enrollDirect(prod, f9, byEmailTarget);
  byEmailPlan.push(
    { id: f9, expect: 'skipped' },
    { id: f6, expect: 'failed' },
    { id: f1, expect: 'failed' },
    { id: f10, expect: 'created' },
    { id: f11, expect: 'created' },
  );
  // A mailbox with tight limits: the rehearsal's delivery forecast comes from the copy of it.
  prod.store.update('mailbox', 1, { maxMailingsPerDay: 1, maxMailingsPerWeek: 3 }, {}, { silent: true });
  for (let p = 1; p <= SAMPLE; p += 7)
    prod.store.update('prospect', p, { custom5: `secret note about deal ${p * 7919}` }, {}, { silent: true });
  const reads = [
    'users',
    'teams',
    'rulesets',
    'stages',
    'personas',
    'sequenceSteps',
    'templates',
    'sequenceTemplates',
    'mailboxes',
    'emailAddresses',
    'phoneNumbers',
  ];
  const scopes = ['prospects.all', 'accounts.all', 'sequences.all', 'sequenceStates.all', ...reads.map((r) => `${r}.read`)].join(' ');
  const login = await cliLoginInProcess(prod, configDir, ['--scopes', scopes], { SVC_PROFILE: 'prod' });
  expect(login.code, login.stderr).toBe(0);
}, 120_000);
afterAll(() => prod?.close());

/**
 * `text.includes(s)`, the same answers, for thousands of `s` over one large text (the copy is
 * ~0.7 MB): `s` is compared only where its rarest 4-character piece occurs. The leak check's
 * ~5,000 values × 4 scans of the whole text took 3 CPU-s.
 */
function substringIndex(text: string): (s: string) => boolean {
  const K = 4;
  const at = new Map<string, number[]>();
  for (let i = 0; i + K <= text.length; i++) {
    const piece = text.slice(i, i + K);
    const list = at.get(piece);
    if (list) list.push(i);
    else at.set(piece, [i]);
  }
  return (s) => {
    if (s.length < K) return text.includes(s);
    let rarest: number[] = [];
    let offset = -1;
    for (let j = 0; j + K <= s.length; j++) {
      const list = at.get(s.slice(j, j + K));
      if (!list) return false;
      if (offset < 0 || list.length < rarest.length) {
        rarest = list;
        offset = j;
      }
    }
    return rarest.some((i) => i >= offset && text.startsWith(s, i - offset));
  };
}

/** Per-row outcomes of a report, without what differs between two orgs by nature (new ids). */
function outcomes(file: string) {
  return ndjson<Record<string, unknown>>(file)
    .sort((a, b) => Number(a['row']) - Number(b['row']))
    .map(({ row, status, error, reason, prospect }) => ({
      row,
      status,
      error: error ?? null,
      reason: reason ?? null,
      prospect: prospect ?? null,
    }));
}

describe('svc sandbox --from-profile', () => {
  const copy = () => path.join(work, 'copy.json');

  it('copies a sample within the printed budget, owner-only, reads only, without the write-only fields', async () => {
    const mark = prod.requests.length;
    const r = await svc([
      'sandbox',
      '--from-profile',
      'prod',
      '--sample',
      String(SAMPLE),
      '--filter',
      `prospect:id=1..${SAMPLE}`,
      '--data',
      copy(),
      '--budget',
      '100',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/not copied/);
    const summary = JSON.parse(r.stdout);
    expect(summary.counts.prospect).toBe(SAMPLE);
    expect(summary.counts.ruleset).toBe(prod.store.table('ruleset').size);
    expect(summary.counts.mailbox).toBe(prod.store.table('mailbox').size);
    expect(summary.counts.sequence).toBe(prod.store.table('sequence').size);
    expect(summary.counts.sequenceState).toBeGreaterThan(50);
    expect(summary.customFields).toBe(9);
    expect(r.stderr).toMatch(/request budget: 100 \(the API allows 10,000 per user per hour\); about (\d+) needed/);
    // The estimate given up front holds for an org whose types fit in one page each.
    expect(Number(/about (\d+) needed/.exec(r.stderr)![1])).toBe(summary.requests);
    expect(r.stderr).toMatch(new RegExp(`requests: ${summary.requests} used, ${100 - summary.requests} of the budget of 100 left`));
    const sent = received(prod, mark).filter((q) => !q.path.startsWith('/oauth'));
    expect(sent.length).toBe(summary.requests);
    expect(summary.requests).toBeLessThanOrEqual(100);
    expect(new Set(sent.map((q) => q.method))).toEqual(new Set(['GET']));
    // Write-only fields are not even asked for.
    const mailboxes = sent.find((q) => q.path === '/api/v2/mailboxes')!;
    expect(mailboxes.query.parsed['fields[mailbox]']).toBeDefined();
    expect(mailboxes.query.parsed['fields[mailbox]']).not.toMatch(/password|ApiKey/i);
    expect(fs.statSync(copy()).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(`${copy()}.progress`)).toBe(false);
    const data = JSON.parse(fs.readFileSync(copy(), 'utf8'));
    // The real ids.
    expect(data.store.tables.prospect.map((p: { id: number }) => p.id).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: SAMPLE }, (_, i) => i + 1),
    );
    expect(data.org.customFields.prospect.custom5.label).toBe('Private Notes');
    // Records the rehearsal creates get ids above every real one, sampled or not.
    expect(data.store.nextIds.prospect).toBe(Math.max(...prod.store.table('prospect').keys()) + 1);
    expect(data.store.nextIds.sequenceState).toBe(Math.max(...prod.store.table('sequenceState').keys()) + 1);
    expect(JSON.stringify(data.store.tables.mailbox)).not.toMatch(/"(password|smtpPassword|mailRelayApiKey)"/);
    // The key of the fakes is kept beside the copy, owner-only, and not in it.
    expect(fs.statSync(`${copy()}.key`).mode & 0o777).toBe(0o600);
    const key = JSON.parse(fs.readFileSync(`${copy()}.key`, 'utf8')).key as string;
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.readFileSync(copy(), 'utf8')).not.toContain(key);
    expect(r.stdout + r.stderr).not.toContain(key);
  }, 120_000);

  it('keeps no original value of an anonymised field, and keeps joins', () => {
    const data = JSON.parse(fs.readFileSync(copy(), 'utf8'));
    const text = fs.readFileSync(copy(), 'utf8');
    const custom = prodOrg().customFields;
    // What the copy keeps on purpose (sequence names, persona names…) may contain a short
    // original value by chance ("Manager"); only a value absent from all that would be a leak.
    const kept: unknown[] = [];
    // fieldKind looks up its rule afresh on each call: once per field here, not per value.
    const kinds = new Map<string, ReturnType<typeof fieldKind>>();
    const faked = (type: string, k: string) => {
      const key = `${type}.${k}`;
      if (!kinds.has(key)) kinds.set(key, fieldKind(type, k, custom[type]));
      return kinds.get(key) !== undefined;
    };
    for (const [type, recs] of Object.entries(data.store.tables as Record<string, { id: number }[]>)) {
      for (const { id } of recs) {
        const attrs = prod.store.get(type, id)!.attributes;
        kept.push(Object.fromEntries(Object.entries(attrs).filter(([k]) => !faked(type, k))));
      }
    }
    // The org's vocabulary (custom fields' labels and lists) is kept too.
    const keptText = JSON.stringify([kept, data.org.customFields]);
    const inCopy = substringIndex(text);
    const inKept = substringIndex(keptText);
    let checked = 0;
    const leaks: string[] = [];
    for (const [type, recs] of Object.entries(data.store.tables as Record<string, { id: number }[]>)) {
      for (const { id } of recs) {
        const orig = prod.store.get(type, id)!;
        for (const [k, v] of Object.entries(orig.attributes)) {
          if (!faked(type, k)) continue;
          for (const value of Array.isArray(v) ? v : [v]) {
            if (typeof value !== 'string' || value === '') continue;
            checked++;
            if (inCopy(JSON.stringify(value)) && !inKept(JSON.stringify(value))) leaks.push(`${type} ${id} ${k}: exact`);
            else if (value.length >= 6 && inCopy(value) && !inKept(value)) leaks.push(`${type} ${id} ${k}: inside`);
          }
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(checked).toBeGreaterThan(2000);
    // Domains are mapped (no --keep-domains): not one of the org's domains is left, in any field.
    const domains = new Set<string>(['acme-rockets.test']);
    for (const a of data.store.tables.account) domains.add(String(prod.store.get('account', a.id)!.attributes['domain']));
    for (const d of domains) expect(text.includes(d), d).toBe(false);
    // Joins survive: a prospect's address and its e-mail record got the same fake.
    const p1 = data.store.tables.prospect.find((p: { id: number }) => p.id === 1);
    const e1 = data.store.tables.emailAddress.find((e: { rels: { prospect: { id: number } } }) => e.rels.prospect?.id === 1);
    expect(p1.attributes.emails[0]).toBe(e1.attributes.email);
    // …a fake: none of production's addresses of prospect 1 (compared with the array itself, a
    // string was never the same, and the check passed with the original address kept).
    const prodEmails = prod.store.get('prospect', 1)!.attributes['emails'] as string[];
    expect(prodEmails.length).toBeGreaterThan(0);
    expect(p1.attributes.emails[0]).toMatch(/@/);
    expect(prodEmails).not.toContain(p1.attributes.emails[0]);
    // Values the org's rules act on are kept.
    expect(p1.attributes.custom1).toBe(prod.store.get('prospect', 1)!.attributes['custom1']);
  });

  it('an enroll and a create rehearsed on the copy give the outcomes production then gives', async () => {
    const input = path.join(work, 'enroll.csv');
    fs.writeFileSync(input, `id\n${plan.map((p) => p.id).join('\n')}\n`);
    const create = path.join(work, 'create.csv');
    fs.writeFileSync(create, 'firstName,lastName,custom1,custom2\nAda,One,Webinar,10\nBob,Two,Carrier pigeon,20\nCy,Three,Referral,many\n');
    const enrollArgs = (report: string) => ['enroll', '--sequence', String(target), '--mailbox', '1', '--input', input, '--report', report];
    const createArgs = (report: string) => ['prospects', 'create', '--input', create, '--report', report];
    const before = prod.requests.length;
    const rehearsal = await svc(enrollArgs(path.join(work, 'r-enroll.ndjson')), { SVC_SANDBOX_DATA: copy() });
    const rehearsalCreate = await svc(['--sandbox-data', copy(), ...createArgs(path.join(work, 'r-create.ndjson'))]);
    // The rehearsal never reached production, and kept its own journal: the production run
    // below must not skip the rows the rehearsal did as "done by an earlier run".
    expect(received(prod, before)).toHaveLength(0);
    expect(fs.existsSync(`${input}.sandbox.journal.ndjson`)).toBe(true);
    expect(fs.existsSync(`${input}.journal.ndjson`)).toBe(false);
    const real = await svc(enrollArgs(path.join(work, 'p-enroll.ndjson')), { SVC_PROFILE: 'prod' });
    const realCreate = await svc(createArgs(path.join(work, 'p-create.ndjson')), { SVC_PROFILE: 'prod' });
    expect(rehearsal.code, rehearsal.stderr).toBe(5);
    expect(real.code).toBe(rehearsal.code);
    expect(realCreate.code).toBe(rehearsalCreate.code);
    const rehearsed = outcomes(path.join(work, 'r-enroll.ndjson'));
    expect(rehearsed.map((o) => o.status)).toEqual(plan.map((p) => p.expect));
    expect(rehearsed[0]!.error).toMatch(/exclusive sequence/);
    expect(rehearsed[2]!.error).toMatch(/exclusive sequence/);
    expect(rehearsed[4]!.error).toMatch(/opted out/);
    expect(JSON.stringify(rehearsed[10])).toMatch(/999999/);
    expect(outcomes(path.join(work, 'p-enroll.ndjson'))).toEqual(rehearsed);
    // The enroll summary's forecast comes from the copied mailbox: the same line as production's.
    const forecast = rehearsal.stderr.match(/^ *delivery: .*$/m)?.[0];
    expect(forecast).toMatch(/can all go out within \d+ days \(mailbox limits: 1\/day, 3\/week\)/);
    expect(real.stderr).toContain(forecast);
    const created = outcomes(path.join(work, 'r-create.ndjson'));
    expect(created.map((o) => o.status)).toEqual(['created', 'failed', 'failed']);
    expect(outcomes(path.join(work, 'p-create.ndjson'))).toEqual(created);
    // The rehearsal wrote to the copy, not to production's earlier state.
    expect(JSON.parse(fs.readFileSync(copy(), 'utf8')).store.tables.sequenceState.length).toBeGreaterThan(0);
  }, 180_000);

  it('an enroll by e-mail and an upsert matched by e-mail, rehearsed on the anonymised copy, give the outcomes production then gives', async () => {
    const attrs = (id: number) => prod.store.get('prospect', id)!.attributes;
    const emailsOf = (id: number) => attrs(id)['emails'] as string[];
    const holders = (address: string) =>
      [...prod.store.table('prospect').values()].filter((p) =>
        ((p.attributes['emails'] as string[] | undefined) ?? []).some((e) => e.toLowerCase() === address.toLowerCase()),
      ).length;
    // Each row's address names one prospect of production (and of the copy).
    for (const { id } of byEmailPlan) expect(holders(emailsOf(id)[0]!), `prospect ${id}`).toBe(1);
    const mailboxAddress = String(prod.store.get('mailbox', 1)!.attributes['email']);
    const enrollInput = path.join(work, 'by-email.csv');
    const addresses = byEmailPlan.map((p, i) => (i === 4 ? emailsOf(p.id)[0]!.toUpperCase() : emailsOf(p.id)[0]!));
    fs.writeFileSync(enrollInput, `email\n${[...addresses, 'nobody@nowhere.test'].join('\n')}\n`);
    const enrollArgs = (report: string) => [
      'enroll',
      '--sequence',
      String(byEmailTarget),
      '--mailbox',
      mailboxAddress,
      '--by',
      'email',
      '--input',
      enrollInput,
      '--report',
      report,
    ];
    // Prospects of the sample with one address that no other prospect has, a first name and a title.
    const upsertable: number[] = [];
    for (let id = 20; id < 100 && upsertable.length < 4; id++) {
      const a = attrs(id);
      if (emailsOf(id)?.length === 1 && holders(emailsOf(id)[0]!) === 1 && a['firstName'] && a['title']) upsertable.push(id);
    }
    const [u1, u2, u3, u4] = upsertable as [number, number, number, number];
    const q = (v: unknown) => `"${String(v).replace(/"/g, '""')}"`;
    const line = (...cells: unknown[]) => cells.map(q).join(',');
    const newAddress = `rehearsal.new@${emailsOf(u1)[0]!.split('@')[1]}`;
    const upsertInput = path.join(work, 'upsert.csv');
    fs.writeFileSync(
      upsertInput,
      [
        'emails,firstName,title,custom1',
        line(emailsOf(u1)[0], attrs(u1)['firstName'], attrs(u1)['title'], ''),
        line(emailsOf(u2)[0], attrs(u2)['firstName'], 'Chief Rehearsal Officer', ''),
        line(emailsOf(u3)[0], 'Zedekiah', attrs(u3)['title'], ''),
        line(newAddress, 'Nova', 'Founder', 'Webinar'),
        line(newAddress.toUpperCase(), 'Nova', 'Founder', ''),
        line(emailsOf(u4)[0], attrs(u4)['firstName'], attrs(u4)['title'], 'Carrier pigeon'),
        '',
      ].join('\n'),
    );
    const upsertArgs = (report: string) => ['prospects', 'upsert', '--input', upsertInput, '--match', 'email', '--report', report];

    const before = prod.requests.length;
    const rehearsal = await svc(['--sandbox-data', copy(), ...enrollArgs(path.join(work, 'r-by-email.ndjson'))]);
    const rehearsalUpsert = await svc(['--sandbox-data', copy(), ...upsertArgs(path.join(work, 'r-upsert.ndjson'))]);
    expect(received(prod, before)).toHaveLength(0);
    expect(rehearsal.stderr).toMatch(/rehearsal on an anonymised copy: input values of its anonymised fields are matched/);
    // The summary names the mailbox as the user gave it, not the copy's fake of it.
    expect(rehearsal.stderr).toContain(`from mailbox ${mailboxAddress} (id 1)`);
    // A name the copy does not hold is quoted as written, without the copy's fakes as candidates.
    const miss = await svc([
      '--sandbox-data',
      copy(),
      'enroll',
      '--sequence',
      'No Such Sequence',
      '--mailbox',
      '1',
      '--input',
      enrollInput,
    ]);
    expect(miss.code).toBe(2);
    expect(miss.stderr).toMatch(/^error: --sequence "No Such Sequence": no sequence of this copy has that name/m);
    expect(miss.stderr).not.toMatch(/Label [0-9a-f]{8}/);
    // Not one real value was written into the copy by the rehearsal.
    const copied = fs.readFileSync(copy(), 'utf8');
    for (const real of ['Zedekiah', 'Nova', newAddress.split('@')[0]!]) expect(copied).not.toContain(real);
    expect(JSON.parse(copied).store.tables.prospect.find((p: { id: number }) => p.id === u3).attributes.firstName).toMatch(/^Name /);

    const real = await svc(enrollArgs(path.join(work, 'p-by-email.ndjson')), { SVC_PROFILE: 'prod' });
    const realUpsert = await svc(upsertArgs(path.join(work, 'p-upsert.ndjson')), { SVC_PROFILE: 'prod' });
    expect(real.stderr).toContain(`from mailbox ${mailboxAddress} (id 1)`);
    expect(rehearsal.code, rehearsal.stderr).toBe(5);
    expect(real.code, real.stderr).toBe(5);
    const rehearsed = outcomes(path.join(work, 'r-by-email.ndjson'));
    expect(rehearsed.map((o) => o.status)).toEqual([...byEmailPlan.map((p) => p.expect), 'failed']);
    expect(rehearsed[1]!.error).toMatch(/opted out/);
    expect(rehearsed[2]!.error).toMatch(/exclusive sequence/);
    // Messages name the address as written, not its fake.
    expect(rehearsed[5]!.error).toMatch(/not found: no prospect has the address nobody@nowhere\.test/);
    expect(outcomes(path.join(work, 'p-by-email.ndjson'))).toEqual(rehearsed);

    expect(rehearsalUpsert.code, rehearsalUpsert.stderr).toBe(realUpsert.code);
    const upserted = outcomes(path.join(work, 'r-upsert.ndjson'));
    expect(upserted.map((o) => o.status)).toEqual(['skipped', 'updated', 'updated', 'created', 'failed', 'failed']);
    expect(upserted[0]!.reason).toBe('unchanged');
    expect(upserted[4]!.error).toContain(`duplicate: row 4 has the same emails (${newAddress.toUpperCase()})`);
    expect(upserted[5]!.error).toMatch(/custom1/);
    expect(outcomes(path.join(work, 'p-upsert.ndjson'))).toEqual(upserted);
    expect(prod.store.get('prospect', u3)!.attributes['firstName']).toBe('Zedekiah');

    // A listing filtered on a real address finds the record in the copy too.
    const found = await svc(['--sandbox-data', copy(), 'prospects', 'list', '--filter', `emails=${emailsOf(u1)[0]}`, '-o', 'json']);
    expect(found.code, found.stderr).toBe(0);
    expect(json<{ id: number }[]>(found).map((p) => p.id)).toEqual([u1]);
    // So does one filtered on a related record's real name (the account's, as the copy holds it).
    const accountId = (prod.store.get('prospect', u1)!.rels['account'] as { id: number }).id;
    const accountName = String(prod.store.get('account', accountId)!.attributes['name']);
    const byAccount = await svc([
      '--sandbox-data',
      copy(),
      'prospects',
      'list',
      '--filter',
      `account.name=${accountName}`,
      '--all',
      '-o',
      'json',
    ]);
    expect(byAccount.code, byAccount.stderr).toBe(0);
    expect(json<{ id: number }[]>(byAccount).map((p) => p.id)).toContain(u1);

    // Without its key a rehearsal says why addresses will not match.
    fs.renameSync(`${copy()}.key`, `${copy()}.key.away`);
    try {
      const blind = await svc(['--sandbox-data', copy(), ...upsertArgs(path.join(work, 'blind.ndjson')), '--plan']);
      // Its one row refused (custom1) fails the plan as it fails the run: exit 5.
      expect(blind.code, blind.stderr).toBe(5);
      expect(blind.stderr).toMatch(/^warning: .*copy\.json\.key: no key beside this anonymised copy: .* will not match the copy's fakes/m);
    } finally {
      fs.renameSync(`${copy()}.key.away`, `${copy()}.key`);
    }
  }, 180_000);

  it('a copy has one owner at a time: four creates at once all land in it, not in a running `svc sandbox`', async () => {
    const fg = startSvc(['sandbox', '--json'], { env: { SVC_CONFIG_DIR: configDir } });
    try {
      await fg.waitFor('stdout', /"baseUrl"/, 15_000);
      const names = [0, 1, 2, 3].map((i) => `Own${i}x${Date.now()}`);
      const runs = await Promise.all(
        names.map((nm) => svcBin(['--sandbox-data', copy(), 'accounts', 'create', '--attr', `name=${nm}`, '-o', 'json'])),
      );
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      expect(new Set(runs.map((r) => json<{ id: number }>(r).id)).size).toBe(4);
      const inCopy = await svc(['--sandbox-data', copy(), 'accounts', 'list', '--all', '-o', 'json']);
      expect(inCopy.code, inCopy.stderr).toBe(0);
      const copied = json<{ name: string }[]>(inCopy).map((a) => a.name);
      for (const nm of names) expect(copied).toContain(nm);
      const inFg = await svc(['--sandbox', 'accounts', 'list', '--all', '-o', 'json']);
      expect(inFg.code, inFg.stderr).toBe(0);
      for (const nm of names) expect(json<{ name: string }[]>(inFg).map((a) => a.name)).not.toContain(nm);
    } finally {
      expect(await fg.stop('SIGTERM')).toBe(0);
    }
    // The owner let go: no lock, no announcement left beside the copy.
    expect(fs.existsSync(`${copy()}.lock`)).toBe(false);
    expect(fs.existsSync(`${copy()}.owner.json`)).toBe(false);
    expect(fs.statSync(copy()).mode & 0o777).toBe(0o600);
  }, 120_000);

  it('`svc sandbox --data COPY` owns the copy too: --sandbox-data processes use it, a second one is refused', async () => {
    const fg = startSvc(['sandbox', '--data', copy(), '--json'], { env: { SVC_CONFIG_DIR: configDir } });
    try {
      const info = JSON.parse((await fg.waitFor('stdout', /^\{.*\}$/m, 15_000))[0]!);
      const name = `Fg${Date.now()}`;
      const made = await svc(['--sandbox-data', copy(), 'accounts', 'create', '--attr', `name=${name}`, '-o', 'json']);
      expect(made.code, made.stderr).toBe(0);
      // It went to the foreground server, which holds the copy.
      const seen = await fetch(`${info.baseUrl}/accounts/${json<{ id: number }>(made).id}`, {
        headers: { authorization: `Bearer ${info.token}` },
      });
      expect(seen.status).toBe(200);
      const second = await svcBin(['sandbox', '--data', copy()]);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/^error: .*copy\.json: another svc process \(pid \d+\) serves this org file/m);
      // A new copy is not written over an org file being served: its owner would overwrite it.
      const mark = prod.requests.length;
      const over = await svc(['sandbox', '--from-profile', 'prod', '--sample', '5', '--data', copy()]);
      expect(over.code).toBe(2);
      expect(over.stderr).toMatch(/^error: .*copy\.json: served by another svc process \(pid \d+\); stop it first/m);
      expect(received(prod, mark)).toHaveLength(0);
    } finally {
      expect(await fg.stop('SIGTERM')).toBe(0);
    }
    expect(fs.existsSync(`${copy()}.lock`)).toBe(false);
    expect(fs.existsSync(`${copy()}.owner.json`)).toBe(false);
  }, 60_000);

  it('resumes an interrupted copy with the same fakes and no request twice', async () => {
    const file = path.join(work, 'resumed.json');
    const args = ['sandbox', '--from-profile', 'prod', '--sample', '50', '--data', file];
    const first = await svc([...args, '--budget', '6']);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/warning: the budget is below the \d+ requests this copy needs/);
    expect(first.stderr).toMatch(/error: request budget spent: 6 requests used/);
    expect(first.stderr).toMatch(/the same command resumes/);
    expect(fs.statSync(`${file}.progress`).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(file)).toBe(false);
    const second = await svc(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/resuming: \d+ steps done by an earlier run \(6 requests\)/);
    const whole = await svc([...args.slice(0, -1), path.join(work, 'whole.json')]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(JSON.parse(second.stdout).requestsTotal).toBe(JSON.parse(whole.stdout).requests);
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    // Users came in the first run, prospects in the second: the same key made both.
    const owner = prod.store.get('user', 1)!.attributes['email'] as string;
    const local = owner.split('@')[0]!;
    expect(JSON.stringify(data)).not.toContain(local);
    const fakeUser = data.store.tables.user.find((u: { id: number }) => u.id === 1).attributes.email;
    const mailbox = data.store.tables.mailbox.find((m: { attributes: { userId?: number } }) => m.attributes.userId === 1);
    expect(mailbox.attributes.email).toBe(fakeUser);
  }, 120_000);

  it('Ctrl-C: exit 130, progress kept; the same command resumes', async () => {
    const { sb: slow } = await sandboxWithEnv({ seed: 40, latencyMs: 150 });
    try {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ profiles: {} }), { mode: 0o600 });
      editProfile(dir, 'slow', { baseUrl: slow.baseUrl, authUrl: slow.authUrl });
      const env = { SVC_CONFIG_DIR: dir, SVC_TOKEN: slow.token };
      const file = path.join(work, 'interrupted.json');
      const args = ['sandbox', '--from-profile', 'slow', '--sample', '20', '--data', file];
      const run = startSvc(args, { env });
      await run.waitFor('stderr', /^team: /m, 15_000);
      const code = await run.stop('SIGINT');
      expect(code, run.stderr()).toBe(130);
      expect(run.stderr()).toMatch(/progress kept in .*interrupted\.json\.progress: the same command resumes/);
      expect(run.stderr()).not.toMatch(/\n\s+at /);
      expect(fs.existsSync(file)).toBe(false);
      const again = await svcInProcess(args, { env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toMatch(/resuming: \d+ steps done by an earlier run/);
      expect(JSON.parse(again.stdout).counts.prospect).toBe(20);
    } finally {
      await slow.close();
    }
  }, 60_000);

  it('a sample named by a long id list (the rows of an input file) is asked for in chunks', async () => {
    const ids = Array.from({ length: 250 }, (_, i) => 4000 + i * 3);
    const file = path.join(work, 'listed.json');
    const mark = prod.requests.length;
    const r = await svc([
      'sandbox',
      '--from-profile',
      'prod',
      '--sample',
      '250',
      '--filter',
      `prospect:id=${ids.join(',')}`,
      '--data',
      file,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).counts.prospect).toBe(250);
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(data.store.tables.prospect.map((p: { id: number }) => p.id).sort((a: number, b: number) => a - b)).toEqual(ids);
    const pages = received(prod, mark, 'prospects').filter((q) => q.query.parsed['filter[id]']);
    expect(pages).toHaveLength(2);
    for (const q of pages) expect(q.query.raw.length).toBeLessThan(2000);
  }, 60_000);

  // The other bad input (--filter, a stray --sample, a missing --sandbox-data file) is checked
  // in-process in test/unit/commands/sandbox/usage.test.ts.
  it('bad input: one error line, nothing sent', async () => {
    const mark = prod.requests.length;
    const noProfile = await svc(['sandbox', '--from-profile', 'nope', '--data', path.join(work, 'x.json')]);
    expect(noProfile.code).toBe(2);
    expect(noProfile.stderr).toMatch(/^error: --from-profile nope: no such profile/m);
    expect(received(prod, mark)).toHaveLength(0);
  }, 60_000);

  it('--no-anonymise copies the values as they are and says so', async () => {
    const file = path.join(work, 'plain.json');
    const r = await svc(['sandbox', '--from-profile', 'prod', '--sample', '5', '--no-anonymise', '--data', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: --no-anonymise: the copy holds the real names/);
    expect(fs.readFileSync(file, 'utf8')).toContain(JSON.stringify(prod.store.get('prospect', 1)!.attributes['lastName']));
    // Nothing to mask in a plain copy: no key.
    expect(fs.existsSync(`${file}.key`)).toBe(false);
  }, 60_000);
});
