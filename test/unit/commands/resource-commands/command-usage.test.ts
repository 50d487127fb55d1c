/**
 * Usage errors of the command tree, in-process: unknown commands, options and operations, missing
 * or extra arguments, bad ids, filters and output formats are exit 2 with a short error, and
 * nothing is sent. (The e2e tests keep an unknown option through the built binary.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

describe('usage errors send nothing (exit 2)', () => {
  it.each([
    [['nosuchcommand']],
    [['prospects', 'list', '--filter', 'personalNote1=x']],
    [['prospects', 'list', '--sort', 'emails']],
    [['prospects', 'list', '--filter', 'title']],
    [['calls', 'update', '3']],
    [['prospects', 'get', 'abc']],
    [['prospects', 'get', '1', '2']],
    [['prospects', 'list', 'extra']],
    [['calls', 'update', '--input', 'rows.csv']],
    [['prospects', '--bogus']],
    [['prospects', 'list', '--limit', '10', '--all']],
    [['-o', 'yaml', 'prospects', 'list']],
  ])('%j', async (args) => {
    const r = await server.run(args);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(3);
    expect(r.stderr).toMatch(/error/);
    expect(r.sent).toEqual([]);
  });

  it('a create given no field, with no terminal to ask on, is refused: no blank record', async () => {
    // A script whose --attr list came out empty made an empty prospect, exit 0 (a trial).
    const r = await server.run(['prospects', 'create']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: nothing to create: give --attr, --rel or --data (or --input FILE for many)\nhint: svc prospects create --help lists the fields; --data '{}' creates a prospect with none\n",
    );
    expect(r.sent).toEqual([]);
    expect((await server.run(['accounts', 'create'])).stderr).toContain("--data '{}' creates an account with none");
  });

  it('a bad URL is named as it was given: SVC_BASE_URL, not a --base-url the user never typed', async () => {
    const env = await server.run(['prospects', 'list'], server.env({ SVC_BASE_URL: 'not-a-url' }));
    expect(env.code).toBe(2);
    expect(env.stderr).toBe('error: SVC_BASE_URL: "not-a-url" is not a URL\n');
    const flag = await server.run(['--base-url', 'not-a-url', 'prospects', 'list']);
    expect(flag.stderr).toBe('error: --base-url: "not-a-url" is not a URL\n');
    expect([...env.sent, ...flag.sent]).toEqual([]);
  });

  it('a filter on a known non-filterable attribute names it', async () => {
    const r = await server.run(['prospects', 'list', '--filter', 'personalNote1=x']);
    expect(r.stderr).toMatch(/cannot filter prospects by "personalNote1"/);
  });

  it('an operation the type does not offer names what it does allow', async () => {
    const r = await server.run(['calls', 'update', '3']);
    expect(r.stderr).toMatch(/calls has no operation "update": it offers list, export, get, create, delete$/m);
  });

  it('--plan where the preview is --dry-run names it (a trial: "unknown option \'--plan\'" alone); other options keep their near miss', async () => {
    const r = await server.run(['prospects', 'create', '--input', 'rows.csv', '--plan']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown option '--plan'\nhint: did you mean --dry-run?\n");
    expect((await server.run(['prospects', 'export', 'x.csv', '--fields', 'id,email'])).stderr).toBe(
      "error: unknown option '--fields'\nhint: did you mean --columns?\n",
    );
    // Others keep commander's own near miss, or none.
    expect((await server.run(['prospects', 'list', '--fitler', 'x'])).stderr).toBe(
      "error: unknown option '--fitler'\nhint: did you mean --filter?\n",
    );
    expect((await server.run(['prospects', 'list', '--bogus'])).stderr).toBe("error: unknown option '--bogus'\n");
  });
});

// CLI.md: "With -o json the error is also written to stderr as {"errors":[...]}". Errors commander
// found while reading the command line wrote their text only (a new user's trial).
describe('-o json: errors of the command line give the {"errors":[...]} line too (exit 2)', () => {
  it.each([
    [['prospects', 'list', '--fitler', 'x', '-o', 'json'], "unknown option '--fitler'"],
    [
      ['prospects', 'lst', '-o', 'json'],
      'prospects has no operation "lst" (did you mean "list"?): it offers list, export, get, create, update, upsert, delete',
    ],
    [['prospect', 'list', '-o', 'json'], "unknown command 'prospect'"],
    [['--json', 'prospects', 'get'], "missing required argument 'id'"],
    [['prospects', 'get', '--output=json'], "missing required argument 'id'"],
    [['-ojson', 'prospects', 'get', '1', '2'], "too many arguments for 'get'. Expected 1 argument but got 2."],
    // The flag after the point of the error; --json with fields.
    [['prospects', 'list', '--bogus', 'x', '--json', 'id,title'], "unknown option '--bogus'"],
    [['prospects', '--bogus', '--output', 'json'], "unknown option '--bogus' (see svc prospects --help)"],
    [['-o', 'json', 'nosuchcommand'], "unknown command 'nosuchcommand'"],
  ])('%j', async (args, detail) => {
    const r = await server.run(args);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`error: ${detail}`);
    expect(JSON.parse(lines.at(-1)!)).toEqual({ errors: [{ title: 'UsageError', detail }] });
    expect(r.stdout).toBe('');
    expect(r.sent).toEqual([]);
  });

  it.each([
    [['prospects', 'list', '--fitler', 'x']],
    [['prospects', 'lst', '-o', 'csv']],
    [['prospect', 'list', '-o', 'json', '-o', 'table']],
    [['prospects', 'get', '--', '-o', 'json']],
  ])('no JSON line unless JSON is asked for: %j', async (args) => {
    const r = await server.run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: /);
    expect(r.stderr).not.toContain('{"errors"');
  });
});
