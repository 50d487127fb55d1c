/**
 * `-o table` streams: the column widths come from the first page, its rows are on stdout while
 * the next page is still on its way, and a later, wider value is cut with `…` in those widths.
 * Widths are display widths: CJK and emoji sequences are not cut while there is room.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textWidth } from '../../src/output/terminal-text.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { spawnSvc, tempDir } from '../helpers/run-svc.js';
import { startTinyServer, type Received, type Responder } from '../helpers/tiny-server.js';

const FAMILY = '👨‍👩‍👧‍👦 family';
const TITLE = '営業部長 🚀';
let server: Awaited<ReturnType<typeof startTinyServer>>;
let base: string;
/** Whether the server answers the second page (else it holds it). */
let secondPage = false;

const prospect = (id: number, firstName: string, title: string | null) => ({
  type: 'prospect',
  id,
  attributes: { firstName, lastName: `L${id}`, title },
  relationships: {},
});

beforeAll(async () => {
  server = await startTinyServer((req: Received): ReturnType<Responder> => {
    const u = new URL(req.url, 'http://x');
    if (u.pathname !== '/api/v2/prospects') return { status: 404, body: '{"errors":[{"title":"Not found"}]}' };
    if (u.searchParams.get('page[offset]') === '1000') {
      if (!secondPage) return 'hang';
      return { status: 200, body: JSON.stringify({ data: [prospect(1001, 'W'.repeat(60), 'late')], links: {}, meta: {} }) };
    }
    const data = Array.from({ length: 1000 }, (_, i) => prospect(i + 1, `first${i + 1}`, i === 0 ? TITLE : i === 1 ? FAMILY : 'x'));
    return {
      status: 200,
      body: JSON.stringify({ data, links: { next: `${base}/prospects?page%5Blimit%5D=1000&page%5Boffset%5D=1000` }, meta: {} }),
    };
  });
  base = `${server.url}/api/v2`;
});
afterAll(async () => {
  await server.close();
});

const env = () => ({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: base, SVC_TOKEN: 'tok_test_abcdef123456' });
const args = ['prospects', 'list', '--all', '-o', 'table', '--columns', 'id,firstName,title'];

describe('table output', () => {
  it('writes the first page before the next one arrives', async () => {
    secondPage = false;
    const child = spawnSvc(args, { env: env() });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise((r) => child.on('close', r));
    const deadline = Date.now() + 20_000;
    while (!out.includes('│ 1000 ') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await exited;
    // Header and 1,000 rows on stdout, while the server still held the second page.
    expect(out).toContain('│ 1000 ');
    expect(out.split('\n').filter((l) => l.startsWith('│ ')).length).toBe(1001);
    expect(out).not.toContain('└');
  });

  it('keeps the first page widths: a later wider value is cut with …', async () => {
    secondPage = true;
    const r = await svcInProcess(args, { env: { ...env(), COLUMNS: '200' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(1 + 1 + 1001 + 1);
    const late = lines.find((l) => l.includes('│ 1001 '))!;
    expect(late).toBe('│ 1001 │ WWWWWWWW… │ late        │');
    // Every line of the table has the same display width: rows are aligned under the header.
    expect(new Set(lines.map(textWidth)).size).toBe(1);
  });

  it('measures display width: CJK and emoji sequences are whole when there is room', async () => {
    secondPage = true;
    const r = await svcInProcess(args, { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.find((l) => l.includes('│ 1 '))).toContain(`│ ${TITLE} │`);
    expect(lines.find((l) => l.includes('│ 2 '))).toContain(`│ ${FAMILY}   │`);
    expect(new Set(lines.map(textWidth)).size).toBe(1);
  });
});
