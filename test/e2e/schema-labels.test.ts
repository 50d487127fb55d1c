/**
 * Custom-field labels as names beyond `--attr`: `--filter`, `--sort`, `--fields`, `--columns`
 * of list/get, and column names of bulk input — in-process (svcInProcess) against the sandbox
 * (whose org labels prospect custom1 "Lead Source Detail" (inclusion) and custom2 "Lead Score"
 * (numerical)), checking what the server received.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { startInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { json, tempDir } from '../helpers/run-svc.js';

let sb: TestSandbox;
let sbEnv: () => Record<string, string>;
/** A config dir with a pulled schema. */
let pulled: Record<string, string>;

beforeAll(async () => {
  ({ sb, env: sbEnv } = await sandboxWithEnv());
  pulled = sbEnv();
  const r = await svcInProcess(['schema', 'pull'], { env: pulled });
  if (r.code !== 0) throw new Error(`schema pull failed: ${r.stderr}`);
});
afterAll(async () => {
  await sb?.close();
});

/** The decoded query pairs of the GETs of /prospects received since `mark`. */
function listQueries(mark: number): [string, string][][] {
  return received(sb, mark, 'prospects')
    .filter((q) => q.method === 'GET')
    .map((q) => [...new URLSearchParams(q.query.raw)]);
}

describe('labels in list and get flags', () => {
  it('--filter and --sort with labels reach the server as customN', async () => {
    const mark = sb.requests.length;
    const r = await svcInProcess(
      ['prospects', 'list', '--filter', 'Lead Source Detail=Referral', '--sort', '-Lead Score,id', '--limit', '1'],
      {
        env: pulled,
      },
    );
    const qs = listQueries(mark);
    expect(qs).toHaveLength(1);
    expect(qs[0]).toContainEqual(['filter[custom1]', 'Referral']);
    expect(qs[0]).toContainEqual(['sort', '-custom2,id']);
    expect(qs[0]!.some(([k]) => k.includes('Lead'))).toBe(false);
    // Which custom fields filter is the org's business: the sandbox's org filters and sorts on
    // those it labelled, and an unlabelled one is refused by a server answer naming it.
    expect(r.code, r.stderr).toBe(0);
    const rows = await svcInProcess(['prospects', 'list', '--filter', 'Lead Source Detail=Referral', '-o', 'json', '--all'], {
      env: pulled,
    });
    const found = json<{ custom1: string }[]>(rows);
    expect(found.length).toBeGreaterThan(0);
    expect(new Set(found.map((p) => p.custom1))).toEqual(new Set(['Referral']));
    // A picklist's value in another case is the option; a value that is no option is refused,
    // by label or by name, as --attr does (both matched nothing, a review).
    for (const name of ['Lead Source Detail', 'custom1']) {
      const m = sb.requests.length;
      const folded = await svcInProcess(['prospects', 'list', '--filter', `${name}=referral`, '-o', 'json', '--all'], { env: pulled });
      expect(folded.code, folded.stderr).toBe(0);
      expect(json<unknown[]>(folded)).toHaveLength(found.length);
      expect(listQueries(m)[0]).toContainEqual(['filter[custom1]', 'Referral']);
      const typo = await svcInProcess(['prospects', 'list', '--filter', `${name}=Refferal`], { env: pulled });
      expect(typo.code).toBe(2);
      expect(typo.stderr).toMatch(/"Refferal" is not a value of custom1.*Referral/s);
    }
    const unlabelled = await svcInProcess(['prospects', 'list', '--filter', 'custom9=x'], { env: pulled });
    expect(unlabelled.code).toBe(1);
    expect(unlabelled.stderr).toMatch(/prospect\.custom9 is not filterable.*filter\[custom9\]/);
  });

  it('--fields and --columns with labels name customN', async () => {
    const created = await svcInProcess(['prospects', 'create', '--attr', 'firstName=Cols', '--attr', 'Lead Score=7'], { env: pulled });
    expect(created.code, created.stderr).toBe(0);
    const id = json<{ id: number }>(created).id;
    const mark = sb.requests.length;
    const got = await svcInProcess(['prospects', 'get', String(id), '--fields', 'firstName,Lead Score', '-o', 'json'], { env: pulled });
    expect(got.code, got.stderr).toBe(0);
    expect(listQueries(mark)[0]).toContainEqual(['fields[prospect]', 'firstName,custom2']);
    expect(json<{ custom2: string }>(got).custom2).toBe('7');
    const csv = await svcInProcess(['prospects', 'list', '--filter', `id=${id}`, '--columns', 'id,Lead Score', '-o', 'csv'], {
      env: pulled,
    });
    expect(csv.code, csv.stderr).toBe(0);
    // Headed as asked: the manager's sheet showed `custom2` for "Lead Score" (a trial).
    expect(csv.stdout.trim().split('\n')).toEqual(['id,Lead Score', `${id},7`]);
    // An export too, and the label reads back: the file given back changes nothing.
    const file = path.join(tempDir(), 'scores.csv');
    const exported = await svcInProcess(['prospects', 'export', file, '--filter', `id=${id}`, '--columns', 'Lead Score,firstName'], {
      env: pulled,
    });
    expect(exported.code, exported.stderr).toBe(0);
    expect(
      fs
        .readFileSync(file, 'utf8')
        .replace(/^\uFEFF/, '')
        .trim()
        .split(/\r?\n/),
    ).toEqual(['id,Lead Score,firstName', `${id},7,Cols`]);
    const back = await svcInProcess(['prospects', 'update', '--input', file, '--match', 'id', '--plan', '-o', 'json'], { env: pulled });
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout).bill).toMatchObject({ updates: 0, unchanged: 1 });
  });

  it('an export begun by an earlier svc, its part headed by field names, resumes as it is headed', async () => {
    // Its part says `id,custom2`; the same --columns now head `id,Lead Score`, and the resume was
    // refused as "other columns" (a review).
    const slow = await sandboxWithEnv({ latencyMs: 30 });
    try {
      const env = slow.env();
      expect((await svcInProcess(['schema', 'pull'], { env })).code).toBe(0);
      const file = path.join(tempDir(), 'old.csv');
      const part = `${file}.part`;
      const args = ['prospects', 'export', file, '--columns', 'id,Lead Score', '--page-size', '1', '--no-bom'];
      const run = startInProcess(args, { env });
      const deadline = Date.now() + 20_000;
      while (!(fs.existsSync(part) && fs.readFileSync(part, 'utf8').split('\n').length > 4)) {
        if (Date.now() > deadline) throw new Error('the export never wrote 4 lines');
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await run.stop('SIGINT')).toBe(130);
      const text = fs.readFileSync(part, 'utf8');
      expect(text.startsWith('id,Lead Score\n')).toBe(true);
      fs.writeFileSync(part, text.replace(/^id,Lead Score\n/, 'id,custom2\n'));
      const resumed = await svcInProcess([...args, '--resume'], { env });
      expect(resumed.code, resumed.stderr).toBe(0);
      const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
      expect(lines[0]).toBe('id,custom2');
      expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual([...slow.sb.store.table('prospect').keys()]);
    } finally {
      await slow.sb.close();
    }
  });

  // That a label does read it (with --dry-run) is checked in-process in
  // test/unit/commands/schema/labels-usage.test.ts.
  it('does not read the cache when every flag names a field the registry knows', async () => {
    const plain = await svcInProcess(
      ['--verbose', 'prospects', 'list', '--filter', 'firstName=Ada', '--sort', '-createdAt', '--columns', 'id,custom2', '--limit', '1'],
      { env: pulled },
    );
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toMatch(/org schema from/);
  });

  it('without a pulled schema a label is pulled for once, then sent as its field', async () => {
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--sort', '-Lead Score', '--limit', '1'], { env: sbEnv() });
    expect(listQueries(mark)[0]).toContainEqual(['sort', '-custom2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/"Lead Score" not known: pulling the org schema/);
  });
});

describe('labels as bulk column names', () => {
  it('a CSV with label headers creates records with customN set; a bad inclusion value fails its row', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'people.csv');
    fs.writeFileSync(file, 'firstName,Lead Source Detail,Lead Score\nAda,referral,12\nBob,Radio,3\nCy,Webinar,\n');
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'create', '--input', file, '--journal', path.join(dir, 'j.ndjson')], { env: pulled });
    const posts = received(sb, mark, 'prospects').filter((q) => q.method === 'POST');
    const sent = posts.map((q) => (JSON.parse(q.body) as { data: { attributes: Record<string, unknown> } }).data.attributes);
    expect(sent).toHaveLength(2);
    expect(sent).toContainEqual({ firstName: 'Ada', custom1: 'Referral', custom2: '12' });
    expect(sent).toContainEqual({ firstName: 'Cy', custom1: 'Webinar' });
    expect(r.stderr).toMatch(
      /row 2: custom1 \(Lead Source Detail\): must be one of Webinar, Conference, Referral, Inbound, Outbound \(got "Radio"\)/,
    );
    expect(r.code).toBe(5);
    const list = await svcInProcess(['prospects', 'list', '--filter', 'firstName=Ada', '-o', 'json', '--all'], { env: pulled });
    expect(json<{ custom1: string }[]>(list).some((p) => p.custom1 === 'Referral')).toBe(true);
  });

  // With a pulled schema, --dry-run maps them from the cache: checked in-process in
  // test/unit/commands/schema/labels-usage.test.ts.
  it('NDJSON keys that are labels map too: without a cached schema it is pulled once first', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'people.ndjson');
    fs.writeFileSync(file, JSON.stringify({ firstName: 'Dee', 'lead score': 5 }) + '\n');
    const fresh = sbEnv();
    const mark = sb.requests.length;
    const bare = await svcInProcess(['prospects', 'create', '--input', file, '--dry-run', '--journal', path.join(dir, 'k.ndjson')], {
      env: fresh,
    });
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toMatch(/column "lead score" not known: pulling the org schema/);
    expect(JSON.parse(bare.stdout.trim()).body.data.attributes).toEqual({ firstName: 'Dee', custom2: '5' });
    expect(
      sb.requests
        .slice(mark)
        .map((q) => `${q.method} ${q.path}`)
        .sort(),
    ).toEqual(['GET /api/v2/schema/openapi.json', 'GET /api/v2/types']);
    // Pulled once: the next run reads the cache.
    const again = sb.requests.length;
    const second = await svcInProcess(['prospects', 'create', '--input', file, '--dry-run', '--journal', path.join(dir, 'k.ndjson')], {
      env: fresh,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(sb.requests.length).toBe(again);
  });
});
