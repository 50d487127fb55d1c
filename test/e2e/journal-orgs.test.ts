/**
 * A journal belongs to one org and one command. The same CSV upserted and enrolled against two
 * sandboxes, and against a rehearsal copy (`svc sandbox --from-profile`) and its "production", in
 * both orders: every org gets every row, and a rerun in each org still skips what that org has
 * done. A `--journal` (or an export's `.part`) of another org is refused with the fix, nothing sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { freeProspects, newSequence, stateProspects } from '../helpers/bulk.js';
import { startInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { tempDir } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

const SEED = 60;
const sandboxes: Sandbox[] = [];
afterAll(async () => {
  for (const s of sandboxes) await s.close();
});

async function sandbox(opts: Parameters<typeof sandboxWithEnv>[0] = {}): Promise<TestSandbox> {
  const { sb } = await sandboxWithEnv({ seed: SEED, ...opts });
  sandboxes.push(sb);
  return sb;
}

/** svc against one org with its token (a fresh config dir, so nothing but the org differs). */
const against = (sb: TestSandbox, args: string[], extra: Record<string, string> = {}) =>
  svcInProcess(args, {
    env: { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: sb.baseUrl, SVC_AUTH_URL: sb.authUrl, SVC_TOKEN: sb.token, ...extra },
  });

const holders = (sb: TestSandbox, email: string) =>
  [...sb.store.table('prospect').values()].filter((p) => (p.attributes['emails'] as string[] | undefined)?.includes(email));

/** A CSV of new people, and the upsert of it. */
function leads(dir: string, tag: string) {
  const emails = [1, 2, 3].map((i) => `lead${i}.${tag}@orgs.test`);
  const file = path.join(dir, 'leads.csv');
  fs.writeFileSync(file, `emails,firstName,lastName\n${emails.map((e, i) => `${e},Lead${i},${tag}`).join('\n')}\n`);
  return { file, emails, args: ['prospects', 'upsert', '--input', file, '--match', 'email'] };
}

describe('two sandboxes, one CSV', () => {
  let a: TestSandbox;
  let b: TestSandbox;
  beforeAll(async () => {
    [a, b] = await Promise.all([sandbox(), sandbox()]);
  });

  it('upsert on A then on B: B gets every row; a rerun on each skips what that org did', async () => {
    const dir = tempDir('svc-orgs-');
    const { file, emails, args } = leads(dir, 'ab');
    const onA = await against(a, args);
    expect(onA.code, onA.stderr).toBe(0);
    expect(onA.stderr).toMatch(/3 created/);
    const mark = b.requests.length;
    const onB = await against(b, args);
    expect(onB.code, onB.stderr).toBe(0);
    expect(onB.stderr).toMatch(/3 created/);
    // Said as what it is: the other's rows are kept; "this run starts afresh" read as thrown away (a trial).
    expect(onB.stderr).toMatch(/also holds 3 row\(s\) of another org or command \(.*\), kept for it; this run's rows are apart/);
    expect(onB.stderr).not.toMatch(/done by an earlier run/);
    expect(received(b, mark).filter((q) => q.method === 'POST')).toHaveLength(3);
    for (const e of emails) {
      expect(holders(a, e), e).toHaveLength(1);
      expect(holders(b, e), e).toHaveLength(1);
    }
    // Each org's rerun skips its own rows (its journal entries), and writes nothing.
    for (const sb of [a, b]) {
      const before = sb.requests.length;
      const again = await against(sb, args);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toMatch(/3 skipped/);
      expect(received(sb, before).filter((q) => q.method !== 'GET')).toHaveLength(0);
    }
    // One journal beside the input, each run under the line of its owner.
    const owners = fs
      .readFileSync(`${file}.journal.ndjson`, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"owner"'))
      .map((l) => JSON.parse(l).owner);
    expect(new Set(owners.map((o) => o.instance)).size).toBe(2);
    expect(owners.every((o) => o.command === 'prospects upsert' && o.org === '1')).toBe(true);
  });

  it('a journal that does not say whose its rows are (an older svc) is refused, nothing written', async () => {
    const dir = tempDir('svc-orgs-');
    const { file, emails, args } = leads(dir, 'old');
    fs.writeFileSync(
      `${file}.journal.ndjson`,
      '{"key":"Jm0QMtvOw303j3sl2EsH3P","row":1,"status":"created","id":5,"at":"2025-01-02T03:04:05.000Z"}\n',
    );
    const mark = a.requests.length;
    const r = await against(a, args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^error: .*leads\.csv\.journal\.ndjson: its 1 row\(s\) were recorded by an earlier svc that did not record the org they were done in$/m,
    );
    expect(r.stderr).toMatch(/^hint: move it away to start afresh/m);
    expect(received(a, mark).filter((q) => q.method !== 'GET')).toHaveLength(0);
    for (const e of emails) expect(holders(a, e)).toHaveLength(0);
  });

  it('enroll on B then on A: A enrolls every row too', async () => {
    const dir = tempDir('svc-orgs-');
    // The same seed: the same free prospects, and the new sequence gets the same id in both orgs.
    const [seqA, seqB] = await Promise.all([newSequence(a), newSequence(b)]);
    expect(seqA).toBe(seqB);
    const ids = freeProspects(a, 3, 20);
    expect(freeProspects(b, 3, 20)).toEqual(ids);
    const file = path.join(dir, 'people.csv');
    fs.writeFileSync(file, `id\n${ids.join('\n')}\n`);
    const args = ['enroll', '--sequence', String(seqA), '--mailbox', '1', '--input', file, '--yes'];
    const onB = await against(b, args);
    expect(onB.code, onB.stderr).toBe(0);
    expect(stateProspects(b, seqB)).toEqual(ids);
    const onA = await against(a, args);
    expect(onA.code, onA.stderr).toBe(0);
    expect(onA.stderr).toMatch(/3 created/);
    expect(stateProspects(a, seqA)).toEqual(ids);
  });
});

describe('a rehearsal copy and its production', () => {
  let prod: TestSandbox;
  let copy: Sandbox;
  let copyFile: string;
  let configDir: string;
  let seq: number;
  beforeAll(async () => {
    prod = await sandbox();
    seq = await newSequence(prod);
    configDir = tempDir();
    const scopes = [
      'prospects.all',
      'accounts.all',
      'sequences.all',
      'sequenceStates.all',
      ...['users', 'teams', 'rulesets', 'stages', 'personas', 'sequenceSteps', 'templates', 'sequenceTemplates', 'mailboxes'].map(
        (r) => `${r}.read`,
      ),
      'emailAddresses.read',
      'phoneNumbers.read',
    ].join(' ');
    const login = await cliLoginInProcess(prod, configDir, ['--scopes', scopes], { SVC_PROFILE: 'prod' });
    expect(login.code, login.stderr).toBe(0);
    copyFile = path.join(tempDir('svc-orgs-copy-'), 'copy.json');
    const made = await svcInProcess(['sandbox', '--from-profile', 'prod', '--sample', String(SEED), '--data', copyFile], {
      env: { SVC_CONFIG_DIR: configDir },
    });
    expect(made.code, made.stderr).toBe(0);
    // The copy served on its own, as `svc sandbox --data copy.json` does, and used with --base-url
    // (a "rehearsal" profile): the input's default journal is the one production's runs use too.
    copy = await startSandbox({ port: 0, dataFile: copyFile });
    sandboxes.push(copy);
  }, 120_000);

  it('the copy has the org id and user of production: only where it is tells them apart', async () => {
    type Meta = { organization: { id: number; instance: string }; user: { id: number } };
    const root = async (sb: { baseUrl: string; token: string }) =>
      ((await (await fetch(sb.baseUrl, { headers: { authorization: `Bearer ${sb.token}` } })).json()) as { meta: Meta }).meta;
    const [p, c] = await Promise.all([root(prod), root(copy)]);
    expect(c.organization.id).toBe(p.organization.id);
    expect(c.user.id).toBe(p.user.id);
    expect(c.organization.instance).not.toBe(p.organization.instance);
  });

  it('upsert rehearsed on the copy, then run on production: production gets every row', async () => {
    const dir = tempDir('svc-orgs-');
    const { emails, args } = leads(dir, 'cp');
    const rehearsal = await against(copy as TestSandbox, args);
    expect(rehearsal.code, rehearsal.stderr).toBe(0);
    expect(rehearsal.stderr).toMatch(/3 created/);
    const real = await svcInProcess(args, { env: { SVC_CONFIG_DIR: configDir, SVC_PROFILE: 'prod' } });
    expect(real.code, real.stderr).toBe(0);
    expect(real.stderr).toMatch(/3 created/);
    for (const e of emails) expect(holders(prod, e), e).toHaveLength(1);
  });

  it('enroll on production, then rehearsed on the copy: the copy enrolls every row', async () => {
    const dir = tempDir('svc-orgs-');
    const ids = freeProspects(prod, 3, 30);
    const file = path.join(dir, 'people.csv');
    fs.writeFileSync(file, `id\n${ids.join('\n')}\n`);
    const args = ['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--yes'];
    const real = await svcInProcess(args, { env: { SVC_CONFIG_DIR: configDir, SVC_PROFILE: 'prod' } });
    expect(real.code, real.stderr).toBe(0);
    expect(stateProspects(prod, seq)).toEqual(ids);
    const rehearsal = await against(copy as TestSandbox, args);
    expect(rehearsal.code, rehearsal.stderr).toBe(0);
    expect(rehearsal.stderr).toMatch(/3 created/);
    expect(stateProspects(copy as TestSandbox, seq)).toEqual(ids);
  });

  it('--journal J reused from a rehearsal (--sandbox-data) is refused by the real run, which sends nothing', async () => {
    const dir = tempDir('svc-orgs-');
    const { file, emails, args } = leads(dir, 'jj');
    const journal = path.join(dir, 'run.journal');
    // The copy file is served by this test process: a second copy file for `--sandbox-data`.
    const served = path.join(dir, 'rehearsal.json');
    fs.copyFileSync(copyFile, served);
    const rehearsal = await svcInProcess(['--sandbox-data', served, ...args, '--journal', journal], {
      env: { SVC_CONFIG_DIR: configDir, SVC_SANDBOX_DIR: tempDir() },
    });
    expect(rehearsal.code, rehearsal.stderr).toBe(0);
    expect(rehearsal.stderr).toMatch(/3 created/);
    const mark = prod.requests.length;
    const real = await svcInProcess([...args, '--journal', journal], { env: { SVC_CONFIG_DIR: configDir, SVC_PROFILE: 'prod' } });
    expect(real.code, real.stderr).toBe(2);
    expect(real.stderr).toMatch(
      /error: --journal .*run\.journal belongs to another org or command: it records 3 row\(s\) of prospects upsert on org/,
    );
    expect(real.stderr).toMatch(/hint: this run is prospects upsert on org .* give it its own --journal FILE/);
    expect(received(prod, mark).filter((q) => q.method !== 'GET')).toHaveLength(0);
    for (const e of emails) expect(holders(prod, e)).toHaveLength(0);
    expect(fs.existsSync(file)).toBe(true);
  });
});

describe('export --resume', () => {
  it("refuses another org's .part (nothing listed) and continues its own", async () => {
    const [x, y] = await Promise.all([sandbox({ seed: 400, latencyMs: 30 }), sandbox({ seed: 400 })]);
    const dir = tempDir('svc-orgs-');
    const file = path.join(dir, 'p.csv');
    const part = `${file}.part`;
    const env = (sb: TestSandbox) => ({
      SVC_CONFIG_DIR: tempDir(),
      SVC_BASE_URL: sb.baseUrl,
      SVC_AUTH_URL: sb.authUrl,
      SVC_TOKEN: sb.token,
    });
    // The interrupted export in process too (a Ctrl-C is its abort, as bin/svc's SIGINT handler
    // makes it): the .part it leaves is what is under test here; export.test.ts interrupts
    // and kills bin/svc. A bin/svc start was ~0.3 CPU-s.
    const run = startInProcess(['prospects', 'export', file, '--page-size', '10'], { env: env(x) });
    const deadline = Date.now() + 20_000;
    while (!(fs.existsSync(part) && fs.readFileSync(part, 'utf8').split('\n').length > 30)) {
      if (Date.now() > deadline) throw new Error('the export never wrote 30 lines');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await run.stop('SIGINT')).toBe(130);
    const mark = y.requests.length;
    const other = await svcInProcess(['prospects', 'export', file, '--resume'], { env: env(y) });
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toMatch(/error: .*p\.csv\.part was exported by prospects export on org .* this export is prospects export on org/);
    expect(other.stderr).toMatch(/hint: export to another file, or delete .*p\.csv\.part \(and .*p\.csv\.part\.json\) to start again/);
    expect(received(y, mark, 'prospects')).toHaveLength(0);
    const own = await svcInProcess(['prospects', 'export', file, '--resume'], { env: env(x) });
    expect(own.code, own.stderr).toBe(0);
    const ids = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => Number(l.split(',')[0]));
    expect(ids).toEqual([...x.store.table('prospect').keys()]);
  });
});
