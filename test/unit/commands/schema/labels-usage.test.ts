/**
 * Custom-field labels before anything is written, in-process against the sandbox (whose org
 * labels prospect custom1..custom4) after an in-process `schema pull`: values checked against
 * their validation type, labels in flags and bulk columns resolved for --dry-run from the cache,
 * a label without the cache refused with the way out, and an unknown type for `schema show`.
 * (The e2e tests keep the pull itself and the labels on real writes, through the built binary.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../../../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../../../helpers/sandbox.js';

let sb: TestSandbox;
let sbEnv: () => Record<string, string>;
/** A config dir with a pulled schema. */
let pulled: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ sb, env: sbEnv } = await sandboxWithEnv());
  pulled = baseEnv(sbEnv());
  const r = await runInProcess(['schema', 'pull'], pulled);
  if (r.code !== 0) throw new Error(`schema pull failed: ${r.stderr}`);
});
afterAll(async () => {
  await sb?.close();
});

describe('schema show', () => {
  it('an unknown type is a usage error', async () => {
    const bad = await runInProcess(['schema', 'show', 'widgets'], pulled);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: unknown type "widgets"/);
  });
});

describe('custom-field labels as attribute names', () => {
  it('checks values against the validation type before sending anything', async () => {
    const mark = sb.requests.length;
    const cases: [string, RegExp][] = [
      [
        'Lead Source Detail=Radio',
        /prospect custom1 \(Lead Source Detail\): must be one of Webinar, Conference, Referral, Inbound, Outbound \(got "Radio"\)/,
      ],
      ['Lead Score=lots', /prospect custom2 \(Lead Score\): expected a number, got "lots"/],
      ['Calendar Link=cal.example.com', /prospect custom3 \(Calendar Link\): expected an http\(s\) URL/],
      ['custom4=2024-02-30', /prospect custom4 \(Last Event Attended\): expected a date YYYY-MM-DD/],
    ];
    for (const [attr, message] of cases) {
      const r = await runInProcess(['prospects', 'create', '--attr', 'firstName=X', '--attr', attr], pulled);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(received(sb, mark).filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('for another profile labels are not names', async () => {
    const mark = sb.requests.length;
    const other = await runInProcess(['--profile', 'other', 'prospects', 'create', '--attr', 'Lead Score=42', '--dry-run'], pulled);
    expect(other.stdout).toContain('"Lead Score": "42"');
    expect(received(sb, mark)).toEqual([]);
  });
});

describe('labels in list flags', () => {
  it('reads the cache when a flag names a field the registry does not know', async () => {
    const labelled = await runInProcess(['--verbose', 'prospects', 'list', '--sort', '-Lead Score', '--limit', '1', '--dry-run'], pulled);
    expect(labelled.stderr).toMatch(/org schema from .*schema\.default\.json/);
  });

  it('without a pulled schema a dry run says how to know a label, and sends nothing', async () => {
    const mark = sb.requests.length;
    const f = await runInProcess(['--dry-run', 'prospects', 'list', '--filter', 'Lead Source Detail=Referral'], baseEnv(sbEnv()));
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/"Lead Source Detail" is not a field name/);
    expect(f.stderr).toMatch(/svc schema pull/);
    expect(received(sb, mark)).toEqual([]);
  });

  it('without a pulled schema a label is pulled for once, then sent as its field', async () => {
    const env = baseEnv(sbEnv());
    const mark = sb.requests.length;
    const f = await runInProcess(['prospects', 'list', '--sort', '-Lead Score', '--limit', '1', '-o', 'json'], env);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stderr).toMatch(/"Lead Score" not known: pulling the org schema/);
    const lists = received(sb, mark, 'prospects').filter((q) => q.method === 'GET');
    expect(new URLSearchParams(lists[0]!.query.raw).get('sort')).toBe('-custom2');
    expect(fs.readdirSync(env.SVC_CONFIG_DIR!)).toContain('schema.default.json');
  });
});

describe('labels as bulk column names', () => {
  it('NDJSON keys that are labels map for --dry-run', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'people.ndjson');
    fs.writeFileSync(file, `${JSON.stringify({ firstName: 'Dee', 'lead score': 5 })}\n`);
    const mark = sb.requests.length;
    const dry = await runInProcess(['prospects', 'create', '--input', file, '--dry-run', '--journal', path.join(dir, 'j.ndjson')], pulled);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout.trim()).body.data.attributes).toEqual({ firstName: 'Dee', custom2: '5' });
    expect(received(sb, mark)).toEqual([]);
  });
});

describe('labels in plans', () => {
  it("a plan names a custom field by its label too, as its columns line and row errors do; -o json keeps the field's name", async () => {
    const dir = tempDir();
    const file = path.join(dir, 'scores.csv');
    const before = await runInProcess(['prospects', 'get', '3', '-o', 'json', '--fields', 'custom2'], pulled);
    const held = JSON.parse(before.stdout).custom2 as string;
    const score = held === '91' ? '92' : '91';
    fs.writeFileSync(file, `id,Lead Score\n3,${score}\n`);
    const plan = await runInProcess(['prospects', 'update', '--input', file, '--plan', '-o', 'table'], pulled);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`  custom2 (Lead Score): "${held}" → "${score}"`);
    fs.writeFileSync(file, 'email,Lead Score\nnew.person@labels.test,7\n');
    const create = await runInProcess(['prospects', 'upsert', '--input', file, '--match', 'email', '--plan', '-o', 'table'], pulled);
    expect(create.code, create.stderr).toBe(0);
    expect(create.stdout).toContain('  custom2 (Lead Score): "7"');
    fs.writeFileSync(file, `id,Lead Score\n3,${score}\n`);
    const json = await runInProcess(['prospects', 'update', '--input', file, '--plan', '-o', 'json'], pulled);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).rows[0].changes).toEqual([{ field: 'custom2', old: held, new: score }]);
    // Run, then the undo's plan names it so too.
    const run = await runInProcess(['prospects', 'update', '--input', file, '-o', 'json'], pulled);
    expect(run.code, run.stderr).toBe(0);
    const undo = await runInProcess(['runs', 'undo', JSON.parse(run.stdout).run, '--plan', '-o', 'table'], pulled);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain(`  custom2 (Lead Score): "${score}" → "${held}"`);
  });
});
