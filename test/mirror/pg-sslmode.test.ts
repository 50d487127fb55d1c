/**
 * A connection string with `sslmode=require` (or prefer, verify-ca) against a server without SSL:
 * `svc sync --db`, `svc sql --db` and `--budget-ledger` say svc's one error line with its fix,
 * never the driver's paragraph ("SECURITY WARNING: The SSL modes 'prefer', 'require', and
 * 'verify-ca' are treated as aliases for 'verify-full'", a process warning of nine lines that
 * pg-connection-string emits and Node writes on stderr), and never the password. bin/svc as a
 * child: the warning is the process's own (once a process, on its stderr), not the Context's.
 * Needs the PostgreSQL server of SVC_TEST_PG, without SSL (skipped with a notice otherwise).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSql, freshSchema, testPostgres } from '../helpers/postgres.js';
import { runSvc, tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

const PG = await testPostgres();
const NO_SSL = PG !== undefined && (await adminSql(PG, 'SHOW ssl')).rows[0]?.ssl === 'off';
if (PG && !NO_SSL) process.stderr.write('skipped: the sslmode tests need a PostgreSQL server without SSL\n');

/** The test server's URL with `sslmode=mode`. */
function withSslMode(mode: string): string {
  const u = new URL(PG!);
  u.searchParams.set('sslmode', mode);
  return u.toString();
}

/** What no line of svc's may hold: the driver's paragraph, Node's warning header, the password. */
function expectNoDriverText(stderr: string): void {
  expect(stderr).not.toMatch(/SECURITY WARNING|\(node:\d+\)|trace-warnings|uselibpqcompat|pg-connection-string/);
  const password = decodeURIComponent(new URL(PG!).password);
  if (password) expect(stderr).not.toContain(password);
}

describe.skipIf(!NO_SSL)('sslmode against a server without SSL', () => {
  let sb: TestSandbox;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    const s = await sandboxWithEnv({ seed: 5 });
    sb = s.sb;
    // Node prints process warnings unless told not to: the run must show one if svc lets it through.
    env = { ...s.env(), NODE_NO_WARNINGS: undefined };
  });
  afterAll(async () => {
    await sb.close();
  });

  it.each(['require', 'prefer', 'verify-ca'])('sslmode=%s: svc sql and svc sync say one error line and its fix', async (mode) => {
    const db = withSslMode(mode);
    for (const args of [
      ['sql', '--db', db, 'select 1'],
      ['sync', '--db', db, '--schema', freshSchema('ssl'), 'users'],
    ]) {
      const r = await runSvc(args, { env });
      expect(r.code, r.stderr).toBe(1);
      expectNoDriverText(r.stderr);
      expect(r.stderr.trimEnd().split('\n'), r.stderr).toEqual([
        expect.stringMatching(/^error: PostgreSQL at postgres:\/\/[^ ]* \(schema \w+\): The server does not support SSL connections$/),
        'hint: the server takes no SSL: have SSL turned on there, or, on a network you trust, write sslmode=disable in the connection string',
      ]);
      expect(r.stdout).toBe('');
    }
  });

  it('--budget-ledger with sslmode=require: the ledger is off in one warning line, the command goes on', async () => {
    const r = await runSvc(['--budget-ledger', withSslMode('require'), '--budget', '50', 'users', 'list', '-o', 'json'], {
      env: { ...env, SVC_DATA_DIR: tempDir() },
    });
    expect(r.code, r.stderr).toBe(0);
    expectNoDriverText(r.stderr);
    expect(r.stderr.trimEnd().split('\n'), r.stderr).toEqual([
      expect.stringMatching(
        /^warning: the rate budget shared .* is off for this command: .*The server does not support SSL connections; pacing/,
      ),
    ]);
  });
});
