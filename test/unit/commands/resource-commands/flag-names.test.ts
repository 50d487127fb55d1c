/**
 * Names in `--json`, `--columns`, `--fields`, `--filter` and `--attr` through the one name
 * resolver: labels and other spellings name their fields, a name that is no field is a usage
 * error before the list is asked for (in every output format), and `--columns` narrows JSON.
 * In-process against a real sandbox (its org labels prospect custom1 "Lead Source Detail" and
 * custom2 "Lead Score"), with no schema pulled beforehand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../../helpers/in-process-cli.js';
import { baseEnv } from '../../../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../../../helpers/sandbox.js';

let sb: TestSandbox;
let sbEnv: () => Record<string, string>;
let id: number;

beforeAll(async () => {
  ({ sb, env: sbEnv } = await sandboxWithEnv());
  const r = await runInProcess(['prospects', 'create', '--attr', 'firstName=Lea', '--attr', 'custom2=41', '-o', 'json'], baseEnv(sbEnv()));
  if (r.code !== 0) throw new Error(r.stderr);
  id = (JSON.parse(r.stdout) as { id: number }).id;
});
afterAll(async () => {
  await sb?.close();
});

const lists = (mark: number) => received(sb, mark, 'prospects').filter((q) => q.method === 'GET');

describe('labels and spellings in flags', () => {
  it('--json with a label gives the field\'s value, written --json=a,b or --json "a,b"', async () => {
    for (const argv of [['--json=id,Lead Score'], ['--json', 'id,Lead Score']]) {
      const r = await runInProcess(['prospects', 'list', '--filter', `id=${id}`, ...argv], baseEnv(sbEnv()));
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([{ id, custom2: '41' }]);
    }
  });

  it('create --json with a label prints the written field', async () => {
    const r = await runInProcess(['prospects', 'create', '--attr', 'Lead Score=12', '--json', 'id,Lead Score'], baseEnv(sbEnv()));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ custom2: '12' });
  });

  it('--attr takes a label ignoring case and spacing, and a field name in another case', async () => {
    const env = baseEnv(sbEnv());
    const mark = sb.requests.length;
    const r = await runInProcess(
      ['prospects', 'create', '--attr', 'leadsourcedetail=referral', '--attr', 'firstname=Zed', '-o', 'json'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const post = received(sb, mark, 'prospects').find((q) => q.method === 'POST')!;
    expect(JSON.parse(post.body).data.attributes).toEqual({ custom1: 'Referral', firstName: 'Zed' });
  });

  it('--filter and --sort take field names in another case', async () => {
    const mark = sb.requests.length;
    const r = await runInProcess(
      ['prospects', 'list', '--filter', 'FirstName=Lea', '--sort', '-CreatedAt', '-o', 'json'],
      baseEnv(sbEnv()),
    );
    expect(r.code, r.stderr).toBe(0);
    const q = new URLSearchParams(lists(mark)[0]!.query.raw);
    expect(q.get('filter[firstName]')).toBe('Lea');
    expect(q.get('sort')).toBe('-createdAt');
  });
});

describe('unknown names and --columns with JSON', () => {
  it('--columns with a name that is no field is a usage error in every format; the list is never asked for', async () => {
    for (const format of ['csv', 'json', 'ndjson', 'table']) {
      const mark = sb.requests.length;
      const r = await runInProcess(['prospects', 'list', '--columns', 'id,nosuchfield', '-o', format], baseEnv(sbEnv()));
      expect(r.code, `${format}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/--columns: prospect has no field "nosuchfield"/);
      expect(lists(mark)).toEqual([]);
    }
  });

  it('--columns narrows JSON and NDJSON output', async () => {
    const json = await runInProcess(['prospects', 'list', '--filter', `id=${id}`, '--columns', 'id,firstName'], baseEnv(sbEnv()));
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([{ id, firstName: 'Lea' }]);
    const nd = await runInProcess(
      ['prospects', 'list', '--filter', `id=${id}`, '--columns', 'firstName', '-o', 'ndjson'],
      baseEnv(sbEnv()),
    );
    expect(nd.stdout).toBe('{"firstName":"Lea"}\n');
  });

  it('--fields id,… is sent without id (the API refuses it), as --json id works', async () => {
    const mark = sb.requests.length;
    const r = await runInProcess(['prospects', 'list', '--filter', `id=${id}`, '--fields', 'id,firstName', '-o', 'json'], baseEnv(sbEnv()));
    expect(r.code, r.stderr).toBe(0);
    expect(new URLSearchParams(lists(mark)[0]!.query.raw).get('fields[prospect]')).toBe('firstName');
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ id, firstName: 'Lea' });
  });
});
