/**
 * `svc api` as a `gh api` and `curl` user writes it (a trial of one): an error's answer on
 * stdout for `| jq`, one resource as an object, a table with the type's columns, the method left
 * out or given with -X, a body on a GET refused, and gh's other flags (--jq, -H, -f) refused with
 * svc's way. In process, against a sandbox over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 5 }));
});
afterAll(() => sb.close());

const svc = (args: string[]) => svcInProcess(['api', ...args], { env: env() });
/** Requests the sandbox received whose path starts with `prefix` (each test asks for its own type). */
const sent = (prefix: string) => sb.requests.filter((q) => q.path.startsWith(`/api/v2/${prefix}`));

describe.concurrent('svc api, the gh way', () => {
  it('an error: the answer on stdout, the error on stderr, exit 1', async () => {
    const r = await svc(['GET', '/prospects/999999']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      errors: [{ id: 'resourceNotFound', title: 'Resource Not Found', detail: "Could not find 'prospect' with ID '999999'." }],
    });
    expect(r.stderr).toBe("error: Resource Not Found: Could not find 'prospect' with ID '999999'. (id resourceNotFound)\n");
    // --query picks from it; -o FORMAT prints records, of which an error has none.
    const picked = await svc(['GET', '/prospects/999999', '--query', 'errors[0].id', '-o', 'raw']);
    expect([picked.code, picked.stdout]).toEqual([1, 'resourceNotFound\n']);
    const asRecords = await svc(['GET', '/prospects/999999', '-o', 'csv']);
    expect([asRecords.code, asRecords.stdout]).toEqual([1, '']);
  });

  it('one resource with -o json: an object, as get prints it', async () => {
    const r = await svc(['GET', '/prospects/1', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Array.isArray(out)).toBe(false);
    expect(out).toMatchObject({ id: 1, type: 'prospect' });
    const titled = await svc(['GET', '/prospects/1', '-o', 'json', '--query', 'id']);
    expect(titled.stdout).toBe('1\n');
  });

  it('-o table: the type’s columns, not only id', async () => {
    const r = await svc(['GET', '/accounts?page[limit]=2', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[1]).toMatch(/│ id\s+│ name\s+│ domain/);
    const paged = await svc(['GET', '/accounts?page[limit]=2', '--paginate', '-o', 'table']);
    expect(paged.stdout.split('\n')[1]).toMatch(/│ id\s+│ name\s+│ domain/);
  });

  it('the method left out: GET, or POST with -d; -X names it', async () => {
    const got = await svc(['/stages?page[limit]=1']);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout).data).toHaveLength(1);
    // Without its slash too, as gh api takes `repos/…`.
    const bare = await svc(['stages?page[limit]=1']);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stdout).toBe(got.stdout);
    const body = JSON.stringify({ data: { type: 'persona', attributes: { name: 'Method Left Out' } } });
    const made = await svc(['/personas', '-d', body]);
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).data.id;
    expect(sent('personas').filter((q) => q.method === 'POST')).toHaveLength(1);
    const head = await svc(['-X', 'HEAD', `/personas/${id}`]);
    expect(head.code, head.stderr).toBe(0);
    expect(sent('personas').filter((q) => q.method === 'HEAD')).toHaveLength(1);
  });

  it.each([
    [['POST'], /^error: missing path after POST\nhint: svc api POST \/prospects\n$/],
    [[], /^error: missing path\nhint: svc api GET \/prospects \(svc api --help\)\n$/],
    [
      ['GET', '/sequences', '-X', 'POST'],
      /^error: the method is given twice: GET and -X POST\nhint: svc api -X POST \/sequences, or svc api GET \/sequences\n$/,
    ],
    [['GET', '/sequences/1', '-d', '{}'], /^error: -d sends a body, which a GET does not have\nhint: put parameters in the path's query/],
    [['--jq', '.data', '/sequences'], /^error: svc api has no --jq\nhint: svc reads JMESPath with --query: /],
    [['-H', 'Accept: text/csv', '/sequences'], /^error: svc api has no -H\nhint: svc api sends the headers the API needs itself/],
    [['-f', 'title=CEO', '/sequences'], /^error: svc api has no -f\nhint: put parameters in the path's query/],
  ])('%j: exit 2 naming the way, nothing sent', async (args, message) => {
    const r = await svc(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(sent('sequences')).toEqual([]);
  });
});
