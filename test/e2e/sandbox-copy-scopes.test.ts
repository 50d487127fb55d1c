/**
 * A rehearsal copy after a default `svc login`: the scopes a full copy needs are named before
 * anything is sent, in one line with the exact `svc login --scopes …` command, and that command
 * gives a copy with teams, rulesets, stages and personas. Unnamed accounts, which the accounts
 * index hides unless filtered on `named`, are copied with the prospects that belong to them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let prod: TestSandbox;
let configDir: string;
let work: string;
const SAMPLE = 150;

beforeAll(async () => {
  // The second login (with the scopes named) need not wait out the one-token-per-minute limit.
  ({ sb: prod } = await sandboxWithEnv({ seed: 400, tokenIssueIntervalMs: 0 }));
  configDir = tempDir();
  work = tempDir('svc-copy-scopes-');
  const login = await cliLoginInProcess(prod, configDir, [], { SVC_PROFILE: 'prod' });
  expect(login.code, login.stderr).toBe(0);
}, 60_000);
afterAll(() => prod?.close());

const copy = (file: string) =>
  runInProcess(['sandbox', '--from-profile', 'prod', '--sample', String(SAMPLE), '--data', file], { SVC_CONFIG_DIR: configDir }, 60_000);

describe('svc sandbox --from-profile after a default login', () => {
  it('names the scopes a full copy needs before starting, once, and copies unnamed accounts', async () => {
    const file = path.join(work, 'default.json');
    const r = await copy(file);

    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n');
    const named = lines.filter((l) => l.includes('svc login --profile prod --scopes'));
    expect(named, r.stderr).toHaveLength(1);
    expect(named[0]).toMatch(/^warning: profile "prod" may not read teams, rulesets: .*for a full copy first run: svc login/);
    // Before anything was copied.
    expect(lines.indexOf(named[0]!)).toBeLessThan(lines.findIndex((l) => l.startsWith('copying the org')));
    const scopes = /--scopes "([^"]+)"/.exec(named[0]!)![1]!.split(' ');
    for (const s of ['teams.read', 'rulesets.read', 'stages.read', 'personas.read', 'prospects.all', 'accounts.all'])
      expect(scopes).toContain(s);
    // Every sampled prospect keeps its account, named or not.
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    const accounts = new Set(data.store.tables.account.map((a: { id: number }) => a.id));
    const lost: number[] = [];
    let unnamed = 0;
    for (const p of data.store.tables.prospect as { id: number }[]) {
      const acc = prod.store.get('prospect', p.id)!.rels['account'] as { id: number } | null;
      if (!acc) continue;
      if (!accounts.has(acc.id)) lost.push(p.id);
      else if (prod.store.get('account', acc.id)!.attributes['named'] === false) unnamed++;
    }
    expect(lost).toEqual([]);
    expect(unnamed).toBeGreaterThan(0);
    // The estimate given up front holds (accounts are asked for both ways).
    expect(Number(/about (\d+) needed/.exec(r.stderr)![1])).toBe(JSON.parse(r.stdout).requests);

    // The command it named gives a full copy.
    const relogin = await cliLoginInProcess(prod, configDir, ['--scopes', scopes.join(' ')], { SVC_PROFILE: 'prod' });
    expect(relogin.code, relogin.stderr).toBe(0);
    const full = await copy(path.join(work, 'full.json'));
    expect(full.code, full.stderr).toBe(0);
    expect(full.stderr).not.toMatch(/svc login|not copied/);
    const counts = JSON.parse(full.stdout).counts;
    for (const t of ['team', 'ruleset', 'stage', 'persona']) expect(counts[t], t).toBe(prod.store.table(t).size);
  }, 120_000);
});
