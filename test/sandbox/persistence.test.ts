/**
 * Seed determinism and the data file (atomic, reloaded on start). `svc sandbox` itself (printed
 * credentials, signals) is tested end to end in test/e2e/sandbox-command.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
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
