/**
 * `svc runs undo` of a run that created records deletes them, and deletes are asked as `delete`
 * asks: on a terminal (default no), and off a terminal refused without --yes, exit 2, nothing
 * written, no journal or record started. A new user's trial: `runs undo RUN </dev/null` of a
 * 3-prospect import deleted all three unasked, exit 0. Undos that only set fields back or
 * re-create are not asked (as `update` is not); `--plan` and `--dry-run` never are. In process,
 * over HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runsDir } from '../../src/bulk/run/run-record.js';
import { undoHandler } from '../../src/commands/runs/undo.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { start, type Client } from '../helpers/sandbox.js';
import { terminalContext } from '../helpers/terminal-context.js';

let c: Client;
let env: NodeJS.ProcessEnv;
let dir: string;
beforeAll(async () => {
  c = await start({ seed: 5 });
  dir = tempDir('svc-undo-asks-');
  env = baseEnv({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });
});
afterAll(() => c.sb.close());

/** stdin, stdout and stderr are not terminals (`</dev/null` in a script). */
const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 30_000 });
const runsFiles = () => fs.readdirSync(runsDir(path.join(dir, 'data'))).sort();
const writesSince = (n: number) => c.sb.requests.slice(n).filter((r) => r.method !== 'GET');
const exists = async (id: string) => (await c.get(`/prospects/${id}`)).status === 200;

/** Three prospects made by a bulk create: the run's id and theirs. */
async function createThree(tag: string): Promise<{ run: string; ids: string[] }> {
  const file = path.join(dir, `${tag}.ndjson`);
  fs.writeFileSync(file, [1, 2, 3].map((i) => JSON.stringify({ firstName: tag, lastName: `L${i}` })).join('\n') + '\n');
  const made = await svc(['prospects', 'create', '--input', file]);
  expect(made.code, made.stderr).toBe(0);
  const run = /recorded as run (\S+):/.exec(made.stderr)![1]!;
  const ids = ((await c.get(`/prospects?filter[firstName]=${tag}`)).body.data as { id: string }[]).map((d) => String(d.id));
  expect(ids).toHaveLength(3);
  return { run, ids };
}

it('off a terminal, an undo that deletes is refused without --yes (exit 2, nothing written); --plan and --dry-run do not ask; --yes goes on', async () => {
  const { run, ids } = await createThree('Three');
  const files = runsFiles();
  const mark = c.sb.requests.length;
  const r = await svc(['runs', 'undo', run]);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/^error: refusing to delete 3 record\(s\) the run created without --yes \(not an interactive terminal\)$/m);
  expect(r.stderr).toContain(`hint: nothing was written; see them with svc runs undo ${run} --plan, then run again with --yes\n`);
  expect(writesSince(mark)).toEqual([]);
  for (const id of ids) expect(await exists(id), `prospect ${id}`).toBe(true);
  // No undo journal, no undo record: the run is not "partly undone" by a refusal.
  expect(runsFiles()).toEqual(files);

  for (const look of [['--plan'], ['--dry-run']]) {
    const plan = await svc(['runs', 'undo', run, ...look, '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).bill.deletes).toBe(3);
  }
  expect(writesSince(mark)).toEqual([]);
  expect(runsFiles()).toEqual(files);

  const yes = await svc(['runs', 'undo', run, '--yes']);
  expect(yes.code, yes.stderr).toBe(0);
  expect(yes.stderr).toMatch(/: 3 deleted \(3 of 3 rows/);
  for (const id of ids) expect(await exists(id), `prospect ${id}`).toBe(false);

  // Its undo re-creates them: not asked. The undo of that deletes again: asked.
  const undoId = /recorded as run (\S+):/.exec(yes.stderr)![1]!;
  const redo = await svc(['runs', 'undo', undoId]);
  expect(redo.code, redo.stderr).toBe(0);
  expect(redo.stderr).toMatch(/: 3 re-created \(3 of 3 rows/);
  const redoId = /recorded as run (\S+):/.exec(redo.stderr)![1]!;
  const again = await svc(['runs', 'undo', redoId]);
  expect(again.code).toBe(2);
  expect(again.stderr).toMatch(/^error: refusing to delete 3 record\(s\) the run created without --yes/m);
});

it('an undo that only sets fields back is not asked, off a terminal too', async () => {
  const [a, b] = ((await c.get('/prospects?page[limit]=2')).body.data as { id: string }[]).map((d) => String(d.id));
  const titles = async () => Promise.all([a, b].map(async (id) => (await c.get(`/prospects/${id}`)).body.data.attributes.title));
  const was = await titles();
  const file = path.join(dir, 'titles.csv');
  fs.writeFileSync(file, `id,title\n${a},Wrong One\n${b},Wrong Two\n`);
  const up = await svc(['prospects', 'update', '--input', file]);
  expect(up.code, up.stderr).toBe(0);
  const undo = await svc(['runs', 'undo', /recorded as run (\S+):/.exec(up.stderr)![1]!]);
  expect(undo.code, undo.stderr).toBe(0);
  expect(undo.stderr).not.toContain('--yes');
  expect(await titles()).toEqual(was);
});

it('on a terminal it asks first, default no: answered no, nothing deleted and no journal started; yes deletes', async () => {
  const { run, ids } = await createThree('Asked');
  const asked: [string, boolean | undefined][] = [];
  const undo = async (answer: boolean) => {
    const { ctx, app } = terminalContext(env, {
      confirm: (message, def) => {
        asked.push([message, def]);
        return answer;
      },
    });
    try {
      await undoHandler(ctx, run, {});
    } finally {
      await ctx.close();
    }
    return app.exitCode;
  };
  const files = runsFiles();
  const mark = c.sb.requests.length;
  expect(await undo(false)).toBe(0);
  expect(asked).toEqual([[`Undo run ${run}, deleting 3 record(s) it created?`, false]]);
  expect(writesSince(mark)).toEqual([]);
  for (const id of ids) expect(await exists(id), `prospect ${id}`).toBe(true);
  expect(runsFiles()).toEqual(files);

  expect(await undo(true)).toBe(0);
  expect(asked).toHaveLength(2);
  for (const id of ids) expect(await exists(id), `prospect ${id}`).toBe(false);
});
