/**
 * Answers a well-behaved service would not send, from a scripted server: ids above 2^53, an
 * attribute named `__proto__`, control characters in error documents and in who a token
 * belongs to. What the CLI prints, and what it sends back, must keep the data intact and the
 * terminal clean.
 *
 * All the tests run at once (describe.concurrent): each sends under a path prefix of its own
 * (`/<tag>/api/v2`, which the server strips), so a test that checks the requests it caused sees
 * only its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { startTinyServer, type Received, type Responder } from '../helpers/tiny-server.js';

const BIG = '9007199254740993'; // 2^53 + 1: JSON.parse and Number() make it …992
const OSC52 = '\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07';
const CLEAR = '\x1b[2J\x1b[H';
const BIDI = '\u202eolleh\u202c\x9b31m';
const EVIL_DETAIL = `too long${BIDI}\r\nerror: a line the server made up`;
/** What a terminal would act on: ESC, BEL, CR and other C0 (newline aside), DEL, C1, bidi controls. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
let server: Awaited<ReturnType<typeof startTinyServer>>;

// Written by hand: JSON.stringify cannot write a number above 2^53 exactly.
const record = `{"type":"prospect","id":${BIG},"attributes":{"firstName":"Eve","__proto__":{"polluted":"yes"},"score":12345678901234567890},"relationships":{"account":{"data":{"type":"account","id":${BIG}}}}}`;

beforeAll(async () => {
  server = await startTinyServer((req: Received): ReturnType<Responder> => {
    const u = new URL(untagged(req.url), 'http://x');
    if (req.method === 'GET' && u.pathname === '/api/v2')
      return {
        status: 200,
        body: JSON.stringify({
          meta: { user: { id: 3, name: `Mallory${OSC52}`, email: 'm@evil.example' }, organization: { name: `Org${BIDI}` } },
        }),
      };
    if (u.pathname === '/api/v2/prospects/666' || (req.method === 'POST' && u.pathname === '/api/v2/prospects')) {
      return {
        status: 422,
        body: JSON.stringify({
          errors: [{ id: 'validationError', title: `Bad${CLEAR}`, detail: EVIL_DETAIL, source: { pointer: '/data/attributes/title' } }],
        }),
      };
    }
    if (req.method === 'GET' && u.pathname === '/api/v2/prospects')
      return { status: 200, body: `{"data":[${record}],"links":{},"meta":{"count":null}}` };
    if (req.method === 'GET' && u.pathname.startsWith('/api/v2/prospects/')) return { status: 200, body: `{"data":${record}}` };
    if (req.method === 'DELETE' && u.pathname.startsWith('/api/v2/prospects/')) return { status: 204 };
    if (req.method === 'PATCH' && u.pathname.startsWith('/api/v2/prospects/')) return { status: 200, body: `{"data":${record}}` };
    return { status: 404, body: JSON.stringify({ errors: [{ id: 'resourceNotFound', title: 'Resource not found' }] }) };
  });
});
afterAll(async () => {
  await server.close();
});

/** A request's URL without the test's tag (`/<tag>/api/v2/x` → `/api/v2/x`). */
const untagged = (url: string) => url.replace(/^\/[^/]+(?=\/api\/v2)/, '');
/** Env for svc sending under the test's own tag. */
const env = (tag: string) => ({
  SVC_CONFIG_DIR: tempDir(),
  SVC_BASE_URL: `${server.url}/${tag}/api/v2`,
  SVC_TOKEN: 'tok_test_abcdef123456',
});
/** The requests sent under a tag, in order, with their URLs untagged. */
const sentUnder = (tag: string) => server.received.filter((r) => r.url.startsWith(`/${tag}/`)).map((r) => ({ ...r, url: untagged(r.url) }));

describe.concurrent('an attribute named __proto__', () => {
  it('is an ordinary field in json, ndjson and csv output', async () => {
    for (const format of ['json', 'ndjson']) {
      const r = await svcInProcess(['prospects', 'list', '-o', format], { env: env('proto-json') });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('"__proto__":');
      const rec = (format === 'json' ? JSON.parse(r.stdout)[0] : JSON.parse(r.stdout.trim())) as Record<string, unknown>;
      expect(Object.hasOwn(rec, '__proto__'), format).toBe(true);
      expect(Object.getOwnPropertyDescriptor(rec, '__proto__')!.value).toEqual({ polluted: 'yes' });
    }
    const csv = await svcInProcess(['prospects', 'list', '-o', 'csv'], { env: env('proto-json') });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]!.split(',')).toContain('__proto__');
  });

  it('shows as its own row in the table view, not as columns of its members', async () => {
    const r = await svcInProcess(['prospects', 'get', '7', '-o', 'table'], { env: env('proto-table') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^__proto__\s+\{"polluted":"yes"\}$/m);
    expect(r.stdout).not.toMatch(/^polluted/m);
    const t = await svcInProcess(['prospects', 'list', '-o', 'table', '--columns', 'id,polluted,constructor'], { env: env('proto-table') });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).not.toContain('yes');
    expect(t.stdout).not.toContain('function');
  });
});

describe.concurrent('ids above 2^53', () => {
  it('delete, get and update address the record the user named', async () => {
    const sent = () => sentUnder('named');
    let mark = sent().length;
    const del = await svcInProcess(['prospects', 'delete', BIG, '--yes', '-o', 'json'], { env: env('named') });
    expect(del.code, del.stderr).toBe(0);
    // The GET reads the before-image `svc runs undo` needs: it too names the user's record.
    expect(
      sent()
        .slice(mark)
        .map((r) => `${r.method} ${r.url.split('?')[0]}`),
    ).toEqual([`GET /api/v2/prospects/${BIG}`, `DELETE /api/v2/prospects/${BIG}`]);
    expect(del.stderr).toContain(`deleted prospect ${BIG}`);
    expect(del.stdout).toContain(`"id":"${BIG}"`);

    mark = sent().length;
    const get = await svcInProcess(['prospects', 'get', BIG, '-o', 'json'], { env: env('named') });
    expect(get.code, get.stderr).toBe(0);
    expect(sent()[mark]!.url).toMatch(new RegExp(`^/api/v2/prospects/${BIG}(\\?|$)`));

    mark = sent().length;
    const upd = await svcInProcess(['prospects', 'update', BIG, '--attr', 'title=x', '--rel', `account=${BIG}`], { env: env('named') });
    expect(upd.code, upd.stderr).toBe(0);
    const updates = sent().slice(mark);
    expect(updates.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      `GET /api/v2/prospects/${BIG}`,
      `PATCH /api/v2/prospects/${BIG}`,
    ]);
    const patch = updates[1]!;
    expect(patch.body).toContain(`"id":"${BIG}"`);
    expect(JSON.parse(patch.body).data.relationships.account.data.id).toBe(BIG);
  });

  it('output keeps every digit: ids, relationship ids and big numbers, in every format', async () => {
    for (const format of ['json', 'ndjson']) {
      const r = await svcInProcess(['prospects', 'list', '-o', format], { env: env('digits') });
      const rec = (format === 'json' ? JSON.parse(r.stdout)[0] : JSON.parse(r.stdout)) as Record<string, unknown>;
      expect(rec).toMatchObject({ id: BIG, account: BIG, score: '12345678901234567890' });
    }
    const csv = await svcInProcess(['prospects', 'list', '-o', 'csv', '--columns', 'id,account,score'], { env: env('digits') });
    expect(csv.stdout).toBe(`id,account,score\n${BIG},${BIG},12345678901234567890\n`);
    const table = await svcInProcess(['prospects', 'get', BIG, '-o', 'table'], { env: env('digits') });
    expect(table.stdout).toMatch(new RegExp(`^id\\s+${BIG}$`, 'm'));
    expect(table.stdout).toMatch(/^score\s+12345678901234567890$/m);
  });

  it('bulk update --input sends the ids of the file, digit for digit', async () => {
    const file = path.join(tempDir(), 'rows.ndjson');
    fs.writeFileSync(file, `{"id":${BIG},"title":"a"}\n{"id":"9007199254740995","title":"b"}\n`);
    const r = await svcInProcess(['prospects', 'update', '--input', file], { env: env('bulk-ids') });
    expect(r.code, r.stderr).toBe(0);
    const patches = sentUnder('bulk-ids').filter((x) => x.method === 'PATCH');
    expect(patches.map((x) => x.url.split('?')[0]).sort()).toEqual([`/api/v2/prospects/${BIG}`, '/api/v2/prospects/9007199254740995']);
    expect(patches.map((x) => JSON.parse(x.body).data.id).sort()).toEqual([BIG, '9007199254740995']);
  });
});

describe.concurrent('control characters from the server', () => {
  it('API error lines show them escaped, one line per error; the -o json error line keeps the exact text', async () => {
    const r = await svcInProcess(['prospects', 'get', '666'], { env: env('api-errors') });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stderr).toContain(
      'error: Bad\\e[2J\\e[H: too long\\u202eolleh\\u202c\\x9b31m\\r\\nerror: a line the server made up (field /data/attributes/title',
    );
    expect(r.stderr.match(/^error:/gm)).toHaveLength(1);
    const j = await svcInProcess(['prospects', 'get', '666', '-o', 'json'], { env: env('api-errors') });
    expect(j.stderr).not.toMatch(RAW_CONTROL);
    const doc = JSON.parse(j.stderr.trim().split('\n').at(-1)!) as { errors: { detail: string }[] };
    expect(doc.errors[0]!.detail).toBe(EVIL_DETAIL);
  });

  it('auth status shows who the token belongs to escaped', async () => {
    const r = await svcInProcess(['auth', 'status', '-o', 'table'], { env: env('whoami') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    expect(r.stdout).toMatch(/^Logged in as:\s+Mallory\\e\]52;c;Y3VybCBldmlsIHwgc2g=\\a <m@evil\.example> \(user 3\)$/m);
    expect(r.stdout).toContain('Org\\u202eolleh');
    const j = await svcInProcess(['auth', 'status', '-o', 'json'], { env: env('whoami') });
    expect(JSON.parse(j.stdout).user.name).toBe(`Mallory${OSC52}`);
  });

  it('bulk failure lines show them escaped', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'rows.ndjson');
    fs.writeFileSync(file, '{"firstName":"A"}\n{"firstName":"B"}\n');
    const r = await svcInProcess(['prospects', 'create', '--input', file], { env: env('bulk-errors') });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stderr).toMatch(/^row 1: failed: .*Bad\\e\[2J.*too long\\u202eolleh/m);
  });
});
