/**
 * Seed determinism and the data file (atomic, reloaded on start) with its change log (replayed
 * on start). `svc sandbox` itself (printed credentials, signals) is tested end to end in
 * test/e2e/sandbox-command.test.ts; a kill -9 of a process serving an org file in
 * test/e2e/sandbox-kill-ids.test.ts.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { replayChangeLog, type DataFile } from '../../src/sandbox/data/persistence.js';
import { doc, start } from '../helpers/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('seed', () => {
  it('is deterministic and seed N gives N prospects', async () => {
    const a = await start({ seed: 30 });
    const b = await start({ seed: 30 });
    try {
      const pa = await a.get('/prospects?page[limit]=1000&count=true');
      const pb = await b.get('/prospects?page[limit]=1000');
      expect(pa.body.meta.count).toBe(30);
      const strip = (r: any) => r.body.data.map((p: any) => [p.attributes.name, p.attributes.emails, p.attributes.title]);
      expect(strip(pa)).toEqual(strip(pb));
    } finally {
      await a.sb.close();
      await b.sb.close();
    }
  });

  it('the default org has the believable pieces', async () => {
    const c = await start({ seed: undefined });
    try {
      for (const path of [
        'users',
        'teams',
        'accounts',
        'prospects',
        'sequences',
        'sequenceSteps',
        'templates',
        'sequenceTemplates',
        'rulesets',
        'mailboxes',
        'tasks',
        'calls',
        'mailings',
        'opportunities',
        'stages',
        'emailAddresses',
        'phoneNumbers',
      ]) {
        expect((await c.get(`/${path}?page[limit]=1`)).body.data.length, path).toBe(1);
      }
      const p = (await c.get('/prospects/1')).body.data.attributes;
      expect(p.emails[0]).toMatch(/@/);
      expect(p.workPhones[0]).toMatch(/^\+1/);
    } finally {
      await c.sb.close();
    }
  });
});

describe('data file', () => {
  it('persists records and tokens across restarts, written atomically', async () => {
    const file = join(dir, 'org.json');
    const first = await startSandbox({ port: 0, seed: 8, dataFile: file });
    const r = await fetch(`${first.baseUrl}/accounts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${first.token}`, 'Content-Type': 'application/vnd.api+json' },
      body: JSON.stringify(doc('account', { name: 'Persisted' })),
    });
    const id = ((await r.json()) as any).data.id;
    const token = first.token;
    await first.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1);
    const second = await startSandbox({ port: 0, dataFile: file });
    try {
      expect(second.token).toBe(token);
      const got = await fetch(`${second.baseUrl}/accounts/${id}`, { headers: { Authorization: `Bearer ${token}` } });
      expect(((await got.json()) as any).data.attributes.name).toBe('Persisted');
      const next = await fetch(`${second.baseUrl}/accounts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.api+json' },
        body: JSON.stringify(doc('account', { name: 'Next' })),
      });
      expect(((await next.json()) as any).data.id).toBe(id + 1);
    } finally {
      await second.close();
    }
  });
});

describe('change log', () => {
  const rec = (id: number, name: string) => ({ id, attributes: { name }, rels: {} });
  const dataFile = (): DataFile => ({
    version: 1,
    seq: 3,
    ownerUserId: 1,
    org: { name: 'Org', instance: 'org-1' } as DataFile['org'],
    store: { meta: {}, nextIds: { account: 4 }, tables: { account: [rec(1, 'A'), rec(2, 'B'), rec(3, 'C')] } },
    auth: { clients: [], adminToken: 't', access: [], refresh: [] },
  });
  const line = (v: unknown) => `${JSON.stringify(v)}\n`;

  it("replays the changes after the file's, in order, and leaves out a torn last line", () => {
    const file = join(dir, 'replay.json');
    const auth = { clients: [], adminToken: 't', access: [], refresh: [] };
    writeFileSync(
      `${file}.log`,
      line({ org: 'org-1', after: 2 }) +
        // Held by the file already (its seq is 3): not applied again.
        line({ s: 3, put: [['account', rec(2, 'stale')]] }) +
        line({
          s: 4,
          put: [
            ['account', rec(2, 'B2')],
            ['account', rec(4, 'D')],
          ],
          next: { account: 5 },
        }) +
        line({ s: 5, del: [['account', 1]], meta: { retiredCleanupTokens: ['x'] }, auth }) +
        // Killed while writing it: never acknowledged.
        '{"s":6,"put":[["account",{"id":5,"attributes":{"na',
    );
    const data = dataFile();
    expect(replayChangeLog(file, data)).toBe(2);
    expect(data.seq).toBe(5);
    expect(data.store.tables['account']!.map((r) => [r.id, r.attributes['name']])).toEqual([
      [2, 'B2'],
      [3, 'C'],
      [4, 'D'],
    ]);
    expect(data.store.nextIds).toEqual({ account: 5 });
    expect(data.store.meta).toEqual({ retiredCleanupTokens: ['x'] });
    expect(data.auth).toEqual(auth);
    // A log of another org, or one following a later file (a backup put back), is not applied.
    writeFileSync(`${file}.log`, line({ org: 'org-2', after: 2 }) + line({ s: 4, del: [['account', 1]] }));
    expect(replayChangeLog(file, dataFile())).toBe(0);
    writeFileSync(`${file}.log`, line({ org: 'org-1', after: 4 }) + line({ s: 5, del: [['account', 1]] }));
    expect(replayChangeLog(file, dataFile())).toBe(0);
    // A damaged line before the last is an error, not a silent loss.
    writeFileSync(`${file}.log`, line({ org: 'org-1', after: 3 }) + 'garbage\n' + line({ s: 4, del: [['account', 1]] }));
    expect(() => replayChangeLog(file, dataFile())).toThrow(/damaged \(line 2 is not valid JSON\)/);
  });

  it('holds every acknowledged change, those made while the file was being written too', async () => {
    const file = join(dir, 'logged.json');
    const sb = await startSandbox({ port: 0, seed: 8, dataFile: file });
    const post = async (name: string) => {
      const r = await fetch(`${sb.baseUrl}/accounts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/vnd.api+json' },
        body: JSON.stringify(doc('account', { name })),
      });
      expect(r.status).toBe(201);
      return ((await r.json()) as any).data.id as number;
    };
    // What a kill -9 would leave: the files as they are now, loaded by another sandbox.
    const afterKill = async (tag: string) => {
      const d = join(dir, tag);
      mkdirSync(d);
      for (const f of [file, `${file}.log`, `${file}.ids`]) if (existsSync(f)) copyFileSync(f, join(d, basename(f)));
      const copy = await startSandbox({ port: 0, dataFile: join(d, 'logged.json') });
      try {
        return (id: number) => copy.store.get('account', id)?.attributes['name'];
      } finally {
        await copy.close();
        // Replayed and written at once: no log is left.
        expect(existsSync(join(d, 'logged.json.log'))).toBe(false);
      }
    };
    try {
      const a = await post('Logged');
      expect(statSync(`${file}.log`).mode & 0o777).toBe(0o600);
      expect((await afterKill('k1'))(a)).toBe('Logged');
      // A change made while the snapshot is being written stays in the log once the file is in place.
      const saving = sb.save();
      const b = await post('DuringSave');
      await saving;
      const lines = readFileSync(`${file}.log`, 'utf8').trim().split('\n');
      expect(JSON.parse(lines[0]!).after).toBe(JSON.parse(readFileSync(file, 'utf8')).seq);
      const found = await afterKill('k2');
      expect([found(a), found(b)]).toEqual(['Logged', 'DuringSave']);
      await sb.save();
      expect(existsSync(`${file}.log`)).toBe(false);
    } finally {
      await sb.close();
    }
    expect(existsSync(`${file}.log`)).toBe(false);
  });

  it("holds a change a timer made (a compliance request's erasure) before any answer or save", async () => {
    const file = join(dir, 'timer.json');
    const sb = await startSandbox({ port: 0, seed: 8, dataFile: file, complianceStepMs: 20 });
    try {
      const r = await fetch(`${sb.baseUrl}/complianceRequests`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/vnd.api+json' },
        body: JSON.stringify(doc('complianceRequest', { requestType: 'Delete', objectType: 'Prospect', requestObjectId: '3' })),
      });
      expect(r.status).toBe(201);
      // The files as a kill -9 would leave them the moment the erasure is done: before the periodic
      // save (250 ms after a change) and before any request gives the sandbox an answer to log.
      const d = join(dir, 'timer-kill');
      await new Promise<void>((resolve) => {
        const t = setInterval(() => {
          if (sb.store.get('prospect', 3)) return;
          clearInterval(t);
          mkdirSync(d);
          for (const f of [file, `${file}.log`]) if (existsSync(f)) copyFileSync(f, join(d, basename(f)));
          resolve();
        }, 1);
      });
      const copy = await startSandbox({ port: 0, dataFile: join(d, 'timer.json') });
      try {
        expect(copy.store.get('prospect', 3)).toBeUndefined();
        expect([...copy.store.table('complianceRequest').values()].map((c) => c.attributes['state'])).toEqual(['done']);
      } finally {
        await copy.close();
      }
    } finally {
      await sb.close();
    }
  });
});
