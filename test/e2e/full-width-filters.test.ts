/**
 * Numbers typed full-width in `--filter` (a Japanese IME's `８５`, `１..５`) are read as their ASCII
 * forms and sent so, as `--attr` reads them (registry/formats.ts asciiForms): a Lead Score filter
 * of `８５` was sent as typed and listed nothing (exit 0) after `--attr "Lead Score=８５"` had
 * stored 85, and `engagedScore=１..５` passed svc's check and was refused by the service (exit 1),
 * a trial. In process, against the sandbox over HTTP, whose org labels prospect custom2 "Lead
 * Score", a numerical field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  const made = await sandboxWithEnv();
  sb = made.sb;
  env = made.env();
  expect((await svcInProcess(['schema', 'pull'], { env })).code).toBe(0);
  const r = await svcInProcess(['prospects', 'update', '7', '--attr', 'Lead Score=８５'], { env });
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await sb?.close();
});

/** The ids a filter lists, and the decoded query strings of the /prospects GETs it caused. */
async function listed(args: string[]) {
  const mark = sb.requests.length;
  const r = await svcInProcess(['prospects', 'list', ...args, '--all', '-o', 'json', '--query', '[].id'], { env });
  const sent = received(sb, mark, 'prospects').map((q) => decodeURIComponent(q.query.raw));
  return { ...r, ids: r.code === 0 ? (JSON.parse(r.stdout) as number[]) : [], sent };
}

describe('a custom field of numbers', () => {
  it('"Lead Score=８５" finds the record --attr stored as 85, sent as 85 (by label or by name)', async () => {
    for (const filter of ['Lead Score=８５', 'custom2=８５', 'Lead Score=85']) {
      const r = await listed(['--filter', filter]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.sent[0]).toContain('filter[custom2]=85&');
      expect(r.ids).toContain(7);
    }
  });

  it('a full-width comma is a list, as an ASCII one', async () => {
    const r = await listed(['--filter', 'Lead Score=８５，１０１']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain('filter[custom2]=85,101&');
    expect(r.ids).toContain(7);
  });

  it('a text custom field keeps its full-width characters', async () => {
    const r = await listed(['--filter', 'Calendar Link=ＡＢＣ']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain('filter[custom3]=ＡＢＣ&');
  });
});

describe('a number field', () => {
  it('engagedScore=１..５ is sent as 1..5 and lists what engagedScore=1..5 lists', async () => {
    const ascii = await listed(['--filter', 'engagedScore=1..5']);
    expect(ascii.code, ascii.stderr).toBe(0);
    expect(ascii.ids.length).toBeGreaterThan(0);
    const wide = await listed(['--filter', 'engagedScore=１..５']);
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.sent[0]).toContain('filter[engagedScore]=1..5&');
    expect(wide.ids).toEqual(ascii.ids);
  });

  it.each([
    ['engagedScore=１．．５', 'filter[engagedScore]=1..5&'],
    ['engagedScore=．．５', 'filter[engagedScore]=neginf..5&'],
    ['engagedScore=－１．．', 'filter[engagedScore]=-1..inf&'],
    ['engagedScore=２．５', 'filter[engagedScore]=2.5&'],
  ])('%s: full-width periods, minus and open ends read as ASCII ones', async (filter, sent) => {
    const r = await listed(['--filter', filter]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain(sent);
  });

  it('the new filter syntax sends the same bounds', async () => {
    const r = await listed(['--new-filter-syntax', '--filter', 'engagedScore=１..５']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent[0]).toContain('filter[engagedScore][gte]=1&filter[engagedScore][lte]=5&');
  });

  it.each([
    ['engagedScore=１..x', /"x" is not a number \(engagedScore is a number\)/],
    ['engagedScore=１．．ｘ', /"x" is not a number/],
    ['engagedScore=abc', /"abc" is not a number/],
    ['engagedScore=５..１', /the range starts \(5\) after it ends \(1\)/],
  ])('%s is refused before anything is sent (exit 2)', async (filter, message) => {
    const r = await listed(['--filter', filter]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.sent).toEqual([]);
  });
});

it('a date typed full-width is refused, as --attr refuses it (dates are not read as ASCII)', async () => {
  const r = await listed(['--filter', 'createdAt=２０２６-１１-３０']);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/"２０２６-１１-３０" is not a valid date-time on createdAt/);
  expect(r.sent).toEqual([]);
});

describe('a comparison typed as a filter (a trial: read as equality, exit 0)', () => {
  it('>=, >, <=, < and != are refused with the filter meant, before the loose name match drops them; nothing is sent', async () => {
    const cases: [string, string][] = [
      ['engagedScore>=5', 'a range from 5 is engagedScore=5..'],
      ['engagedScore > 5', 'a range from 5 is engagedScore=5..'],
      ['Lead Score<=50', 'a range up to 50 is Lead Score=..50'],
      ['id<25', 'a range up to 25 is id=..25'],
      ['engagedScore!=5', 'there is no "not equal"'],
      ['title!=CEO', 'there is no "not equal"'],
    ];
    for (const [filter, fix] of cases) {
      const r = await listed(['--filter', filter]);
      expect(r.code, filter).toBe(2);
      expect(r.stderr).toContain(`error: bad filter "${filter}": `);
      expect(r.stderr).toContain(fix);
      expect(r.sent).toEqual([]);
    }
    // A value may hold them: only what comes before the first "=" is a comparison.
    const ok = await listed(['--filter', 'title=<none>!']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.sent[0]).toContain('filter[title]=<none>!&');
  });
});
