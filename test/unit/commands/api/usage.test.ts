/** `svc api` before anything is sent, in-process: the token never goes to another host. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUnsent, UNSENT_TOKEN, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

describe('svc api', () => {
  it('refuses an absolute URL to another host (exit 2, nothing sent)', async () => {
    const r = await server.run(['api', 'GET', 'https://evil.example/prospects']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to send the token/);
    expect(r.stderr).not.toContain(UNSENT_TOKEN);
    expect(r.sent).toEqual([]);
  });

  it('an unknown method names the ones it takes, as its help does', async () => {
    const r = await server.run(['api', 'FETCH', '/prospects']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: unknown method "FETCH" (use GET, POST, PATCH, PUT, DELETE or HEAD)\n');
    const help = await server.run(['api', '--help']);
    expect(help.stdout).toContain('GET, POST, PATCH, PUT, DELETE or HEAD');
    expect(r.sent).toEqual([]);
  });

  it('--dry-run on a read prints the request and sends nothing, as on a write (api GET, get)', async () => {
    // Reads were sent and answered under --dry-run (a trial).
    const api = await server.run(['api', 'GET', '/prospects/1', '--dry-run']);
    expect(api.code, api.stderr).toBe(0);
    expect(api.stdout).toBe(`GET ${server.baseUrl}/prospects/1\n`);
    const paged = await server.run(['api', 'GET', '/prospects', '--paginate', '--dry-run']);
    expect(paged.stdout).toBe(`GET ${server.baseUrl}/prospects\n(the first page; links.next would be followed)\n`);
    const get = await server.run(['prospects', 'get', '7', '--include', 'account', '--dry-run']);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toBe(`GET ${server.baseUrl}/prospects/7?include=account\n`);
    expect([...api.sent, ...paged.sent, ...get.sent]).toEqual([]);
  });
});
