/**
 * What a sync costs in requests, counted by the sandbox itself: a full sync at most
 * Σ⌈records of a type / 1,000⌉ + 2 per type + 5, an incremental one after changing 1 % of the
 * prospects at most ⌈changed / 1,000⌉ + 2 per type + 5; `--plan` says the first before sending a
 * read of records, and `--budget` stops after N requests with every page so far kept; under a
 * budget smaller than one refresh of every table, the tables take turns (stalest first) and the
 * delete events and daily reconciles are not put off.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { expectTableEqualsApi } from '../helpers/mirror.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { doc, one, start, until, type Client } from '../helpers/sandbox.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { openDatabase } from '../../src/mirror/sqlite.js';
import { allScopes } from '../../src/sandbox/rules/scopes.js';

/**
 * Prospects in the org (the seed makes as many): past one page of 1,000, so that a full sync pages
 * and a budget of 5 requests stops after the first page with the rest to read (1,500 before: the
 * same pages, more rows to write and compare).
 */
const SEED = 1100;
const TYPES = ['prospects', 'accounts', 'mailings', 'sequence-states', 'email-addresses'];
const PATHS = ['/prospects', '/accounts', '/mailings', '/sequenceStates', '/emailAddresses'];

let c: Client;
let env: NodeJS.ProcessEnv;
let db: string;
beforeAll(async () => {
  c = await start({ seed: SEED });
  const dir = tempDir('svc-mirror-req-');
  db = path.join(dir, 'org.sqlite');
  env = baseEnv({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token });
});
afterAll(async () => {
  await c.sb.close();
});

const svc = (args: string[]) => runInProcess(args, env, { timeoutMs: 120_000 });

async function counts(): Promise<number[]> {
  const out: number[] = [];
  for (const p of PATHS) {
    const r = await c.get(`${p}?page[limit]=1&count=true${p === '/accounts' ? '&filter[named]=true,false' : ''}`);
    out.push(r.body.meta.count);
  }
  return out;
}

describe('requests of a sync', () => {
  it('--plan counts, a full sync stays within its bound, an incremental one within its own', async () => {
    const n = await counts();
    const bound = n.reduce((s, k) => s + Math.ceil(k / 1000), 0) + 2 * TYPES.length + 5;
    const plan = await svc(['sync', '--db', db, '--plan', '-o', 'json', ...TYPES]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).map((r: { records: number }) => r.records)).toEqual(n);

    let mark = c.sb.requests.length;
    const full = await svc(['sync', '--db', db, ...TYPES]);
    expect(full.code, full.stderr).toBe(0);
    const fullSent = c.sb.requests.length - mark;
    expect(fullSent).toBeLessThanOrEqual(bound);
    expect(full.stderr).toContain(`with ${fullSent} requests`);

    // 1 % of the prospects change.
    const ids = (await c.get('/prospects?sort=id&page[limit]=25')).body.data.map((d: { id: string }) => d.id);
    for (const id of ids) expect((await c.patch(`/prospects/${id}`, doc('prospect', { title: `Changed ${id}` }, {}, id))).status).toBe(200);
    mark = c.sb.requests.length;
    const inc = await svc(['sync', '--db', db, ...TYPES]);
    expect(inc.code, inc.stderr).toBe(0);
    const incSent = c.sb.requests.length - mark;
    // email addresses cannot be filtered by updatedAt: read whole, ⌈n / 1,000⌉ + 1 of the 2 a type may use.
    expect(incSent).toBeLessThanOrEqual(Math.ceil(25 / 1000) + 2 * TYPES.length + 5 + Math.ceil(n[4]! / 1000));
    // The 25: the records read again from the minute before the last sync (the overlap) are no
    // change (the count said "1 changed" of a table where nothing had).
    expect(inc.stderr).toMatch(/^prospects: 25 changed, 0 deleted/m);
    for (const p of PATHS) await expectTableEqualsApi(c, db, p);
    const again = await svc(['sync', '--db', db, ...TYPES]);
    expect(again.stderr).toMatch(/^prospects: 0 changed, 0 deleted/m);
    expect(again.stderr).toMatch(/^accounts: 0 changed, 0 deleted/m);
    const summary = JSON.parse((await svc(['sync', '--db', db, '-o', 'json', 'prospects'])).stdout);
    expect(summary.tables).toEqual([expect.objectContaining({ table: 'prospects', kind: 'incremental', changed: 0, deleted: 0 })]);
    // Three syncs of 1,100 prospects and the comparison of five tables: 8 s on a quiet machine,
    // past the 30 s default when four files share two busy cores.
  }, 120_000);

  it('--budget stops after N requests, keeps every page, and the next run continues', async () => {
    const file = path.join(tempDir(), 'budget.sqlite');
    const mark = c.sb.requests.length;
    // The root document, the org schema (2), the newest event, then one page of 1,000.
    const cut = await svc(['sync', '--db', file, '--budget', '5', 'prospects']);
    expect(cut.code).toBe(5);
    expect(cut.stderr).toMatch(/^error: stopped at the budget of 5 requests an hour\nhint: run the same command again to continue/m);
    expect(c.sb.requests.length - mark).toBe(5);
    const rows = await svc(['sql', '--db', file, '-o', 'json', 'select count(*) as n from prospects']);
    const kept = JSON.parse(rows.stdout)[0].n;
    expect(kept).toBe(1000);
    // Cut short with --rebuild, the hint leaves it out: the same command would drop what was read.
    const rebuilt = await svc(['sync', '--db', file, '--rebuild', '--budget', '5', 'prospects']);
    expect(rebuilt.code).toBe(5);
    expect(rebuilt.stderr).toMatch(/^hint: run the same command again without --rebuild to continue/m);
    const rest = await svc(['sync', '--db', file, 'prospects']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toMatch(/prospects: [\d,]+ read \(resumed\)/);
    const read = Number(/prospects: ([\d,]+) read/.exec(rest.stderr)![1]!.replace(/,/g, ''));
    expect(read).toBe(SEED - kept);
    await expectTableEqualsApi(c, file, '/prospects');
  });

  it('a --budget that ends before the first page says the budget a sync needs, counts only what it sent, and names no class', async () => {
    // A trial: at --budget 2 the summary said 3 requests (the refused one counted), a warning
    // began "BudgetSpent:", and the hint to run again would have read nothing more, run after run.
    for (const budget of [2, 4]) {
      const file = path.join(tempDir(), `starved-${budget}.sqlite`);
      const mark = c.sb.requests.length;
      const r = await svc(['sync', '--db', file, '--budget', String(budget), '-o', 'json', 'prospects', 'accounts']);
      expect(r.code, r.stderr).toBe(5);
      expect(c.sb.requests.length - mark).toBe(budget);
      expect(JSON.parse(r.stdout)).toMatchObject({ requests: budget, stopped: 'budget' });
      expect(r.stderr).not.toMatch(/BudgetSpent:|schema could not be read/);
      expect(r.stderr).toMatch(
        /^hint: a sync sends 4 requests before its first page \(the org, its schema, the delete events\): give a --budget of 5 or more$/m,
      );
      expect(r.stderr).not.toMatch(/run the same command again/);
    }
  });

  it('stopped at its --budget, a sync prints the summary of what it read: the tables finished and the one it stopped in; the next run continues', async () => {
    // A CI script parsing the summary got nothing: the stop threw the results away (exit 5, stdout empty).
    const file = path.join(tempDir(), 'budget-summary.sqlite');
    const accounts = (await counts())[1]!;
    expect(accounts).toBeLessThan(1000);
    const mark = c.sb.requests.length;
    // The root document, the org schema (2), the newest event, accounts' one page, prospects' first page.
    const cut = await svc(['sync', '--db', file, '--budget', '6', '-o', 'json', 'accounts', 'prospects', 'mailings']);
    expect(cut.code, cut.stderr).toBe(5);
    const summary = JSON.parse(cut.stdout);
    expect(summary).toEqual({
      file,
      requests: c.sb.requests.length - mark,
      stopped: 'budget',
      tables: [
        expect.objectContaining({ table: 'accounts', kind: 'full', resumed: false, written: accounts, deleted: 0 }),
        expect.objectContaining({ table: 'prospects', kind: 'full', resumed: false, written: 1000, deleted: 0, stopped: 'budget' }),
      ],
      notReached: ['mailings'],
    });
    expect(summary.tables[0]).not.toHaveProperty('stopped');
    // For people, per table what was read, as a finished sync says it, then the error and its hint.
    expect(cut.stderr).toContain(
      `accounts: ${accounts.toLocaleString('en-US')} read, 0 deleted, ${accounts.toLocaleString('en-US')} rows\n` +
        'prospects: 1,000 read, stopped at the budget, 1,000 rows\n' +
        'not reached: mailings\n' +
        'error: stopped at the budget of 6 requests an hour\nhint: run the same command again to continue where it stopped',
    );
    expect(cut.stderr).not.toMatch(/^synced /m);

    // --query reads the same summary.
    const queried = await svc([
      'sync',
      '--db',
      path.join(tempDir(), 'budget-query.sqlite'),
      '--budget',
      '6',
      '--query',
      '[stopped, tables[?stopped].table]',
      'accounts',
      'prospects',
    ]);
    expect(queried.code, queried.stderr).toBe(5);
    expect(JSON.parse(queried.stdout)).toEqual(['budget', ['prospects']]);

    // Stopped while reading the delete events, which come before the tables (a mirror's first
    // run only notes where they start): no table read, every table not reached.
    const eventsFile = path.join(tempDir(), 'budget-events.sqlite');
    const first = await svc(['sync', '--db', eventsFile, '--budget', '5', '-o', 'json', 'accounts']);
    expect(first.code, first.stderr).toBe(0);
    // The root document, the org schema (2), then the delete events.
    const late = await svc(['sync', '--db', eventsFile, '--budget', '3', '-o', 'json', 'accounts']);
    expect(late.code, late.stderr).toBe(5);
    expect(JSON.parse(late.stdout)).toEqual({ file: eventsFile, requests: 3, stopped: 'budget', tables: [], notReached: ['accounts'] });
    expect(late.stderr).toMatch(/^deletes: stopped while reading the API's delete events.*\nnot reached: accounts\n/m);

    // The next run continues: prospects first (left unfinished), then mailings (never synced), then accounts.
    const rest = await svc(['sync', '--db', file, '-o', 'json', 'accounts', 'prospects', 'mailings']);
    expect(rest.code, rest.stderr).toBe(0);
    const done = JSON.parse(rest.stdout);
    // A finished sync's summary keeps its shape.
    expect(Object.keys(done)).toEqual(['file', 'requests', 'tables']);
    expect(done.tables.map((t: { table: string }) => t.table)).toEqual(['accounts', 'prospects', 'mailings']);
    expect(done.tables[1]).toMatchObject({ table: 'prospects', resumed: true, written: SEED - 1000 });
    expect(done.tables.some((t: object) => 'stopped' in t)).toBe(false);
    for (const p of ['/accounts', '/prospects', '/mailings']) await expectTableEqualsApi(c, file, p);
  }, 60_000);

  it('interrupted (Ctrl-C), a sync prints the summary of what it read too, and exits 130', async () => {
    const proxy = await startFaultProxy(c.sb.authUrl);
    try {
      const file = path.join(tempDir(), 'interrupted.sqlite');
      // The second page of prospects never comes: Ctrl-C while the sync waits for it.
      proxy.plan({ method: 'GET', path: /^\/api\/v2\/prospects\?/ }, [{ kind: 'pass' }, { kind: 'hang' }]);
      const ctrlC = new AbortController();
      const running = runInProcess(
        ['sync', '--db', file, '-o', 'json', 'accounts', 'prospects', 'mailings'],
        { ...env, SVC_BASE_URL: `${proxy.origin}/api/v2` },
        {
          timeoutMs: 60_000,
          signal: ctrlC.signal,
        },
      );
      await until(() => proxy.log.some((e) => e.fault === 'hang'), 30_000);
      ctrlC.abort();
      const r = await running;
      expect(r.code, r.stderr).toBe(130);
      const summary = JSON.parse(r.stdout);
      expect(summary).toMatchObject({ stopped: 'interrupted', notReached: ['mailings'] });
      expect(summary.tables).toEqual([
        expect.objectContaining({ table: 'accounts', kind: 'full' }),
        expect.objectContaining({ table: 'prospects', kind: 'full', written: 1000, stopped: 'interrupted' }),
      ]);
      expect(r.stderr).toMatch(
        /^prospects: 1,000 read, interrupted, 1,000 rows\nnot reached: mailings\nerror: sync interrupted\nhint: run the same command again/m,
      );
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('runs within a small budget go on where the last stopped, not refreshing the same small tables first', async () => {
    // A new user's trial: at --budget 8 each run spent its requests on the root, the schema and a
    // refresh of the small tables, and stopped before prospects, run after run.
    const file = path.join(tempDir(), 'small-budget.sqlite');
    const tables = ['users', 'stages', 'personas', 'mailboxes', 'accounts', 'prospects'];
    const count = async () => {
      const r = await svc(['sql', '--db', file, '-o', 'json', 'select count(*) as n from prospects']);
      return r.code === 0 ? Number(JSON.parse(r.stdout)[0].n) : 0;
    };
    const counts: number[] = [];
    for (let run = 0; run < 4; run++) {
      const r = await svc(['sync', '--db', file, '--budget', '8', ...tables]);
      expect([0, 5], r.stderr).toContain(r.code);
      counts.push(await count());
      if (r.code === 0) break;
    }
    expect(counts.at(-1), `prospects after each run: ${counts.join(', ')}`).toBe(SEED);
  });
});

describe('a login without every scope', () => {
  // The scopes of a default `svc login` before stages.read and personas.read joined them: what
  // a profile made then still asks for (a login keeps the profile's scopes).
  const EARLIER_DEFAULTS = [
    'accounts',
    'calls',
    'emailAddresses',
    'events',
    'mailboxes',
    'mailings',
    'opportunities',
    'phoneNumbers',
    'prospects',
    'sequences',
    'sequenceStates',
    'sequenceSteps',
    'sequenceTemplates',
    'snippets',
    'tasks',
    'templates',
    'users',
    'webhooks',
  ].map((c) => `${c}.all`);
  const PER_STAGE = 'select s.name as stage, count(*) as prospects from prospects p join stages s on s.id = p.stage_id group by 1';

  it('a sync says once which tables it cannot read and the login that fixes it; sql and --status say the same, not "run svc sync"', async () => {
    // A new user's trial: after the README's login, every sync skipped stages and personas, every
    // `svc sql` said "synced partly (run svc sync)", and "prospects per stage" answered nothing.
    const small = await start({ seed: 20, tokenIssueIntervalMs: 0 });
    try {
      const dir = tempDir('svc-mirror-scopes-');
      const own = baseEnv({ SVC_CONFIG_DIR: dir });
      const file = path.join(dir, 'org.sqlite');
      const login = await cliLoginInProcess(small.sb, dir, ['--scopes', EARLIER_DEFAULTS.join(' ')]);
      expect(login.code, login.stderr).toBe(0);
      const fix = `svc login --scopes "${EARLIER_DEFAULTS.join(' ')} stages.read personas.read", then svc sync`;

      const plan = await runInProcess(['sync', '--db', file, '--plan'], own);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stderr).toContain(`warning: not mirrored: stages, personas (this login lacks stages.read, personas.read)`);
      for (const run of [1, 2]) {
        const r = await runInProcess(['sync', '--db', file, '-o', 'json'], own);
        expect(r.code, `run ${run}: ${r.stderr}`).toBe(0);
        const said = r.stderr.split('\n').filter((l) => /stages|personas/.test(l));
        expect(said, r.stderr).toEqual([
          `warning: not mirrored: stages, personas (this login lacks stages.read, personas.read): log in again asking for them too: ${fix}`,
        ]);
        expect(r.stderr).toMatch(/^synced 12 of 14 tables in /m);
        const tables = JSON.parse(r.stdout).tables as { table: string; skipped?: string }[];
        expect(tables.filter((t) => t.skipped).map((t) => [t.table, t.skipped])).toEqual([
          ['stages', 'stages.read'],
          ['personas', 'personas.read'],
        ]);
      }
      await expectTableEqualsApi(small, file, '/prospects');

      const status = await runInProcess(['sync', '--db', file, '--status', '-o', 'table'], own);
      expect(status.stdout).toMatch(/^stages +0 {2}empty: the last sync's login lacked stages\.read$/m);
      expect(status.stdout).toMatch(/^personas +0 {2}empty: the last sync's login lacked personas\.read$/m);
      expect(status.stdout).toContain(`personas, stages: log in again asking for them too: svc login --scopes "`);
      expect(status.stdout).not.toMatch(/never|run svc sync/);

      const empty = await runInProcess(['sql', '--db', file, '-o', 'csv', PER_STAGE], own);
      expect(empty.code, empty.stderr).toBe(0);
      expect(empty.stdout).toBe('stage,prospects\n');
      expect(empty.stderr).not.toContain('run svc sync');
      expect(empty.stderr).toMatch(/^mirror of .*, synced \d+ s ago; empty, not readable with the last sync's login: personas, stages$/m);
      expect(empty.stderr).toContain(
        `warning: not refreshed by the last sync, whose login lacked stages.read: stages (empty): log in again asking for it too: svc login --scopes "`,
      );
      // A statement that reads no such table gets the status line alone.
      const other = await runInProcess(['sql', '--db', file, "select count(*) as n from prospects where title <> 'stages'"], own);
      expect(other.stderr).not.toContain('warning:');

      // The command it named makes the mirror whole, and the notes go.
      const scopes = /--scopes "([^"]+)"/.exec(empty.stderr)![1]!;
      expect(scopes.split(' ')).toEqual([...EARLIER_DEFAULTS, 'stages.read']);
      const relogin = await cliLoginInProcess(small.sb, dir, ['--scopes', `${scopes} personas.read`]);
      expect(relogin.code, relogin.stderr).toBe(0);
      const whole = await runInProcess(['sync', '--db', file], own);
      expect(whole.code, whole.stderr).toBe(0);
      expect(whole.stderr).not.toMatch(/warning|not mirrored/);
      const full = await runInProcess(['sql', '--db', file, '-o', 'json', PER_STAGE], own);
      expect(full.stderr).not.toMatch(/not readable|warning/);
      const perStage = JSON.parse(full.stdout) as { prospects: number }[];
      const staged = small.sb.store.table('prospect');
      expect(perStage.reduce((n, r) => n + r.prospects, 0)).toBe([...staged.values()].filter((p) => p.rels['stage']).length);
      expect(perStage.length).toBeGreaterThan(0);
      expect((await runInProcess(['sync', '--db', file, '--status', '-o', 'table'], own)).stdout).not.toMatch(/not readable|lacked/);
    } finally {
      await small.sb.close();
    }
  }, 60_000);

  it('a shared mirror: tables a narrower login left holding older rows are named with their age, and each profile gets its own fix', async () => {
    // A review's case: after a sync with a narrower login, `svc sql` called stages "empty" while
    // it held the rows of an earlier sync, its "synced N s ago" left it out, and a full-scope
    // profile was told it lacked stages.read, with a login that already held stages.all.
    const small = await start({ seed: 20, tokenIssueIntervalMs: 0 });
    try {
      const dir = tempDir('svc-mirror-shared-');
      const own = baseEnv({ SVC_CONFIG_DIR: dir });
      const file = path.join(dir, 'org.sqlite');
      for (const [name, scopes] of [
        ['full', []],
        ['lim', ['--scopes', EARLIER_DEFAULTS.join(' ')]],
      ] as const) {
        const login = await cliLoginInProcess(small.sb, dir, ['--profile', name, ...scopes]);
        expect(login.code, login.stderr).toBe(0);
      }
      const first = await runInProcess(['--profile', 'full', 'sync', '--db', file], own);
      expect(first.code, first.stderr).toBe(0);
      const stages = small.sb.store.table('stage').size;
      expect(stages).toBeGreaterThan(0);
      // That sync of stages and personas is three days old when the narrower login syncs.
      const old = await openDatabase(file);
      old.run("UPDATE _svc_tables SET synced_at = ? WHERE table_name IN ('stages', 'personas')", [
        new Date(Date.now() - 3 * 86_400_000).toISOString(),
      ]);
      old.close();
      const narrow = await runInProcess(['--profile', 'lim', 'sync', '--db', file], own);
      expect(narrow.code, narrow.stderr).toBe(0);

      const q = ['sql', '--db', file, '-o', 'csv', 'select count(*) as n from stages'];
      const lim = await runInProcess(['--profile', 'lim', ...q], own);
      expect(lim.stdout).toBe(`n\n${stages}\n`);
      expect(lim.stderr).toMatch(
        /^mirror of .*, synced 3 days ago; not refreshed by the last sync \(its login could not read them\): personas, stages$/m,
      );
      expect(lim.stderr).toContain(
        'warning: not refreshed by the last sync, whose login lacked stages.read: stages (rows as of 3 days ago): log in again asking for it too: svc login --profile lim --scopes "',
      );
      // The sync after that login is the same profile's (it said plain `svc sync`: the default profile's org, a trial).
      expect(lim.stderr).toMatch(/svc login --profile lim --scopes "[^"]*", then svc --profile lim sync$/m);
      expect(lim.stderr).not.toContain('empty');

      const full = await runInProcess(['--profile', 'full', ...q], own);
      expect(full.stdout).toBe(`n\n${stages}\n`);
      expect(full.stderr).toContain(
        "warning: not refreshed by the last sync, whose login lacked stages.read: stages (rows as of 3 days ago): this profile can read it (another login's sync could not): svc --profile full sync refreshes it",
      );
      expect(full.stderr).not.toContain('svc login');
      const status = await runInProcess(['--profile', 'full', 'sync', '--db', file, '--status', '-o', 'table'], own);
      expect(status.stdout).toMatch(
        new RegExp(`^stages +${stages} {2}3 days ago; not refreshed by the last sync \\(its login lacked stages\\.read\\)$`, 'm'),
      );
      expect(status.stdout).toContain(
        "personas, stages: this profile can read them (another login's sync could not): svc --profile full sync refreshes them",
      );
      expect(status.stdout).not.toContain('svc login');

      // As it says: a sync with the full profile refreshes them, and the notes go for both.
      const again = await runInProcess(['--profile', 'full', 'sync', '--db', file], own);
      expect(again.code, again.stderr).toBe(0);
      const after = await runInProcess(['--profile', 'lim', ...q], own);
      expect(after.stderr).toMatch(/^mirror of .*, synced \d+ s ago$/m);
      expect(after.stderr).not.toContain('warning');
    } finally {
      await small.sb.close();
    }
  }, 60_000);

  it('a default login reads every table a default sync copies', async () => {
    const small = await start({ seed: 20 });
    try {
      const dir = tempDir('svc-mirror-default-login-');
      const login = await cliLoginInProcess(small.sb, dir);
      expect(login.code, login.stderr).toBe(0);
      const r = await runInProcess(['sync', '--db', path.join(dir, 'org.sqlite')], baseEnv({ SVC_CONFIG_DIR: dir }));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/warning|not mirrored/);
      expect(r.stderr).toMatch(/^synced 14 tables in /m);
    } finally {
      await small.sb.close();
    }
  });

  it('a token from SVC_TOKEN: the note names it; a type named is refused (exit 4)', async () => {
    const small = await start({ seed: 20 });
    try {
      const scopes = allScopes().filter((s) => !/^(stages|personas)\./.test(s));
      const dir = tempDir('svc-mirror-scopes-');
      const own = baseEnv({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: small.sb.baseUrl, SVC_TOKEN: small.sb.issueToken({ scopes }) });
      const file = path.join(dir, 'org.sqlite');
      const r = await runInProcess(['sync', '--db', file], own);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /^warning: not mirrored: stages, personas .*: give svc a token with them \(--token, SVC_TOKEN\), or log in asking for them: svc login --scopes "[^"]*stages\.read[^"]*", then svc sync$/m,
      );
      const named = await runInProcess(['sync', '--db', file, 'stages'], own);
      expect(named.code).toBe(4);
      expect(named.stderr).toMatch(/^error: .*stages\.read/);
    } finally {
      await small.sb.close();
    }
  });
});

describe('a budget smaller than one refresh of every table', () => {
  /** The default tables, in the order a sync is asked for them, and their collections. */
  const DEFAULT_TABLES: Record<string, string> = {
    users: 'users',
    stages: 'stages',
    personas: 'personas',
    mailboxes: 'mailboxes',
    accounts: 'accounts',
    prospects: 'prospects',
    emailAddresses: 'email_addresses',
    sequences: 'sequences',
    sequenceSteps: 'sequence_steps',
    sequenceStates: 'sequence_states',
    mailings: 'mailings',
    tasks: 'tasks',
    calls: 'calls',
    opportunities: 'opportunities',
  };
  const ASKED = Object.values(DEFAULT_TABLES);

  /** The tables whose records a run listed since `mark`, in the order it first listed them. */
  function tablesRead(c: Client, mark: number): string[] {
    const out: string[] = [];
    for (const r of c.sb.requests.slice(mark)) {
      const table = r.method === 'GET' ? DEFAULT_TABLES[r.path.replace(/^\/api\/v2\//, '')] : undefined;
      if (table && !out.includes(table)) out.push(table);
    }
    return out;
  }

  /** The mirror's bookkeeping of each table: its last finished sync and whether a run is left unfinished. */
  async function tableStates(
    file: string,
  ): Promise<Map<string, { syncedAt: string | null; unfinished: boolean; reconciledAt: string | null }>> {
    const db = await openDatabase(file, { readOnly: true });
    try {
      const rows = db.all('SELECT table_name, synced_at, run_kind, reconciled_at FROM _svc_tables') as {
        table_name: string;
        synced_at: string | null;
        run_kind: string | null;
        reconciled_at: string | null;
      }[];
      return new Map(
        rows.map((r) => [r.table_name, { syncedAt: r.synced_at, unfinished: r.run_kind !== null, reconciledAt: r.reconciled_at }]),
      );
    } finally {
      db.close();
    }
  }

  /** The order the issue asks for: a table left unfinished, then the stalest (never first); ties as asked. */
  function stalestFirst(asked: readonly string[], states: Awaited<ReturnType<typeof tableStates>>): string[] {
    const key = (t: string) => {
      const s = states.get(t);
      return s?.unfinished ? -1 : s?.syncedAt ? Date.parse(s.syncedAt) : 0;
    };
    return [...asked].sort((a, b) => key(a) - key(b));
  }

  /** A sandbox of the test's own (seed 20), a config folder pointed at it, its mirror file, and svc run in process there. */
  async function turnsSandbox() {
    const small = await start({ seed: 20 });
    const dir = tempDir('svc-mirror-turns-');
    const own = baseEnv({ SVC_CONFIG_DIR: dir, SVC_BASE_URL: small.sb.baseUrl, SVC_AUTH_URL: small.sb.authUrl, SVC_TOKEN: small.sb.token });
    const run = (args: string[]) => runInProcess(args, own, { timeoutMs: 60_000 });
    return { small, file: path.join(dir, 'org.sqlite'), run };
  }

  it('the tables take turns, the unfinished one first, then the stalest: every change reaches the mirror within two runs, deletes at once', async () => {
    // A CI engineer's nightly `svc sync --budget 12`: every run refreshed the first tables of the
    // list again, mailings, tasks, calls and opportunities never, and no delete ever left the
    // mirror (the delete events came after the tables, which the budget never passed).
    const { small, file, run } = await turnsSandbox();
    try {
      const full = await run(['sync', '--db', file]);
      expect(full.code, full.stderr).toBe(0);
      // That sync was last night's: the runs below are a day later, not the same second.
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 19) + 'Z';
      const raw = await openDatabase(file);
      raw.run('UPDATE _svc_tables SET synced_at = ?', [yesterday]);
      raw.close();

      // Changes to records of several types, the last tables of the list among them (mailings and
      // calls are never updated: new ones are made), and a delete.
      const first = async (p: string) =>
        (await small.get(`${p}?sort=id&page[limit]=1${p === '/accounts' ? '&filter[named]=true,false' : ''}`)).body.data[0].id;
      const prospect = one('prospect', Number(await first('/prospects')));
      for (const [p, type, attributes] of [
        ['/prospects', 'prospect', { title: 'Turned' }],
        ['/accounts', 'account', { name: 'Turned Co' }],
        ['/tasks', 'task', { note: 'Turned' }],
        ['/opportunities', 'opportunity', { name: 'Turned' }],
      ] as const) {
        const id = await first(p);
        const r = await small.patch(`${p}/${id}`, doc(type, attributes, {}, id));
        expect(r.status, `${p}: ${r.text}`).toBe(200);
      }
      const mailing = await small.post(
        '/mailings',
        doc('mailing', { subject: 'Turned' }, { prospect, mailbox: one('mailbox', Number(await first('/mailboxes'))) }),
      );
      expect(mailing.status, mailing.text).toBe(201);
      // Its delivery (the sandbox's, 200 ms later) changes it and its prospect again: done before the nights.
      await until(async () => (await small.get(`/mailings/${mailing.body.data.id}`)).body.data.attributes.state === 'delivered', 10_000);
      const call = await small.post('/calls', doc('call', { note: 'Turned' }, { prospect }));
      expect(call.status, call.text).toBe(201);
      const changed = ['/prospects', '/accounts', '/tasks', '/opportunities', '/mailings', '/calls'];
      const gone = await first('/calls');
      expect((await small.del(`/calls/${gone}`)).status).toBe(204);

      /** Each night's run: the tables it read, in order; what it said; the order expected from the mirror before it. */
      const nights: {
        read: string[];
        stderr: string;
        summary: { tables: { table: string; stopped?: string }[]; notReached: string[] };
        expected: string[];
        before: Awaited<ReturnType<typeof tableStates>>;
      }[] = [];
      let deletedFirst: unknown;
      for (let night = 1; night <= 3; night++) {
        const before = await tableStates(file);
        const mark = small.sb.requests.length;
        const r = await run(['--budget', '12', 'sync', '--db', file, '-o', 'json', '-v']);
        expect(r.code, r.stderr).toBe(5);
        expect(small.sb.requests.length - mark).toBe(12);
        const read = tablesRead(small, mark);
        const expected = stalestFirst(ASKED, before);
        expect(read, `night ${night}`).toEqual(expected.slice(0, read.length));
        nights.push({ read, stderr: r.stderr, summary: JSON.parse(r.stdout), expected, before });
        if (night === 1)
          deletedFirst = JSON.parse((await run(['sql', '--db', file, '-o', 'json', 'select type, id, how from _svc_deleted'])).stdout);
        if ([...(await tableStates(file)).values()].every((s) => s.syncedAt !== yesterday)) break;
      }
      for (const { read, stderr, summary, expected, before } of nights) {
        // The root document, the org schema (2) and the delete events, then a request a table.
        expect(read.length, stderr).toBe(8);
        expect(stderr).toContain(
          `order: delete events, ${expected.map((t) => `${t}${before.get(t)!.unfinished ? ' (unfinished)' : ''}`).join(', ')} (stalest first)`,
        );
        // The ninth table's turn came, its first request refused: left unfinished for the next run.
        expect(summary.tables.filter((t) => t.stopped).map((t) => t.table)).toEqual([expected[8]]);
        expect(summary.notReached).toEqual(ASKED.filter((t) => !expected.slice(0, 9).includes(t)));
      }
      // Two nights: the first eight tables, then the one left unfinished and the six never
      // refreshed since the full sync before any refreshed the night before.
      const orders = nights.map((n) => n.read);
      expect(orders.length, JSON.stringify(orders)).toBe(2);
      expect(orders[1]!.slice(0, 6)).toEqual(['sequence_steps', 'sequence_states', 'mailings', 'tasks', 'calls', 'opportunities']);
      // The first night did not reach calls: their delete was applied all the same, and said.
      expect(orders[0]).not.toContain('calls');
      expect(deletedFirst).toEqual([{ type: 'call', id: Number(gone), how: 'event' }]);
      expect(nights[0]!.stderr).toMatch(/^deleted by the API's delete events in them: calls 1$/m);
      for (const p of changed) await expectTableEqualsApi(small, file, p);
      await expectTableEqualsApi(small, file, '/users');
      // `--status` says when each table last finished a sync: none is a day old.
      const status = JSON.parse((await run(['sync', '--db', file, '--status', '-o', 'json'])).stdout);
      expect(status.tables.filter((t: { syncedAt: string }) => t.syncedAt === yesterday)).toEqual([]);
    } finally {
      await small.sb.close();
    }
  }, 60_000);

  it("a table's daily reconcile comes in its turn, so a small budget does not put it off forever", async () => {
    // At the end of a run, after every table and the delete events, the reconcile (ids only,
    // finding deletes no event told of) was never reached by a run its budget stopped first.
    const { small, file, run } = await turnsSandbox();
    try {
      const tables = ['users', 'stages', 'personas', 'mailboxes', 'calls'];
      const full = await run(['sync', '--db', file, ...tables]);
      expect(full.code, full.stderr).toBe(0);
      // Synced yesterday, reconciled two days ago; and a call deleted behind the event log's back.
      const raw = await openDatabase(file);
      raw.run('UPDATE _svc_tables SET synced_at = ?, reconciled_at = ?', [
        new Date(Date.now() - 86_400_000).toISOString().slice(0, 19) + 'Z',
        new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 19) + 'Z',
      ]);
      raw.run('INSERT INTO calls (id) VALUES (999999)');
      raw.close();
      const started = Date.now() - 1000;
      let nights = 0;
      while (nights < 4) {
        nights++;
        // The root document, the org schema (2), the delete events: two tables, a read and a reconcile each.
        const r = await run(['--budget', '8', 'sync', '--db', file, '-o', 'json', ...tables]);
        expect([0, 5], r.stderr).toContain(r.code);
        const states = await tableStates(file);
        if (tables.every((t) => Date.parse(states.get(t)!.reconciledAt!) >= started)) break;
      }
      // Two tables a night: the five within three.
      expect(nights, 'nights until every table was reconciled').toBeLessThanOrEqual(3);
      const log = await run(['sql', '--db', file, '-o', 'json', 'select type, id, how from _svc_deleted']);
      expect(JSON.parse(log.stdout)).toEqual([{ type: 'call', id: 999999, how: 'reconcile' }]);
      await expectTableEqualsApi(small, file, '/calls');
    } finally {
      await small.sb.close();
    }
  }, 60_000);
});
