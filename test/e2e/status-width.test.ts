/**
 * On an 80-column terminal, svc's lines for people fit it, broken between words with their
 * continuation lines indented: the upsert's plan and bill, the `recorded as run …` line, `runs
 * show` (its header and its table), `runs undo` and its plan, `schema show`; with CJK values too.
 * A trial (an analyst on an 80-column terminal): lines of 146 to 234 columns wrapped mid-word.
 * Off a terminal every line stays whole, as scripts grep it. In process, against the sandbox
 * over HTTP; the undo through a terminal's Context (test/helpers/terminal-context.ts), which
 * reports no width: 80 then.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { undoHandler } from '../../src/commands/runs/undo.js';
import { pruneHandler } from '../../src/commands/runs/prune.js';
import { listHandler as runsListHandler } from '../../src/commands/runs/view.js';
import { showHandler as schemaShowHandler } from '../../src/commands/schema/show.js';
import type { Context } from '../../src/runtime/context.js';
import type { GlobalOptions } from '../../src/runtime/context.js';
import { defaultOrg } from '../../src/sandbox/data/org.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { textWidth } from '../../src/output/terminal-text.js';
import { runInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { terminalContext } from '../helpers/terminal-context.js';

let sb: TestSandbox;
let sbEnv: () => Record<string, string>;
/** E-mail addresses of two prospects of the sandbox, for rows that update. */
let known: string[];

beforeAll(async () => {
  ({ sb, env: sbEnv } = await sandboxWithEnv());
  const r = await svcInProcess(['prospects', 'list', '--limit', '2', '--json', 'emails'], { env: sbEnv() });
  known = (JSON.parse(r.stdout) as { emails: string[] }[]).map((p) => p.emails[0]!);
  expect(known).toHaveLength(2);
});
afterAll(async () => {
  await sb?.close();
});

const WIDTH = 80;

/** stdout and stderr are terminals 80 columns wide. */
const onTerminal = (args: string[], env: NodeJS.ProcessEnv) =>
  runInProcess(args, env, { tty: true, stderrTty: true, columns: WIDTH, timeoutMs: 30_000 });
const offTerminal = (args: string[], env: NodeJS.ProcessEnv) => runInProcess(args, env, { timeoutMs: 30_000 });

/**
 * The lines as they stay on the screen: each after its last carriage return, without the codes
 * that erase (the progress bar is redrawn in place, and erased before a line is written).
 */
function screen(text: string): string {
  return text
    .split('\n')
    .map((drawn) => drawn.slice(drawn.lastIndexOf('\r') + 1).replace(/\x1b\[\d*K/g, ''))
    .join('\n');
}

/**
 * Every line on the screen fits in 80 columns (wide characters two), unless it is one word or one
 * path alone (a path of the test's temporary folder, `temp 一時` with its space, may be longer:
 * never cut).
 */
function expectFits(text: string, what: string): void {
  for (const line of screen(text).replace(/\n$/, '').split('\n')) {
    if (/^\s*\S+$/.test(line) || /^\s*\/[^·]*\S(?: ·)?$/.test(line)) continue;
    expect(textWidth(line), `${what}: ${line}`).toBeLessThanOrEqual(WIDTH);
  }
}

/** An input file of new prospects (creates) and known ones with another title (updates). */
function upsertFile(dir: string, tag: string, first = 'Ada', title = 'Chief Revenue Officer of Everything Sold'): string {
  const file = path.join(dir, `${tag}.csv`);
  const rows = [
    'email,firstName,lastName,title',
    `${tag}-1@example.com,${first},Lovelace,${title}`,
    `${tag}-2@example.com,${first},Hopper,${title}`,
    ...known.map((e) => `${e},,,${title} (${tag})`),
  ];
  fs.writeFileSync(file, rows.join('\n') + '\n');
  return file;
}

const runId = (stderr: string) => /recorded as run (\S+):/.exec(stderr)?.[1];

/** What a handler prints on an 80-column terminal (test/helpers/terminal-context.ts): stdout, stderr. */
async function onTerminalContext(env: NodeJS.ProcessEnv, handler: (ctx: Context) => Promise<void>, globals: Partial<GlobalOptions> = {}) {
  const { ctx, app, stdout, stderr } = terminalContext(env, { confirm: () => false, globals });
  try {
    await handler(ctx);
  } finally {
    await ctx.close();
  }
  expect(app.exitCode, stderr()).toBe(0);
  return { stdout: stdout(), stderr: stderr() };
}

describe('on an 80-column terminal', () => {
  it('an upsert --plan with creates and updates: its rows and bill fit, broken between words', async () => {
    const env = baseEnv(sbEnv());
    const file = upsertFile(tempDir(), 'plan');
    const r = await onTerminal(['prospects', 'upsert', '--input', file, '--match', 'email', '--plan'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^row 1: create /m);
    expect(r.stdout).toMatch(/^row 3: update prospect /m);
    expect(r.stdout).toMatch(/^bill: 2 creates, 2 updates, /m);
    expectFits(r.stdout, 'plan');
    expectFits(r.stderr, 'plan (stderr)');
    // The bill goes on, indented, on the lines after.
    expect(r.stdout).toMatch(/^bill: [^\n]+\n {2}\S[^\n]*requests?/m);
    // Off a terminal the bill is one line, as before.
    const piped = await offTerminal(['prospects', 'upsert', '--input', file, '--match', 'email', '--plan'], env);
    expect(piped.stdout).toMatch(/^bill: 2 creates, 2 updates, 0 unchanged \(not sent\), [^\n]+; \d+ requests [^\n]+\n$/m);
  });

  it('an upsert: the summary and the `recorded as run` line fit, the way back whole on a line', async () => {
    const env = baseEnv(sbEnv());
    const file = upsertFile(tempDir(), 'run');
    const r = await onTerminal(['prospects', 'upsert', '--input', file, '--match', 'email'], env);
    expect(r.code, r.stderr).toBe(0);
    expectFits(r.stderr, 'upsert');
    const id = runId(r.stderr)!;
    expect(id).toBeDefined();
    expect(r.stderr).toContain(`\n  svc runs undo ${id} takes it back\n`);
    // Off a terminal the line is whole, as scripts grep it.
    const again = await offTerminal(['prospects', 'upsert', '--input', upsertFile(tempDir(), 'run2'), '--match', 'email'], env);
    const other = runId(again.stderr)!;
    expect(again.stderr).toContain(`recorded as run ${other}: svc runs show ${other} · svc runs undo ${other} takes it back\n`);
  });

  it('runs show: its header and its table fit, the values cut with …', async () => {
    const env = baseEnv(sbEnv());
    const made = await offTerminal(['prospects', 'upsert', '--input', upsertFile(tempDir(), 'show'), '--match', 'email'], env);
    expect(made.code, made.stderr).toBe(0);
    const id = runId(made.stderr)!;
    const show = await onTerminal(['runs', 'show', id], env);
    expect(show.code, show.stderr).toBe(0);
    expectFits(show.stderr, 'runs show (header)');
    expectFits(show.stdout, 'runs show (table)');
    expect(show.stderr).toMatch(new RegExp(`^run ${id}:`));
    expect(show.stdout).toMatch(/^ROW +OP +TYPE +ID +STATUS +BEFORE +AFTER$/m);
    // The values cut with … to fit, as runs list cuts its command lines.
    expect(show.stdout).toMatch(/^1 +create +prospect +\d+ +created +firstName="Ada" \S*…$/m);
    // Off a terminal: the header one line, the table's values whole.
    const piped = await offTerminal(['runs', 'show', id, '-o', 'table'], env);
    expect(piped.stderr).toMatch(new RegExp(`^run ${id}: svc prospects upsert [^\\n]+ · by [^\\n]+ · done\\n$`));
    expect(piped.stdout).toContain('title="Chief Revenue Officer of Everything Sold"');
  });

  it('runs show of a delete: the deleted record by its values, not its empty fields (a Paris trial: addedAt=null addressCity=null…)', async () => {
    const env = baseEnv(sbEnv());
    const made = await offTerminal(['prospects', 'create', '--attr', 'firstName=Zoë', '--attr', 'lastName=Ñúñez', '-o', 'json'], env);
    expect(made.code, made.stderr).toBe(0);
    const id = String((JSON.parse(made.stdout) as { id: number }).id);
    const del = await offTerminal(['prospects', 'delete', id, '--yes'], env);
    expect(del.code, del.stderr).toBe(0);
    const show = await onTerminal(['runs', 'show', runId(del.stderr)!], env);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(new RegExp(`^1 +delete +prospect +${id} +deleted +firstName="Zoë" lastName="Ñúñez"`, 'm'));
    // -o json keeps the whole before-image, nulls included.
    const whole = await offTerminal(['runs', 'show', runId(del.stderr)!, '-o', 'json'], env);
    expect(JSON.parse(whole.stdout)[0].before.attributes).toHaveProperty('addedAt', null);
  });

  it('runs undo --plan: its rows and bill fit', async () => {
    const env = baseEnv(sbEnv());
    const made = await offTerminal(['prospects', 'upsert', '--input', upsertFile(tempDir(), 'undoplan'), '--match', 'email'], env);
    expect(made.code, made.stderr).toBe(0);
    const plan = await onTerminal(['runs', 'undo', runId(made.stderr)!, '--plan'], env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^row 1: delete prospect /m);
    expect(plan.stdout).toMatch(/^bill: 2 set back, 2 deleted, /m);
    expectFits(plan.stdout, 'undo plan');
    expectFits(plan.stderr, 'undo plan (stderr)');
  });

  it('runs undo, asked on the terminal: its lines fit', async () => {
    const env = baseEnv(sbEnv());
    const made = await offTerminal(['prospects', 'upsert', '--input', upsertFile(tempDir(), 'undo'), '--match', 'email'], env);
    expect(made.code, made.stderr).toBe(0);
    const asked: string[] = [];
    const { ctx, app, stderr } = terminalContext(env, {
      confirm: (message) => {
        asked.push(message);
        return true;
      },
    });
    try {
      await undoHandler(ctx, runId(made.stderr)!, {});
    } finally {
      await ctx.close();
    }
    expect(app.exitCode, stderr()).toBe(0);
    expect(asked).toHaveLength(1);
    expect(stderr()).toMatch(/: 2 set back, 2 deleted \(4 of 4 rows/);
    expect(runId(stderr())).toBeDefined();
    expectFits(stderr(), 'undo');
  });

  it("a failed row's line fits", async () => {
    const env = baseEnv(sbEnv());
    const bad = path.join(tempDir(), 'bad.csv');
    fs.writeFileSync(bad, 'email,firstName,account\nbad-1@example.com,Ada,999999\n');
    const failed = await onTerminal(['prospects', 'upsert', '--input', bad, '--match', 'email'], env);
    expect(failed.code, failed.stderr).toBe(5);
    expect(screen(failed.stderr)).toMatch(/^row 1: failed: HTTP 422 /m);
    expectFits(failed.stderr, 'failed row');
  });

  it('an error and its hints fit', async () => {
    const env = baseEnv(sbEnv());
    // Deletes are refused without --yes when nothing can ask (stdin is no terminal here).
    const made = await offTerminal(['prospects', 'upsert', '--input', upsertFile(tempDir(), 'refused'), '--match', 'email'], env);
    const refused = await onTerminal(['runs', 'undo', runId(made.stderr)!], env);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/^error: refusing to delete 2 record\(s\) the run created without --yes /m);
    expect(refused.stderr).toMatch(/^hint: nothing was written; /m);
    expectFits(refused.stderr, 'error');
  });

  it('schema show: its notes fit, before and after a pull', async () => {
    const env = baseEnv(sbEnv());
    const bare = await onTerminal(['schema', 'show', 'prospect'], env);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toMatch(/^custom1\.\.custom150 are strings; /m);
    expectFits(bare.stderr, 'schema show');
    expect((await svcInProcess(['schema', 'pull'], { env })).code).toBe(0);
    const pulled = await onTerminal(['schema', 'show', 'prospect'], env);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stderr).toMatch(/^custom1\.\.custom150: \d+ labelled, usable by label \(--attr "Label=value"\)$/m);
    expectFits(pulled.stderr, 'schema show (pulled)');
    expectFits(pulled.stdout, 'schema show (pulled, table)');
  });

  it('runs list: an interrupted run of 3,000 rows, an undone one and a long command fit, the ids whole; prune --dry-run alike', async () => {
    // A trial: lines of 89 to 99 columns wrapped mid-word, the commands cut to `prospects c…` and
    // `runs undo 2…`, and the state `undone …7b4ed4`, an id that cannot be pasted.
    const env = baseEnv({ ...sbEnv(), SVC_CONFIG_DIR: tempDir('svc-runs-width-') });
    const dir = path.join(tempDir(), 'Quarterly imports 2026');
    fs.mkdirSync(dir);
    const leads = path.join(dir, 'leads.csv');
    fs.writeFileSync(leads, `email,firstName\n${Array.from({ length: 3000 }, (_, i) => `width-${i}@example.com,Lead${i}`).join('\n')}\n`);
    // Ctrl-C once 150 creates are sent: a run of thousands of rows, interrupted (after a thousand,
    // the test took 2 CPU-s more for the same layout).
    const ctrlC = new AbortController();
    const from = sb.requests.length;
    const watch = setInterval(() => {
      if (sb.requests.length - from >= 150) ctrlC.abort();
    }, 2);
    const created = await runInProcess(['prospects', 'create', '--input', leads], env, { signal: ctrlC.signal, timeoutMs: 60_000 });
    clearInterval(watch);
    expect(created.code, created.stderr).toBe(130);
    const createId = runId(created.stderr)!;
    // A long command line (a folder with spaces, options), over 100 columns, of which the list shows
    // `prospects upsert leads-q4.csv`.
    const upsert = await offTerminal(
      ['prospects', 'upsert', '--input', upsertFile(dir, 'leads-q4'), '--match', 'email', '--concurrency', '2'],
      env,
    );
    expect(upsert.code, upsert.stderr).toBe(0);
    const upsertId = runId(upsert.stderr)!;
    const undo = await offTerminal(['runs', 'undo', upsertId, '--yes'], env);
    expect(undo.code, undo.stderr).toBe(0);
    const undoId = runId(undo.stderr)!;

    const { stdout } = await onTerminalContext(env, (ctx) => runsListHandler(ctx, {}));
    expectFits(stdout, 'runs list');
    const lines = stdout.trimEnd().split('\n');
    const row = (id: string) => lines.findIndex((l) => l.startsWith(`${id}  `));
    // Each id whole at the start of its row; the command in its telling words (the type, the
    // operation, the file's name or the run undone, whole); the state in a word.
    expect(lines[row(createId)]).toMatch(/^\S+ +(now|\d+[sm] ago) +prospects create leads\.csv +interrupted$/);
    expect(lines[row(upsertId)]).toMatch(/^\S+ +(now|\d+[sm] ago) +prospects upsert leads-q4\.csv +undone$/);
    expect(lines[row(undoId)]).toMatch(new RegExp(`^\\S+ +(now|\\d+[sm] ago) +runs undo ${upsertId} +done$`));
    // The counts, never cut, on the line under their run when it has no room for them.
    expect(lines[row(createId) + 1]).toMatch(/^ {24}[\d,]+ created(, [\d,]+ cut short)? \(of 3,000\)$/);
    expect(lines[row(upsertId) + 1]).toBe(`${' '.repeat(24)}2 created, 2 updated`);
    expect(stdout).not.toContain('…');

    // Off a terminal the table is as it was: the whole command line, the undo's id.
    const piped = await offTerminal(['runs', 'list', '-o', 'table'], env);
    expect(piped.stdout).toMatch(
      new RegExp(
        `^${upsertId} +\\S+Z +svc prospects upsert --input '[^\\n]+' --match email --concurrency 2 +2 created, 2 updated +undone by ${undoId}$`,
        'm',
      ),
    );
    const json = JSON.parse((await offTerminal(['runs', 'list'], env)).stdout) as { id: string; state: string; command: string }[];
    expect(json.find((r) => r.id === upsertId)!.state).toBe(`undone by ${undoId}`);

    // prune --dry-run lists runs the same way (the interrupted one is kept: its rerun continues it).
    const pruned = await onTerminalContext(env, (ctx) => pruneHandler(ctx, { olderThan: '0d' }), { dryRun: true });
    expectFits(pruned.stdout, 'runs prune --dry-run');
    expect(pruned.stdout).toMatch(new RegExp(`^${undoId} +(now|\\d+[sm] ago) +default +runs undo ${upsertId}$`, 'm'));
    expect(pruned.stdout).toMatch(new RegExp(`^${upsertId} +(now|\\d+[sm] ago) +default +prospects upsert leads-q4\\.csv$`, 'm'));
  });

  it('schema show: custom-field labels whole (CJK ones too), the options under their field, marks whole', async () => {
    // A trial: `Lead Sourc…`, `Calendar L…`, `Last Event…` at 80 columns, beside an almost empty
    // MARKS column, where the footer says the fields are usable by label.
    const org = defaultOrg();
    org.customFields.prospect = {
      custom1: {
        type: 'inclusion',
        required: false,
        label: 'Lead Source Detail',
        definition: ['Webinar', 'Conference', 'Referral', 'Inbound', 'Outbound'],
      },
      custom2: { type: 'url', required: false, label: 'Calendar Link URL', definition: null },
      custom3: { type: 'string', required: true, label: 'Last Event Name', definition: null },
      custom4: { type: 'string', required: false, label: '見込み客の獲得経路の詳細', definition: null },
      custom5: { type: 'inclusion', required: false, label: '地域', definition: ['東日本', '西日本', '海外'] },
    };
    const own = await startSandbox({ port: 0, org });
    try {
      const env = baseEnv({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: own.baseUrl, SVC_AUTH_URL: own.authUrl, SVC_TOKEN: own.token });
      expect((await svcInProcess(['schema', 'pull'], { env })).code).toBe(0);
      const { stdout, stderr } = await onTerminalContext(env, (ctx) => schemaShowHandler(ctx, 'prospect'));
      expectFits(stdout, 'schema show');
      expectFits(stderr, 'schema show (stderr)');
      expect(stdout).not.toContain('…');
      expect(stdout).toMatch(/^custom1 +string +Lead Source Detail +inclusion\n {19}Webinar, Conference, Referral, Inbound, Outbound\n/m);
      expect(stdout).toMatch(/^custom2 +string +Calendar Link URL +url$/m);
      expect(stdout).toMatch(/^custom3 +string +required +Last Event Name +string$/m);
      expect(stdout).toMatch(/^custom4 +string +見込み客の獲得経路の詳細 +string$/m);
      expect(stdout).toMatch(/^custom5 +string +地域 +inclusion\n {19}東日本, 西日本, 海外\n/m);
      // The spec's fields keep their marks whole.
      expect(stdout).toMatch(/^proNetSlug +string +RO F S max 255$/m);
      // Labels line up: each starts in the LABEL column, CJK counted two columns a character.
      const head = stdout.split('\n')[0]!;
      expect(head).toMatch(/^NAME +TYPE +MARKS +LABEL +VALIDATION$/);
      for (const label of ['Lead Source Detail', '見込み客の獲得経路の詳細', '地域']) {
        const line = stdout.split('\n').find((l) => l.includes(label))!;
        expect(textWidth(line.slice(0, line.indexOf(label))), line).toBe(head.indexOf('LABEL'));
      }
    } finally {
      await own.close();
    }
  });

  it('CJK values count two columns a character: the plan, the run and runs show fit; a long name breaks between characters', async () => {
    const env = baseEnv(sbEnv());
    const title = '営業部長'.repeat(12);
    const file = upsertFile(tempDir(), 'cjk', '山田太郎', title);
    const plan = await onTerminal(['prospects', 'upsert', '--input', file, '--match', 'email', '--plan'], env);
    expect(plan.code, plan.stderr).toBe(0);
    expectFits(plan.stdout, 'plan');
    // Nothing lost: the title whole once the breaks between its characters are joined.
    expect(plan.stdout.replace(/\n +/g, '')).toContain(`title: "${title}"`);
    expect(plan.stdout).toMatch(/^ {2}firstName: "山田太郎"$/m);

    const r = await onTerminal(['prospects', 'upsert', '--input', file, '--match', 'email'], env);
    expect(r.code, r.stderr).toBe(0);
    expectFits(r.stderr, 'upsert');
    const show = await onTerminal(['runs', 'show', runId(r.stderr)!], env);
    expect(show.code, show.stderr).toBe(0);
    expectFits(show.stdout, 'runs show (table)');
    expectFits(show.stderr, 'runs show (header)');
  });
});
