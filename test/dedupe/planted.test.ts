/**
 * `svc dedupe prospects` on a sandbox org with planted duplicates (`--duplicates 5`: 5 % of the
 * prospects get a duplicate written another way, plus as many near-misses that must not match;
 * the truth is each planted record's `externalId`). Synced with `svc sync`, clustered from the
 * mirror with the default settings; precision and recall are counted over pairs and printed.
 *
 * SVC_DEDUPE_SEED=20000 runs it at the size. Measured 2026-11-28 (2 shared cores):
 * 20,000 prospects + 1,000 planted duplicates + 1,000 near-misses: see the README's figures.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { mirrorRows } from '../helpers/mirror.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { start, type Client } from '../helpers/sandbox.js';

const SEED = Number(process.env.SVC_DEDUPE_SEED ?? 1000);
const LIMIT_MS = SEED > 2000 ? 1_200_000 : 60_000;

let c: Client;
let env: NodeJS.ProcessEnv;
let db: string;
beforeAll(async () => {
  c = await start({ seed: SEED, duplicates: 5 });
  const dir = tempDir('svc-dedupe-');
  db = path.join(dir, 'org.sqlite');
  env = baseEnv({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });
  const sync = await runInProcess(['sync', '--db', db, 'users', 'accounts', 'prospects'], env, { timeoutMs: LIMIT_MS });
  expect(sync.code, sync.stderr).toBe(0);
}, LIMIT_MS);
afterAll(async () => {
  await c.sb.close();
});

/** `a,b` with a < b. */
const pair = (a: number, b: number) => (a < b ? `${a},${b}` : `${b},${a}`);

describe('svc dedupe prospects on planted duplicates', () => {
  it(
    'finds the planted duplicates (recall ≥ 95 %) and not the near-misses (precision ≥ 99 %)',
    async () => {
      const rows = await mirrorRows(env, db, 'prospects');
      const truth = new Set<string>();
      let nearMisses = 0;
      for (const r of rows) {
        const m = /^planted-dup:(\d+)$/.exec(r.external_id ?? '');
        if (m) truth.add(pair(Number(r.id), Number(m[1])));
        if (String(r.external_id ?? '').startsWith('near-miss:')) nearMisses++;
      }
      expect(truth.size).toBe(Math.round(SEED * 0.05));
      expect(nearMisses).toBeGreaterThan(truth.size);

      const started = Date.now();
      const r = await runInProcess(['dedupe', 'prospects', '--db', db, '-o', 'ndjson'], env, { timeoutMs: LIMIT_MS });
      expect(r.code, r.stderr).toBe(0);
      const seconds = (Date.now() - started) / 1000;
      const members = r.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { cluster: number; id: number; score: number; reasons: string });
      const byCluster = new Map<number, number[]>();
      for (const m of members) byCluster.set(m.cluster, [...(byCluster.get(m.cluster) ?? []), m.id]);
      const found = new Set<string>();
      for (const ids of byCluster.values())
        for (let i = 0; i < ids.length; i++) for (let j = i + 1; j < ids.length; j++) found.add(pair(ids[i]!, ids[j]!));
      const hits = [...found].filter((p) => truth.has(p)).length;
      const precision = found.size ? hits / found.size : 1;
      const recall = hits / truth.size;
      console.log(
        `dedupe: ${rows.length} prospects (${truth.size} planted duplicates, ${nearMisses} near-misses): precision ${(precision * 100).toFixed(2)} %, recall ${(recall * 100).toFixed(2)} % (${found.size} pairs found, ${hits} right), ${seconds.toFixed(1)} s`,
      );
      const wrong = [...found].filter((p) => !truth.has(p)).slice(0, 5);
      expect(precision, `pairs found that are not planted: ${wrong.join(' ')}`).toBeGreaterThanOrEqual(0.99);
      expect(
        recall,
        `planted pairs missed: ${[...truth]
          .filter((p) => !found.has(p))
          .slice(0, 5)
          .join(' ')}`,
      ).toBeGreaterThanOrEqual(0.95);
    },
    LIMIT_MS,
  );
});
