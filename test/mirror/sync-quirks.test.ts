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
});
