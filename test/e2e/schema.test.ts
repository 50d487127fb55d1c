/**
 * `svc schema pull|show` and custom-field labels as attribute names, in-process (svcInProcess)
 * against the sandbox (whose org labels prospect custom1..custom4) and a scripted server whose
 * OpenAPI document shows a field the spec does not. What labels do before anything is written
 * (validation, another profile, `schema show` of an unknown type) is checked in-process in
 * test/unit/commands/schema/labels-usage.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { runInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, json, tempDir } from '../helpers/run-svc.js';
import { textWidth } from '../../src/output/terminal-text.js';
import { startTinyServer } from '../helpers/tiny-server.js';

let sb: TestSandbox;
let sbEnv: () => Record<string, string>;
/** One config dir with a pulled schema, shared by the tests that need it. */
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

type Row = {
  name: string;
  type: string;
  marks: string;
  label: string | null;
  validation: string | null;
  options: string | null;
  source: string;
};

describe('schema pull', () => {
  it('fetches the OpenAPI document and /types and caches them per profile, 0600', async () => {
    const env = sbEnv();
    const mark = sb.requests.length;
    const r = await svcInProcess(['schema', 'pull', '-o', 'json'], { env });
    expect(r.code).toBe(0);
    const paths = received(sb, mark)
      .map((q) => `${q.method} ${q.path}`)
      .sort();
    expect(paths).toEqual(['GET /api/v2/schema/openapi.json', 'GET /api/v2/types']);
    expect(received(sb, mark).every((q) => q.headers.authorization === `Bearer ${sb.token}`)).toBe(true);
    const summary = json<{ file: string; profile: string; customFields: number }>(r);
    expect(summary.profile).toBe('default');
    expect(summary.file).toBe(path.join(env.SVC_CONFIG_DIR!, 'schema.default.json'));
    expect(summary.customFields).toBeGreaterThanOrEqual(4);
    expect(fs.statSync(summary.file).mode & 0o777).toBe(0o600);
    const cache = JSON.parse(fs.readFileSync(summary.file, 'utf8')) as {
      types: Record<string, { customFields: Record<string, { label: string; type: string }> }>;
    };
    expect(cache.types.prospect!.customFields.custom1).toMatchObject({ label: 'Lead Source Detail', type: 'inclusion' });
    expect(r.stderr).toMatch(/cached in .*schema\.default\.json/);
    expect(r.stderr + r.stdout).not.toContain(sb.token);
  });

  it('schema show lists fields with marks and custom labels', async () => {
    const r = await svcInProcess(['schema', 'show', 'prospects', '-o', 'json'], { env: pulled });
    expect(r.code).toBe(0);
    const rows = json<Row[]>(r);
    expect(rows.find((x) => x.name === 'title')).toMatchObject({ type: 'string', marks: 'F S max 255', source: 'spec' });
    expect(rows.find((x) => x.name === 'createdAt')).toMatchObject({ marks: 'RO F S', source: 'spec' });
    // The spec hides prospect's attributes before contactHistogram: the registry infers them.
    for (const name of ['addedAt', 'addressCity', 'company'])
      expect(rows.find((x) => x.name === name)).toMatchObject({ source: 'inferred' });
    expect(rows.find((x) => x.name === 'custom1')).toMatchObject({
      label: 'Lead Source Detail',
      validation: 'inclusion',
      options: 'Webinar, Conference, Referral, Inbound, Outbound',
      source: 'custom',
    });
    const table = await svcInProcess(['schema', 'show', 'prospect', '-o', 'table'], { env: pulled });
    expect(table.stdout).toMatch(/^NAME +TYPE +MARKS +LABEL +VALIDATION +OPTIONS$/m);
    expect(table.stdout).toMatch(/^custom2 +string +Lead Score +numerical$/m);
    const bare = await svcInProcess(['schema', 'show', 'prospect', '-o', 'table'], { env: sbEnv() });
    expect(bare.stdout).not.toMatch(/Lead Score/);
    expect(bare.stderr).toMatch(/run `svc schema pull` for their labels/);
  });

  it('schema show on an 80-column terminal: names, types, marks and labels whole, the options under their field', async () => {
    // A trial: lines of up to 127 columns wrapped on an 80-column terminal. Then they were cut to
    // fit: `Lead Sou…`, `RO F S max …`, `Webinar, C…` (another trial). A mark runs on over the empty
    // label beside it, and the options go on a line of their own under their field.
    const wide = await runInProcess(['schema', 'show', 'prospect'], baseEnv(pulled), { tty: true, columns: 400 });
    const r = await runInProcess(['schema', 'show', 'prospect'], baseEnv(pulled), { tty: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    // The OPTIONS header and the two fields with options take a line more each.
    expect(lines).toHaveLength(wide.stdout.trimEnd().split('\n').length + 3);
    for (const l of lines) expect(textWidth(l), l).toBeLessThanOrEqual(80);
    expect(r.stdout).not.toContain('…');
    expect(lines.slice(0, 2)).toEqual([expect.stringMatching(/^NAME +TYPE +MARKS +LABEL +VALIDATION$/), `${' '.repeat(19)}OPTIONS`]);
    expect(r.stdout).toMatch(/^custom1 +string +Lead Source Detail +inclusion\n {19}Webinar, Conference, Referral, Inbound, Outbound\n/m);
    expect(r.stdout).toMatch(/^emailsOptStatus +string +max 255\n {19}opted_in, opted_out\n/m);
    expect(r.stdout).toMatch(/^proNetSlug +string +RO F S max 255$/m);
    expect(wide.stdout).toMatch(/^custom1 +string +Lead Source Detail +inclusion +Webinar, Conference, Referral, Inbound, Outbound$/m);
  });
});

describe('custom-field labels as attribute names', () => {
  it('create with --attr "<Label>=value" sends customN, normalised, and the server stores it', async () => {
    const mark = sb.requests.length;
    const r = await svcInProcess(
      [
        'prospects',
        'create',
        '--attr',
        'firstName=Label',
        '--attr',
        'lead source detail=referral',
        '--attr',
        'Lead Score=42',
        '--attr',
        'Last Event Attended=2024-05-01',
      ],
      { env: pulled },
    );
    expect(r.code, r.stderr).toBe(0);
    const post = received(sb, mark, 'prospects').find((q) => q.method === 'POST')!;
    const attrs = (JSON.parse(post.body) as { data: { attributes: Record<string, unknown> } }).data.attributes;
    expect(attrs).toEqual({ firstName: 'Label', custom1: 'Referral', custom2: '42', custom4: '2024-05-01' });
    const rec = json<{ id: number; custom1: string }>(r);
    expect(rec.custom1).toBe('Referral');
    const upd = await svcInProcess(['prospects', 'update', String(rec.id), '--attr', 'Calendar Link=https://cal.example.com/ada'], {
      env: pulled,
    });
    expect(upd.code, upd.stderr).toBe(0);
    expect(json<{ custom3: string }>(upd).custom3).toBe('https://cal.example.com/ada');
  });

  it('without a pulled schema a label pulls the schema once, then names its field', async () => {
    const r = await svcInProcess(['prospects', 'create', '--attr', 'Lead Score=42', '-o', 'json'], { env: sbEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/"Lead Score" not known: pulling the org schema/);
    expect(JSON.parse(r.stdout).custom2).toBe('42');
  });
});

describe('fields only the org schema shows', () => {
  it('become typed and validated names', async () => {
    const openapi = {
      openapi: '3.0.3',
      paths: { '/prospects': { get: { parameters: [{ name: 'filter[favoriteNumber]', in: 'query' }] } } },
      components: {
        schemas: {
          Prospect: {
            type: 'object',
            properties: {
              type: { type: 'string', enum: ['prospect'] },
              attributes: {
                type: 'object',
                properties: {
                  title: { type: 'string' },
                  favoriteNumber: { type: 'integer' },
                  secretScore: { type: 'number', readOnly: true },
                },
              },
            },
          },
        },
      },
    };
    const types = {
      data: [
        { type: 'prospect', meta: { validations: { custom9: { type: 'boolean', required: false, label: 'VIP', definition: null } } } },
      ],
    };
    const server = await startTinyServer((req) => {
      if (req.url === '/api/v2/schema/openapi.json')
        return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(openapi) };
      if (req.url === '/api/v2/types') return { status: 200, body: JSON.stringify(types) };
      return { status: 500, body: '' };
    });
    try {
      const env = { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: `${server.url}/api/v2`, SVC_TOKEN: 'tiny-token' };
      expect((await svcInProcess(['schema', 'pull'], { env })).code).toBe(0);
      const show = json<Row[]>(await svcInProcess(['schema', 'show', 'prospect', '-o', 'json'], { env }));
      expect(show.find((x) => x.name === 'favoriteNumber')).toMatchObject({ type: 'integer', marks: 'F', source: 'org' });
      const bad = await svcInProcess(['prospects', 'create', '--attr', 'favoriteNumber=many'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/attribute "favoriteNumber" of prospect: expected an integer, got "many"/);
      const ro = await svcInProcess(['prospects', 'create', '--attr', 'secretScore=3'], { env });
      expect(ro.code).toBe(2);
      expect(ro.stderr).toMatch(/secretScore: is read-only/);
      const ok = await svcInProcess(['prospects', 'create', '--attr', 'favoriteNumber=7', '--attr', 'vip=yes', '--dry-run'], { env });
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain('"favoriteNumber": 7');
      expect(ok.stdout).toContain('"custom9": "true"');
      expect(server.received.filter((q) => q.method !== 'GET')).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
