/**
 * `svc dedupe prospects` on records a Japanese sales team writes (a trial's two misses), over real
 * HTTP against the sandbox: a number typed with full-width digits (`０３-７７７７-１１１１`, kept so
 * by the API and by `--input`: a phone is text) is the same number as `03-7777-1111`, found by
 * phone and never added twice to the survivor by a merge; `ABC株式会社` and `株式会社ABC` are one
 * company, the legal form before or after the name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { doc, start, type Client } from '../helpers/sandbox.js';

let c: Client;
let env: NodeJS.ProcessEnv;
let dir: string;
let db: string;
const ids: Record<string, number> = {};

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 30_000 });

beforeAll(async () => {
  c = await start();
  dir = tempDir('svc-dedupe-japanese-');
  env = baseEnv({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });
  const made = async (key: string, attributes: Record<string, unknown>) => {
    const r = await c.post('/prospects', doc('prospect', attributes));
    expect(r.status, r.text).toBe(201);
    ids[key] = Number(r.body.data.id);
    // Stored as typed: the full-width digits are what another tool's record holds.
    for (const [k, v] of Object.entries(attributes)) expect(r.body.data.attributes[k]).toEqual(v);
  };
  // In creation order: the first of each pair is the oldest, the survivor.
  await made('nakamura', { firstName: '中村', lastName: '優子', company: '中村商店', workPhones: ['03-7777-1111'] });
  await made('nakamuraWide', { firstName: '中村', lastName: '優子', company: '中村商店', workPhones: ['０３-７７７７-１１１１'] });
  // The same number full-width and as +81 (in --region JP), and a new one.
  await made('sato', { firstName: '佐藤', lastName: '健', company: '佐藤商店', workPhones: ['03-5555-0000'] });
  await made('satoWide', {
    firstName: '佐藤',
    lastName: '健',
    company: '佐藤商店',
    workPhones: ['０３-５５５５-００００', '+81 3 5555 0000', '０９０－１２３４－５６７８'],
  });
  await made('suzuki', { firstName: '鈴木', lastName: '一郎', company: 'ABC株式会社' });
  await made('suzukiPrefix', { firstName: '鈴木', lastName: '一郎', company: '株式会社ABC' });
  db = path.join(dir, 'org.sqlite');
  const sync = await svc(['sync', '--db', db, 'users', 'accounts', 'prospects']);
  expect(sync.code, sync.stderr).toBe(0);
});
afterAll(() => c.sb.close());

it('finds a number typed full-width by phone, in --region JP', async () => {
  const r = await svc(['dedupe', 'prospects', '--db', db, '--by', 'phone', '--region', 'JP', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  const rows = JSON.parse(r.stdout) as { cluster: number; id: number; reasons: string }[];
  const nakamura = rows.filter((x) => x.id === ids.nakamura || x.id === ids.nakamuraWide);
  expect(nakamura.map((x) => x.reasons)).toEqual([
    `${ids.nakamura} ~ ${ids.nakamuraWide}: phone +81377771111 and name 中村 優子`,
    `${ids.nakamura} ~ ${ids.nakamuraWide}: phone +81377771111 and name 中村 優子`,
  ]);
});

it('finds one person at ABC株式会社 and 株式会社ABC by name, and a merge adds no number the survivor has in another width or form', async () => {
  const plan = path.join(dir, 'plan.json');
  const r = await svc([
    'dedupe',
    'prospects',
    '--db',
    db,
    '--by',
    'name',
    '--region',
    'JP',
    '--keep',
    'oldest',
    '--plan',
    plan,
    '-o',
    'json',
  ]);
  expect(r.code, r.stderr).toBe(0);
  const clusters = JSON.parse(fs.readFileSync(plan, 'utf8')).clusters as {
    reasons: string[];
    survivor: { id: number };
    duplicates: { id: number }[];
    fill: Record<string, { value: unknown; from: unknown }>;
  }[];
  const bySurvivor = new Map(clusters.map((k) => [k.survivor.id, k]));

  const abc = bySurvivor.get(ids.suzuki!);
  expect(abc?.duplicates.map((d) => d.id)).toEqual([ids.suzukiPrefix]);
  expect(abc!.reasons).toEqual([`${ids.suzuki} ~ ${ids.suzukiPrefix}: name 鈴木 一郎 at abc`]);

  const nakamura = bySurvivor.get(ids.nakamura!);
  expect(nakamura?.duplicates.map((d) => d.id)).toEqual([ids.nakamuraWide]);
  // The survivor has 03-7777-1111: its full-width twin is no number to add.
  expect(nakamura!.fill.workPhones).toBeUndefined();
  const sato = bySurvivor.get(ids.sato!);
  expect(sato?.duplicates.map((d) => d.id)).toEqual([ids.satoWide]);
  // 03-5555-0000 full-width and as +81 (read in --region JP): the survivor has it; only the mobile number is new.
  expect(sato!.fill.workPhones).toEqual({ value: ['03-5555-0000', '０９０－１２３４－５６７８'], from: [ids.satoWide] });
});
