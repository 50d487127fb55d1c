/**
 * The shared budget's ledger in PostgreSQL (issue 33, item 4: src/budget/pg-ledger.ts) against
 * the server of SVC_TEST_PG (skipped with a notice when none is reachable;
 * SVC_TEST_REQUIRE_PROGRAMS=1 makes that a failure): ledgers on the same row as processes on
 * several machines would hold them (never more than the window between them), clocks that
 * disagree, leases of other hosts kept by heartbeat only, a row of a newer svc left alone, and a
 * server that is down or refuses the password: one warning, no password shown, the command paced
 * by the headers. `svc limits` shows the ledger's holders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerKey, LedgerUnusable, STALE_MS, type TakeRequest } from '../../src/budget/ledger.js';
import { PgLedger } from '../../src/budget/pg-ledger.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { adminSql, asUser, testPostgres } from '../helpers/postgres.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

const PG = await testPostgres();
const BASE = 'http://ledger.test/api/v2';

/** A user no other test (or run) shares a row with. */
let users = 0;
const freshUser = () => `test:${process.pid}:${Date.now()}:${++users}`;

function lease(pid: number, host: string, kind: 'interactive' | 'bulk' = 'bulk'): TakeRequest['lease'] {
  return { pid, host, command: `cmd ${pid}`, kind, priority: 'normal', started: Date.now() };
}

const reading = (limit: number, remaining: number, now = Date.now()) => ({ limit, remaining, resetAt: now + 60_000, status: 200 });

const open: PgLedger[] = [];
function ledger(user: string, now: () => number = Date.now): PgLedger {
  const l = new PgLedger(PG!, user, BASE, now);
  open.push(l);
  return l;
}

describe.skipIf(PG === undefined)('the ledger in PostgreSQL', () => {
  afterAll(async () => {
    await Promise.all(open.map((l) => l.close()));
  });

  it('two ledgers on the same row (two machines) never take more than the window between them', async () => {
    const user = freshUser();
    const a = ledger(user);
    const b = ledger(user);
    await a.report({ lease: lease(1, 'runner-a'), held: 0, reading: reading(60, 60) });
    // Many takes from both at once: each step is one round trip, and they race on the row.
    const grants = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).take({ lease: lease(100 + (i % 4), `runner-${i % 2}`, 'interactive'), held: 0, want: 4 }),
      ),
    );
    expect(grants.reduce((n, g) => n + g.granted, 0)).toBe(60);
    const view = await a.leases();
    expect(view).toMatchObject({ limit: 60, used: 60, left: 0 });
    expect(view.leases.map((l) => l.pid).sort()).toEqual([1, 100, 101, 102, 103]);
    // One row per user and API, holding the same JSON state as the file ledger.
    const rows = await adminSql(PG!, 'SELECT state FROM svc_budget.ledgers WHERE key = $1', [ledgerKey(user, BASE)]);
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0].state).toMatchObject({ version: 1, limit: 60, used: 60 });
    expect(await a.take({ lease: lease(100, 'runner-0'), held: 0, want: 5 })).toMatchObject({ granted: 0, why: 'window' });
  });

  it('a ledger that takes the row lock every time (the contended path) and one that races by compare-and-set agree', async () => {
    const user = freshUser();
    const locking = new PgLedger(PG!, user, BASE, Date.now, 0);
    open.push(locking);
    const racing = ledger(user);
    await locking.report({ lease: lease(1, 'runner-a'), held: 0, reading: reading(40, 40) });
    const grants = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 ? locking : racing).take({ lease: lease(10 + (i % 2), `runner-${i % 2}`, 'interactive'), held: 0, want: 3 }),
      ),
    );
    expect(grants.reduce((n, g) => n + g.granted, 0)).toBe(40);
    expect(await racing.leases()).toMatchObject({ used: 40, left: 0 });
  });

  it("keeps time by the server's clock: machines whose clocks disagree see each other's leases alive, and resets in their own time", async () => {
    const user = freshUser();
    const skew = 60_000;
    const ahead = ledger(user, () => Date.now() + skew);
    const right = ledger(user);
    const now = Date.now();
    await right.take({ lease: lease(1, 'runner-a'), held: 0, want: 0, reading: reading(100, 100, now) });
    const r = await ahead.take({ lease: lease(2, 'runner-b'), held: 0, want: 3 });
    // The reset the other machine read, in this machine's (skewed) time: within a few ms.
    expect(Math.abs(r.resetAt! - (now + 60_000 + skew))).toBeLessThan(250);
    const v = await right.leases();
    expect(v.leases.map((l) => l.pid).sort()).toEqual([1, 2]);
    expect(Math.abs(v.resetAt! - (now + 60_000))).toBeLessThan(250);
    expect((await ahead.leases()).leases.map((l) => l.pid).sort()).toEqual([1, 2]);
  });

  it("drops another host's lease only by its heartbeat, and returns what it held", async () => {
    const user = freshUser();
    const a = ledger(user);
    const b = ledger(user);
    await a.report({ lease: lease(1, 'runner-a'), held: 0, reading: reading(100, 100) });
    // A pid that is not alive here: on another host that says nothing.
    const gone = 2 ** 22 + 12_345;
    await b.take({ lease: lease(gone, 'runner-b'), held: 0, want: 10 });
    expect((await a.leases()).leases.map((l) => l.pid)).toContain(gone);
    await a.take({ lease: lease(1, 'runner-a'), held: 0, want: 5 });
    expect((await a.leases()).used).toBe(15);
    // runner-b stops beating: after STALE_MS its lease is dropped and its 10 return.
    const until = Date.now() + STALE_MS + 300;
    while (Date.now() < until) {
      await a.take({ lease: lease(1, 'runner-a'), held: 5, want: 0 });
      await new Promise((r) => setTimeout(r, 1000));
    }
    const v = await a.leases();
    expect(v.leases.map((l) => l.pid)).toEqual([1]);
    expect(v.used).toBe(5);
  }, 15_000);

  it('leaves a row written by a newer svc as it was, and says why', async () => {
    const user = freshUser();
    const newer = { version: 9, used: 0, leases: [] };
    await ledger(user).leases(); // makes the table and the row
    await adminSql(PG!, `UPDATE svc_budget.ledgers SET state = $2::jsonb WHERE key = $1`, [ledgerKey(user, BASE), JSON.stringify(newer)]);
    const err = await ledger(user)
      .take({ lease: lease(1, 'runner-a'), held: 0, want: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LedgerUnusable);
    expect((err as Error).message).toMatch(/is written by a newer svc \(ledger version 9\)/);
    const rows = await adminSql(PG!, 'SELECT state FROM svc_budget.ledgers WHERE key = $1', [ledgerKey(user, BASE)]);
    expect(rows.rows[0].state).toEqual(newer);
  });

  it('a wrong password or a server that is down: LedgerUnusable in one line, the password never in it', async () => {
    const wrong = asUser(PG!, new URL(PG!).username, 'Wr0ng-Secret-pw');
    const e1 = await new PgLedger(wrong, freshUser(), BASE).take({ lease: lease(1, 'h'), held: 0, want: 1 }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(LedgerUnusable);
    expect((e1 as Error).message).toMatch(
      /^cannot use the ledger at postgres:\/\/\w+:\*\*\*@127\.0\.0\.1:\d+\/\w+ \(table svc_budget\.ledgers\): password authentication failed/,
    );
    expect((e1 as Error).message).not.toContain('Wr0ng-Secret-pw');
    const down = new URL(wrong);
    down.port = '1';
    const e2 = await new PgLedger(down.toString(), freshUser(), BASE)
      .take({ lease: lease(1, 'h'), held: 0, want: 1 })
      .catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(LedgerUnusable);
    expect((e2 as Error).message).toMatch(
      /^cannot use the ledger at postgres:\/\/\w+:\*\*\*@127\.0\.0\.1:1\/\w+ \(table svc_budget\.ledgers\): .*ECONNREFUSED/,
    );
    expect((e2 as Error).message).not.toContain('Wr0ng-Secret-pw');
  });
});

describe.skipIf(PG === undefined)('svc with --budget-ledger', () => {
  let sb: TestSandbox;
  let env: Record<string, string>;
  beforeAll(async () => {
    const s = await sandboxWithEnv({ seed: 20, rateLimit: 200 });
    sb = s.sb;
    env = s.env();
  });
  afterAll(async () => {
    await sb?.close();
  });

  const svc = (args: string[], extra: Record<string, string> = {}) => svcInProcess(args, { env: { ...env, ...extra } });

  it('svc limits shows the hour the ledger in PostgreSQL holds, with another machine holding a share', async () => {
    // The sandbox's token is new: its row too.
    const first = await svc(['--budget-ledger', PG!, 'limits', '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(JSON.parse(first.stdout)).toMatchObject({ limit: 200, used: 1, left: 199, holders: [] });
    expect(JSON.parse(first.stdout).ledger).toMatch(/^postgres:\/\/\w+:\*\*\*@127\.0\.0\.1:\d+\/\w+ \(table svc_budget\.ledgers\)$/);
    expect(first.stdout).not.toContain(new URL(PG!).password);
    // Another machine's bulk run, by the same user (the token's key) on the same API.
    const { createHash } = await import('node:crypto');
    const user = `token:${createHash('sha256').update(sb.token).digest('hex')}`;
    const l = new PgLedger(PG!, user, sb.baseUrl);
    open.push(l);
    await l.take({ lease: { ...lease(4242, 'ci-runner-7'), command: 'prospects upsert' }, held: 0, want: 10 });
    const again = await svc(['limits', '-o', 'json'], { SVC_BUDGET_LEDGER: PG! });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      limit: 200,
      used: 11,
      left: 189,
      holders: [{ pid: 4242, command: 'prospects upsert', taken: 10, held: 10 }],
    });
  });

  it.each([
    ['a wrong password', (u: URL) => (u.password = 'Wr0ng-Secret-pw'), /password authentication failed/],
    ['a server that is down', (u: URL) => (u.port = '1'), /ECONNREFUSED/],
  ])('%s: one warning (no password), the command runs paced by the headers', async (_what, spoil, reason) => {
    const u = new URL(PG!);
    spoil(u);
    const r = await svc(['--budget-ledger', u.toString(), 'prospects', 'list', '--page-size', '5', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(5);
    expect(r.stderr.match(/warning: /g)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^warning: the rate budget shared with your other svc processes is off for this command: cannot use the ledger at postgres:\/\/\w+:\*\*\*@[^ ]+ \(table svc_budget\.ledgers\): .+; pacing by the server's headers alone\n$/,
    );
    expect(r.stderr).toMatch(reason);
    expect(r.stderr).not.toContain('Wr0ng-Secret-pw');
    expect(r.stderr).not.toContain(new URL(PG!).password);
  });

  // A role that can log in but not use svc_budget: the error came after the connection was made,
  // and the connection was never closed, so bin/svc never exited (a cron job hung; a trial).
  it('a role without rights on the ledger: the warning, and no connection left open', async () => {
    const role = `svc_norights_${process.pid}_${Date.now() % 100000}`;
    await adminSql(PG!, 'CREATE SCHEMA IF NOT EXISTS svc_budget');
    await adminSql(PG!, `CREATE ROLE ${role} LOGIN PASSWORD 'N0-Rights-pw'`);
    const open = async () => (await adminSql(PG!, 'SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1', [role])).rows[0].n;
    try {
      const r = await svc(['--budget-ledger', asUser(PG!, role, 'N0-Rights-pw'), 'prospects', 'get', '1', '--query', 'id']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('1\n');
      expect(r.stderr).toMatch(
        /^warning: .*cannot use the ledger at .*: permission denied for (?:schema svc_budget|database).*; pacing by the server's headers alone\n$/,
      );
      expect(r.stderr).not.toContain('N0-Rights-pw');
      const until = Date.now() + 3000;
      while ((await open()) > 0 && Date.now() < until) await new Promise((done) => setTimeout(done, 50));
      expect(await open()).toBe(0);
    } finally {
      await adminSql(PG!, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
      await adminSql(PG!, `DROP ROLE IF EXISTS ${role}`);
    }
  });

  it.each([
    [
      ['--budget-ledger', 'mysql://u:hunter22pw@h/db', 'limits'],
      {},
      /^error: --budget-ledger mysql:\/\/u:\*\*\*@h\/db: expected a PostgreSQL connection string/,
    ],
    [
      ['--budget-ledger', 'postgres://u:hunter22pw@h:notaport/db', 'limits'],
      {},
      /^error: --budget-ledger is not a connection string svc can read .*\nhint: write it postgres:\/\/USER@HOST:PORT\/DATABASE/m,
    ],
    [
      ['limits'],
      { SVC_BUDGET_LEDGER: '/tmp/ledger.json' },
      /^error: SVC_BUDGET_LEDGER \/tmp\/ledger\.json: expected a PostgreSQL connection string/,
    ],
  ])('%j %j: exit 2 with one line', async (args, extra, message) => {
    const mark = sb.requests.length;
    const r = await svc(args as string[], extra as Record<string, string>);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('hunter22pw');
    expect(r.stdout).toBe('');
    expect(sb.requests.length).toBe(mark);
  });
});
