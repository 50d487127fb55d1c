/**
 * `--query <JMESPath>` and `--json a,b,c` against a real sandbox: the whole result with -o json,
 * per record with -o ndjson, raw strings with -o raw, on list/get/create/api/resources/schema;
 * a bad expression is a usage error with its column and sends nothing; `--json` followed by a
 * command word or an id still means `-o json`; the JMESPath code is not on the start-up path.
 * The other usage errors of --query and --json are checked in-process in
 * test/unit/commands/resource-commands/list-usage.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json, ROOT } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { startSvc } from '../helpers/long-running.js';
import { signBody } from '../../src/webhooks/signature.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 40 }));
});
afterAll(() => sb.close());

async function ok(args: string[]) {
  const r = await svcInProcess(args, { env: env() });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

describe('--query', () => {
  it('applies to the whole result with -o json (the default with --query)', async () => {
    const all = json<{ id: number; title: string }[]>(await ok(['prospects', 'list', '--limit', '5', '-o', 'json']));
    const r = await ok(['prospects', 'list', '--limit', '5', '--query', '[].{id: id, t: title}']);
    expect(json(r)).toEqual(all.map((p) => ({ id: p.id, t: p.title })));
    expect(json(await ok(['prospects', 'list', '--limit', '5', '--query', 'length(@)']))).toBe(5);
  });

  it('applies per record with -o ndjson, one line each', async () => {
    const all = json<{ firstName: string }[]>(await ok(['prospects', 'list', '--limit', '4', '-o', 'json']));
    const r = await ok(['prospects', 'list', '--limit', '4', '-o', 'ndjson', '--query', 'firstName']);
    expect(r.stdout).toBe(all.map((p) => `${JSON.stringify(p.firstName)}\n`).join(''));
  });

  it('prints strings raw with -o raw, one array element per line', async () => {
    const all = json<{ firstName: string }[]>(await ok(['prospects', 'list', '--limit', '3', '-o', 'json']));
    const r = await ok(['prospects', 'list', '--limit', '3', '-o', 'raw', '--query', '[].firstName']);
    expect(r.stdout).toBe(all.map((p) => `${p.firstName}\n`).join(''));
    const one = await ok(['prospects', 'get', '1', '-o', 'raw', '--query', 'firstName']);
    expect(one.stdout).toBe(`${all[0]!.firstName}\n`);
  });

  it('get and create: the one record', async () => {
    expect(json(await ok(['prospects', 'get', '2', '--query', '{id: id, type: type}']))).toEqual({ id: 2, type: 'prospect' });
    const made = await ok(['accounts', 'create', '--attr', 'name=Query Test Co', '--query', 'name', '-o', 'raw']);
    expect(made.stdout).toBe('Query Test Co\n');
  });

  it('api: applies to the document as the server sent it (per page with --paginate); any other -o to the records', async () => {
    const r = await ok(['api', 'GET', '/prospects/1', '--query', 'data.type', '-o', 'raw']);
    expect(r.stdout).toBe('prospect\n');
    const pages = await ok(['api', 'GET', '/prospects?page[limit]=20', '--paginate', '--query', 'length(data)', '-o', 'raw']);
    const counts = pages.stdout.trim().split('\n').map(Number);
    expect(counts.length).toBeGreaterThan(1);
    expect(counts.every((n) => n > 0 && n <= 20)).toBe(true);
    // -o ndjson's unit is the record: the query applies to each, one compact line each, as for
    // list (it was applied to each page, printed indented: `{"id": null}` a page, a trial).
    const lines = (await ok(['api', 'GET', '/prospects?page[limit]=20', '--paginate', '-o', 'ndjson', '--query', '{id: id}'])).stdout
      .trim()
      .split('\n');
    expect(lines.length).toBe(counts.reduce((a, b) => a + b, 0));
    expect(lines.every((l) => /^\{"id":\d+\}$/.test(l))).toBe(true);
    // Any -o but raw means records, one request or many (a trial): -o ndjson --query on one page
    // gave an indented document of nulls, -o csv the JSON as sent, and --paginate -o json --query
    // ran on each page's document.
    const one = await ok(['api', 'GET', '/prospects?page[limit]=2&sort=id', '-o', 'ndjson', '--query', '{id: id}']);
    expect(one.stdout).toBe('{"id":1}\n{"id":2}\n');
    const csv = await ok(['api', 'GET', '/prospects?page[limit]=2&sort=id', '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toMatch(/^id,type,/);
    expect(csv.stdout.trim().split('\n')).toHaveLength(3);
    // --query alone (it implies -o json) still means the document (it printed null, a review).
    expect((await ok(['api', 'GET', '/prospects/1', '--query', 'data.type'])).stdout).toBe('"prospect"\n');
    const perPage = await ok(['api', 'GET', '/prospects?page[limit]=20', '--paginate', '--query', 'length(data)']);
    expect(perPage.stdout.trim().split('\n').map(Number)).toEqual(counts);
    const all = await ok(['api', 'GET', '/prospects?page[limit]=20', '--paginate', '-o', 'json', '--query', 'length(@)']);
    expect(all.stdout).toBe(`${counts.reduce((a, b) => a + b, 0)}\n`);
    const fields = await svcInProcess(['api', 'GET', '/prospects?page[limit]=2', '--json', 'id'], { env: env() });
    expect(fields.code).toBe(2);
    expect(fields.stderr).toMatch(
      /^error: --json FIELDS picks fields of records; svc api prints the documents as sent\nhint: pick with --query/,
    );
  });

  it('list -o csv of no record prints the header a page of records would (a 0-byte file stopped CSV readers)', async () => {
    const some = await ok(['prospects', 'list', '--limit', '2', '-o', 'csv']);
    const none = await ok(['prospects', 'list', '--filter', 'title=No Such Title 7f3a', '-o', 'csv']);
    expect(none.stdout).toBe(some.stdout.split('\n')[0] + '\n');
    const accounts = await ok(['accounts', 'list', '--limit', '1', '-o', 'csv']);
    const noAccounts = await ok(['accounts', 'list', '--filter', 'name=No Such Account 7f3a', '-o', 'csv']);
    expect(noAccounts.stdout).toBe(accounts.stdout.split('\n')[0] + '\n');
  });

  it('list --count --limit 0 and delete: their JSON results too', async () => {
    const count = await ok(['prospects', 'list', '--count', '--limit', '0', '--query', 'count', '-o', 'raw']);
    expect(Number(count.stdout)).toBeGreaterThan(10);
    const made = json<{ id: number }>(await ok(['accounts', 'create', '--attr', 'name=Short Lived', '-o', 'json']));
    const del = await ok(['accounts', 'delete', String(made.id), '--yes', '--query', 'deleted']);
    expect(json(del)).toBe(true);
  });

  it('resources and schema show', async () => {
    const cmds = json<string[]>(await ok(['resources', '--query', '[].command']));
    expect(cmds).toContain('prospects');
    const names = await ok(['schema', 'show', 'prospect', '-o', 'raw', '--query', "[?name=='title'].name"]);
    expect(names.stdout).toBe('title\n');
  });

  it('webhooks listen: applies to each delivery as it arrives', async () => {
    const l = startSvc(
      ['webhooks', 'listen', '--port', '0', '--secret', 'q', '-o', 'raw', '--query', "join(' ', [event, attributes.title])"],
      { env: env() },
    );
    try {
      const [, url] = await l.waitFor('stderr', /Ready: listening on (http:\/\/127\.0\.0\.1:\d+\/)/);
      for (const title of ['CEO', 'CFO']) {
        const body = JSON.stringify({
          data: { type: 'prospect', id: 7, attributes: { title } },
          meta: { deliveredAt: '2025-01-01T00:00:00.000Z', eventName: 'prospect.updated' },
        });
        const res = await fetch(url!, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/vnd.api+json', 'Service-Webhook-Signature': signBody('q', body) },
        });
        expect(res.status).toBe(200);
      }
      await l.waitFor('stdout', /CFO\n/);
      expect(l.stdout()).toBe('prospect.updated CEO\nprospect.updated CFO\n');
    } finally {
      expect(await l.stop()).toBe(0);
    }
  });

  it('one-object results: svc sandbox prints just what the query picks', async () => {
    const run = startSvc(['sandbox', '--port', '0', '--seed', '2', '--query', 'baseUrl', '-o', 'raw'], { env: env() });
    try {
      const [line] = await run.waitFor('stdout', /^http:\/\/127\.0\.0\.1:\d+\/api\/v2\n/);
      expect(run.stdout()).toBe(line);
    } finally {
      expect(await run.stop('SIGTERM')).toBe(0);
    }
  });

  it('a bad expression is a usage error naming the column; nothing is sent', async () => {
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--query', "[?title=='CEO']].id"], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: --query: syntax error at column 16: /);
    expect(r.stderr).toContain("hint: [?title=='CEO']].id\nhint:                ^");
    expect(sb.requests.length).toBe(mark);
  });
});

describe('--json a,b,c', () => {
  it('keeps those fields, in that order, and asks for them as a sparse fieldset', async () => {
    const mark = sb.requests.length;
    const rows = json<Record<string, unknown>[]>(await ok(['prospects', 'list', '--limit', '3', '--json', 'id,title,account']));
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(Object.keys(r)).toEqual(['id', 'title', 'account']);
    const [q] = received(sb, mark, 'prospects');
    expect(decodeURIComponent(q!.query.raw)).toContain('fields[prospect]=title,account');
  });

  it('a rel.attr name sends no fieldset and includes the relationship', async () => {
    const mark = sb.requests.length;
    const r = json<Record<string, unknown>>(await ok(['prospects', 'get', '3', '--json=id,account.name,title']));
    expect(Object.keys(r)).toEqual(['id', 'account.name', 'title']);
    expect(typeof r['account.name']).toBe('string');
    const [q] = received(sb, mark, 'prospects');
    expect(decodeURIComponent(q!.query.raw)).toBe('include=account');
  });

  it('with --query: fields first, then the expression', async () => {
    const r = await ok(['prospects', 'list', '--limit', '2', '--json', 'id,title', '--query', '[0]']);
    expect(Object.keys(json<object>(r))).toEqual(['id', 'title']);
  });

  it('bare --json before a command or an id is still -o json', async () => {
    const list = await ok(['--json', 'prospects', 'list', '--limit', '1']);
    expect(json<unknown[]>(list)).toHaveLength(1);
    const get = await ok(['prospects', 'get', '--json', '4']);
    expect(json<{ id: number }>(get).id).toBe(4);
    const last = await ok(['prospects', 'get', '4', '--json']);
    expect(Object.keys(json<object>(last)).length).toBeGreaterThan(5);
  });
});

describe('start-up', () => {
  it('the JMESPath code is not in the bundle that every command loads', () => {
    // What every command loads: dist/main.js, the run-cli chunk it imports, and their static
    // imports followed through the chunks.
    const dist = path.join(ROOT, 'dist');
    const seen = new Set<string>();
    const walk = (file: string, dynamic?: RegExp) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(file, 'utf8');
      const next = [...text.matchAll(/(?:^|[;}\s])import\s*(?:[\w${},\s*]+from\s*)?"(\.[^"]+)"/g)].map((m) => m[1]!);
      if (dynamic) next.push(...[...text.matchAll(/import\("(\.[^"]+)"\)/g)].map((m) => m[1]!).filter((p) => dynamic.test(p)));
      for (const p of next) walk(path.resolve(path.dirname(file), p));
    };
    walk(path.join(dist, 'main.js'), /run-cli-/);
    expect([...seen].some((f) => /run-cli-/.test(f))).toBe(true);
    expect(seen.size).toBeGreaterThan(4);
    const jmes = fs
      .readdirSync(path.join(dist, 'chunks'))
      .filter((f) => fs.readFileSync(path.join(dist, 'chunks', f), 'utf8').includes('TreeInterpreter'));
    expect(jmes.length).toBeGreaterThan(0);
    for (const f of jmes) expect(seen.has(path.join(dist, 'chunks', f))).toBe(false);
  });
});
