/**
 * The table and `get` on a terminal show a value's spaces as stored: an ideographic space (U+3000)
 * stays one, and so do a no-break space and two ASCII spaces, so that a title copied from the
 * screen into `--filter` finds its record (a trial: `営業部　部長` showed as `営業部 部長`, and
 * the filter with it found nothing). Line breaks and tabs still become one space (a record is one
 * row); controls and bidi overrides are still shown escaped. In process, against the sandbox.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { baseEnv } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 5 });
  sb = s.sb;
  env = baseEnv(s.env());
});
afterAll(() => sb?.close());

const onTerminal = (args: string[]) => runInProcess(args, env, { tty: true, columns: 200, timeoutMs: 30_000 });

/** Creates a prospect with this title; its id. */
async function withTitle(lastName: string, title: string): Promise<string> {
  const r = await svcInProcess(
    ['prospects', 'create', '--attr', 'firstName=Space', '--attr', `lastName=${lastName}`, '--attr', `title=${title}`, '-o', 'json'],
    {
      env,
    },
  );
  expect(r.code, r.stderr).toBe(0);
  return String(JSON.parse(r.stdout).id);
}

it('U+3000, a no-break space and two spaces stay in list and get; copied into --filter, the title finds the record', async () => {
  const titles = { Ideo: '営業部\u3000部長', Nbsp: 'Head\u00a0of Sales', Two: 'Head  of Sales' };
  const ids: Record<string, string> = {};
  for (const [last, title] of Object.entries(titles)) ids[last] = await withTitle(last, title);
  for (const [last, title] of Object.entries(titles)) {
    const list = await onTerminal(['prospects', 'list', '--filter', `lastName=${last}`, '--columns', 'id,title']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(` ${title} `);
    const get = await onTerminal(['prospects', 'get', ids[last]!]);
    expect(get.code, get.stderr).toBe(0);
    const line = get.stdout.split('\n').find((l) => /^\s*title\s/.test(l));
    expect(line, get.stdout).toBeDefined();
    // The value as shown, taken from the screen: it finds the record.
    const shown = line!.replace(/^\s*title\s+/, '').replace(/\s+$/, '');
    expect(shown).toBe(title);
    const found = await svcInProcess(['prospects', 'list', '--filter', `title=${shown}`, '--json', 'id'], { env });
    expect(JSON.parse(found.stdout)).toEqual([{ id: Number(ids[last]) }]);
  }
});

it('line breaks and tabs are still one space, and controls and bidi overrides still shown escaped', async () => {
  const id = await withTitle('Breaks', 'Line one\r\n\tline two\u2028three\u202eevil\x1b[31m');
  const get = await onTerminal(['prospects', 'get', id]);
  const line = get.stdout.split('\n').find((l) => /^\s*title\s/.test(l))!;
  expect(line).toContain('Line one line two three\\u202eevil\\e[31m');
  expect(get.stdout).not.toMatch(/[\u202e\x1b]/);
});
