/**
 * `svc api -i` (`--include`), as `gh api -i` and `curl -i`: each answer's status line and headers
 * on stdout before its body, against a sandbox over HTTP, in process. An error's headers come
 * first too, its message on stderr with the exit code it has without -i; the token never shows.
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
    // The answer's body after its headers, as without -i (test/e2e/api-gh-ways.test.ts).
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
