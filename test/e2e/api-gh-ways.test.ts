/**
 * `svc api` as a `gh api` and `curl` user writes it (trials): `-i` prints each answer's status
 * line and headers before its body (an error's too, its message on stderr with the exit code it
 * has without -i; the token never shows); an error's answer on stdout for `| jq`, one resource
 * as an object, a table with the type's columns, the method left out or given with -X, a body on
 * a GET refused, and gh's other flags (--jq, -H, -f) refused with svc's way. In process, against
 * a sandbox over HTTP.
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

/** The header blocks of `out`: each status line and its headers, by name. */
function blocks(out: string): { status: string; headers: Map<string, string>; rest: string }[] {
  const found: { status: string; headers: Map<string, string>; rest: string }[] = [];
  for (const part of out.split(/^(?=HTTP\/1\.1 )/m).filter(Boolean)) {
    const end = part.indexOf('\n\n');
    const [status, ...lines] = part.slice(0, end).split('\n');
    const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)] as const));
    found.push({ status: status!, headers, rest: part.slice(end + 2) });
  }
  return found;
}

describe.concurrent('svc api -i', () => {
  it('prints the status line and headers, a blank line, then the document as sent', async () => {
    const r = await svc(['-i', 'GET', '/prospects?page[limit]=2']);
    expect(r.code, r.stderr).toBe(0);
    const [b] = blocks(r.stdout);
    expect(b!.status).toBe('HTTP/1.1 200 OK');
    expect(b!.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(Number(b!.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
    expect(b!.headers.get('x-ratelimit-limit')).toBe('10000');
    expect(JSON.parse(b!.rest).data).toHaveLength(2);
    // Without -i, the same document alone.
    const plain = await svc(['GET', '/prospects?page[limit]=2']);
    expect(plain.stdout).toBe(b!.rest);
  });

  it('HEAD: the headers are the answer', async () => {
    const r = await svc(['--include', 'HEAD', '/prospects']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 200 OK\n(?:[a-z-]+: .*\n)+\n$/);
  });

  it('a 404: its headers and body on stdout, the error on stderr, the exit code as without -i', async () => {
    const r = await svc(['-i', 'GET', '/prospects/999999']);
    const without = await svc(['GET', '/prospects/999999']);
    expect(r.code).toBe(without.code);
    expect(r.code).not.toBe(0);
    const [b] = blocks(r.stdout);
    expect(b!.status).toBe('HTTP/1.1 404 Not Found');
    // The answer's body after its headers, as without -i (the error's answer, below).
    expect(JSON.parse(b!.rest).errors[0].id).toBe('resourceNotFound');
    expect(b!.rest).toBe(without.stdout);
    expect(r.stderr).toBe(without.stderr);
  });

  it('a create: 201 Created and where the record is', async () => {
    const body = JSON.stringify({ data: { type: 'account', attributes: { name: 'Include Test Ltd' } } });
    const r = await svc(['-i', 'POST', '/accounts', '-d', body]);
    expect(r.code, r.stderr).toBe(0);
    const [b] = blocks(r.stdout);
    expect(b!.status).toBe('HTTP/1.1 201 Created');
    const id = JSON.parse(b!.rest).data.id;
    expect(b!.headers.get('location') ?? '').toMatch(new RegExp(`/accounts/${id}$`));
  });

  it('--paginate: a block before each page', async () => {
    const r = await svc(['-i', '--paginate', 'GET', '/prospects?page[limit]=2']);
    expect(r.code, r.stderr).toBe(0);
    const pages = blocks(r.stdout);
    // 5 prospects, 2 a page.
    expect(pages.map((p) => p.status)).toEqual(Array(3).fill('HTTP/1.1 200 OK'));
    expect(pages.flatMap((p) => JSON.parse(p.rest).data.map((d: { id: number }) => d.id))).toEqual([1, 2, 3, 4, 5]);
  });

  it('--paginate with -o FORMAT: refused, exit 2, nothing sent', async () => {
    const r = await svc(['-i', '--paginate', '-o', 'csv', 'GET', '/mailboxes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --include with --paginate prints each page as sent, not -o csv\nhint: drop -o to see every page with its headers, or drop --include\n$/,
    );
    // The only test here that asks for mailboxes.
    expect(sb.requests.filter((q) => q.path.startsWith('/api/v2/mailboxes'))).toEqual([]);
  });

  it('one page with -o: the block, then the records in that format', async () => {
    const r = await svc(['-i', '-o', 'csv', 'GET', '/prospects?page[limit]=2']);
    expect(r.code, r.stderr).toBe(0);
    const [b] = blocks(r.stdout);
    const lines = b!.rest.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id,/);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['1', '2']);
  });

  it('never shows the token', async () => {
    const r = await svc(['-i', 'GET', '/users?page[limit]=1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(sb.token);
    expect(r.stdout).not.toMatch(/authorization/i);
  });
});
