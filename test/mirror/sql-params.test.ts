/**
 * `svc sql -p`: every `:name` of the statement needs its `-p name=…` and every `-p` a place in
 * the statement. A trial's `where title = :title` without `-p title=` answered no rows and
 * `count(*)` 0 with exit 0 (SQLite binds what is left out as NULL): a wrong number that looked
 * right. In process, over a small sandbox's mirror of its prospects.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { announceSandbox, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/run-svc.js';

let sb: TestSandbox;
let env: Record<string, string>;
let db: string;
beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 5 });
  sb = s.sb;
  env = s.env();
  db = path.join(tempDir(), 'params.sqlite');
  const r = await svcInProcess(['sync', '--db', db, 'prospects'], { env });
  expect(r.code, r.stderr).toBe(0);
});
afterAll(() => sb.close());

const sql = (...args: string[]) => svcInProcess(['sql', '--db', db, '-o', 'csv', ...args], { env });

describe('svc sql parameters', () => {
  it('refuses a :name without its -p, naming the fix, and prints no rows', async () => {
    const r = await sql('select count(*) as n from prospects where title = :title');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('error: SQL: no value for :title');
    expect(r.stderr).toContain('hint: bind it with -p title=VALUE');
  });

  it('names a -p the statement does not use, and the names it does', async () => {
    const typo = await sql('select count(*) as n from prospects where title = :title', '-p', 't=CEO');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('error: SQL: no value for :title');
    expect(typo.stderr).toContain('hint: bind it with -p title=VALUE (the statement has no :t for -p t)');
    const extra = await sql('select count(*) as n from prospects where title = :title', '-p', 'title=CEO', '-p', 't=CEO');
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('error: -p t: the statement has no :t');
    expect(extra.stderr).toContain('hint: it uses :title');
  });

  it('binds what is given; names in quotes, comments and :: are no parameters', async () => {
    const ok = await sql("select count(*) >= 0 as n, ':x' as s from prospects where title = :title -- :y", '-p', 'title=CEO');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('n,s\n1,:x\n');
  });
});

describe('svc sql without a mirror of its own', () => {
  it("names the sandbox's mirror when only `svc --sandbox sync` made one (a trial: the README's `svc sql` said only to sync)", async () => {
    const config = tempDir();
    announceSandbox(config, sb);
    const sandboxEnv = { ...env, SVC_CONFIG_DIR: config };
    const made = await svcInProcess(['--sandbox', 'sync', 'prospects'], { env: sandboxEnv });
    expect(made.code, made.stderr).toBe(0);
    const plain = await svcInProcess(['sql', 'select count(*) as n from prospects'], { env: sandboxEnv });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(
      /^error: no mirror yet at .*mirror\.default\.sqlite\nhint: run `svc sync` first\nhint: the sandbox's mirror \(made by `svc --sandbox sync`\) is read with `svc --sandbox sql …`\n$/,
    );
    const sandboxed = await svcInProcess(['--sandbox', 'sql', 'select count(*) as n from prospects', '-o', 'csv'], { env: sandboxEnv });
    expect(sandboxed.stdout).toBe('n\n5\n');
  });
});
