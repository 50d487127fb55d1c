/**
 * The mirror against a server that does what sync connectors report from the field, switched on
 * in the sandbox (its quirks, test/README.md): an `updatedAt` stamped minutes in the future must
 * not carry the watermark past the server's clock (a later ordinary change would be missed), and
 * a delete that cascades silently — dependents gone, referrers unlinked, no event — is found by a
 * reconcile. Each ends equal to the API.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { expectTableEqualsApi } from '../helpers/mirror.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { doc, start, type Client } from '../helpers/sandbox.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { openDatabase } from '../../src/mirror/sqlite.js';

const TYPES = ['prospects', 'accounts', 'mailings', 'sequence-states'];
const PATHS = ['/prospects', '/accounts', '/mailings', '/sequenceStates'];

let c: Client;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  c = await start({ seed: 150 });
  env = baseEnv({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });
});
afterAll(() => c.sb.close());

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 60_000 });
const quirks = (query: string) => c.req('POST', `${c.sb.authUrl}/_sandbox/quirks?${query}`);

describe('a server with quirks', () => {
  it('an updatedAt in the future does not carry the watermark past the clock', async () => {
    const db = path.join(tempDir(), 'future.sqlite');
    expect((await svc(['sync', '--db', db, ...TYPES])).code).toBe(0);
    const ids = (await c.get('/prospects?sort=id&page[limit]=2')).body.data.map((d: { id: string }) => d.id);
    // One update stamped 30 minutes ahead, then the quirk off and an ordinary update.
    expect((await quirks('futureUpdatedAt=30')).status).toBe(200);
    expect((await c.patch(`/prospects/${ids[0]}`, doc('prospect', { title: 'From the future' }, {}, ids[0]))).status).toBe(200);
    expect((await svc(['sync', '--db', db, ...TYPES])).code).toBe(0);
    expect((await quirks('futureUpdatedAt=false')).status).toBe(200);
    expect((await c.patch(`/prospects/${ids[1]}`, doc('prospect', { title: 'Ordinary change' }, {}, ids[1]))).status).toBe(200);
    const r = await svc(['sync', '--db', db, ...TYPES]);
    expect(r.code, r.stderr).toBe(0);
    const row = await svc(['sql', '--db', db, '-o', 'json', 'select title from prospects where id = :id', '-p', `id=${ids[1]}`]);
    expect(JSON.parse(row.stdout)).toEqual([{ title: 'Ordinary change' }]);
    for (const p of PATHS) await expectTableEqualsApi(c, db, p);
  });

  it('a delete that cascades silently is found by a reconcile', async () => {
    const db = path.join(tempDir(), 'silent.sqlite');
    expect((await svc(['sync', '--db', db, ...TYPES])).code).toBe(0);
    expect((await quirks('silentCascade=true')).status).toBe(200);
    try {
      // A prospect with mailings and sequence states: they vanish with it, without events.
      const states = (await c.get('/sequenceStates?page[limit]=1')).body.data;
      const owner = states[0].relationships.prospect.data.id;
      expect((await c.del(`/prospects/${owner}`)).status).toBe(204);
      const plain = await svc(['sync', '--db', db, ...TYPES]);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stderr).toMatch(/prospects: \d+ changed, 1 deleted/);
      const reconciled = await svc(['sync', '--db', db, '--reconcile', ...TYPES]);
      expect(reconciled.code, reconciled.stderr).toBe(0);
      expect(reconciled.stderr).toMatch(/sequence_states: \d+ changed, [1-9]\d* deleted/);
      for (const p of PATHS) await expectTableEqualsApi(c, db, p);
    } finally {
      await quirks('silentCascade=false');
    }
  });

  /** A field the org's schema gave an earlier run, in a mirror's accounts (the sandbox's org has none of its own). */
  async function addOrgField(db: string): Promise<void> {
    const raw = await openDatabase(db);
    const cols = JSON.parse(String(raw.get("select columns from _svc_tables where table_name = 'accounts'")!.columns)) as [
      string,
      string,
    ][];
    raw.exec('ALTER TABLE accounts ADD COLUMN region_code TEXT');
    raw.run("update _svc_tables set columns = ? where table_name = 'accounts'", [JSON.stringify([...cols, ['region_code', 'TEXT']])]);
    raw.close();
  }

  it("the org schema unreadable this time: its last pull is used; without one, the org's fields are kept, not rebuilt away, and the labels stay", async () => {
    const proxy = await startFaultProxy(c.sb.authUrl);
    // Every run through the proxy, with a config directory of its own: the schema cache the first
    // syncs' pulls write is of the proxy's URL.
    const viaProxy = { ...env, SVC_BASE_URL: `${proxy.origin}/api/v2`, SVC_CONFIG_DIR: tempDir() };
    const run = (args: string[], extra: Record<string, string> = {}) =>
      runInProcess(args, { ...viaProxy, ...extra }, { timeoutMs: 60_000 });
    try {
      const fields = path.join(tempDir(), 'org-fields.sqlite');
      const labelled = path.join(tempDir(), 'labelled.sqlite');
      expect((await run(['sync', '--db', fields, 'accounts'])).code).toBe(0);
      expect((await run(['sync', '--db', labelled, 'prospects'])).code).toBe(0);
      await addOrgField(fields);
      const scores = async () => {
        const r = await svc(['sql', '--db', labelled, '-o', 'json', 'select count("Lead Score") as n from prospects_labelled']);
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout)[0].n as number;
      };
      const before = await scores();
      expect(before).toBeGreaterThan(0);
      proxy.always({ path: /^\/api\/v2\/schema\// }, { kind: 'answer', status: 503, body: 'unavailable' });
      // This profile's last pull (every sync's pull writes it) stands in.
      const withCache = await run(['sync', '--db', labelled, 'prospects']);
      expect(withCache.code, withCache.stderr).toBe(0);
      expect(withCache.stderr).toMatch(/the org schema could not be read \(HTTP 503\): using the one pulled /);
      expect(await scores()).toBe(before);
      // No pull to go by (a config directory without one): the table holding the org's field is
      // left alone, said, rather than rebuilt without it.
      const none = await run(['sync', '--db', fields, 'accounts'], { SVC_CONFIG_DIR: tempDir() });
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(
        /^error: accounts: the mirror has fields of the org's schema \(region_code\), which could not be read this time: nothing synced/m,
      );
      expect(none.stderr).not.toMatch(/rebuilding/);
      const kept = await openDatabase(fields);
      expect((kept.all('PRAGMA table_info(accounts)') as { name: string }[]).map((x) => x.name)).toContain('region_code');
      kept.close();
      // No pull, and nothing at stake but the labels: the sync goes on, the labelled view as it
      // was (it was dropped and made without them: no "Lead Score").
      const plain = await run(['sync', '--db', labelled, 'prospects'], { SVC_CONFIG_DIR: tempDir() });
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stderr).toMatch(/custom-field labels are not refreshed this time/);
      expect(await scores()).toBe(before);
    } finally {
      await proxy.close();
    }
  });

  it('the org schema read again, without a field the mirror has: the table is made without it', async () => {
    const db = path.join(tempDir(), 'gone.sqlite');
    expect((await svc(['sync', '--db', db, 'accounts'])).code).toBe(0);
    await addOrgField(db);
    const again = await svc(['sync', '--db', db, 'accounts']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/accounts: its columns changed .*rebuilding the table/);
    await expectTableEqualsApi(c, db, '/accounts');
  });
});
