/**
 * list's usage errors, in-process: filters, `--fields`, `--columns`, `--query` and `--json` that
 * would return the wrong answer are refused with exit 2 and one error naming the fix, and nothing
 * is sent. (The e2e tests keep one such refusal through the built binary.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUnsent, type Unsent, type UnsentResult } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

function refusedUnsent(r: UnsentResult, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).toBe('');
  expect(r.sent).toEqual([]);
}

describe('filters refused before anything is sent', () => {
  it.each([
    ['updatedAt=2024-13-45'],
    ['createdAt=2024-02-30..2024-03-01'],
    ['updatedAt=..2024-01-01T25:00:00'],
    ['createdAt=yesterdayish'],
  ])('%s: an impossible date is exit 2', async (expr) => {
    const r = await server.run(['prospects', 'list', '--filter', expr, '-o', 'json']);
    refusedUnsent(r, /^error: filter ".*": ".*" is not a valid date-time on (updatedAt|createdAt)\nhint: write YYYY-MM-DD/m);
  });

  it('two half-open ranges on one field: exit 2, suggesting the range', async () => {
    const r = await server.run([
      'prospects',
      'list',
      '--filter',
      'updatedAt=2024-01-01..',
      '--filter',
      'updatedAt=..2024-02-01',
      '-o',
      'json',
    ]);
    refusedUnsent(r, /^error: two filters on updatedAt.*\nhint: .*--filter 'updatedAt=2024-01-01\.\.2024-02-01'/m);
  });

  // `title==CEO` sent filter[title]=%3DCEO and printed [], exit 0 (a new user's trial).
  it.each([
    ['title==CEO', 'title=CEO', 'title=\\=CEO'],
    ['title = =CEO', 'title=CEO', 'title=\\=CEO'],
    ['account.id==5', 'account.id=5', 'account.id=\\=5'],
    ['updatedAt==2024-01-01..', 'updatedAt=2024-01-01..', 'updatedAt=\\=2024-01-01..'],
  ])('%s: "==" is exit 2, naming the one "=" to write', async (expr, fix, escaped) => {
    const r = await server.run(['prospects', 'list', '--filter', expr]);
    refusedUnsent(r, /^error: bad filter .*/);
    expect(r.stderr).toBe(
      `error: bad filter "${expr}": one "=" goes between name and value: write ${fix} (a value that starts with "=" is written ${escaped})\n`,
    );
  });

  it('a value that starts with "=" is written escaped, and sent as given', async () => {
    const r = await server.run(['prospects', 'list', '--filter', 'title=\\=CEO']);
    expect(r.sent.map((s) => decodeURIComponent(s.url))).toEqual([expect.stringContaining('filter[title]==CEO&')]);
  });

  it('a list of bare dates on a date-time field is exit 2 (each means a whole day)', async () => {
    const r = await server.run(['prospects', 'list', '--filter', 'createdAt=2026-01-01,2026-01-02', '-o', 'json']);
    refusedUnsent(r, /a date on createdAt means a whole day/);
  });
});

describe('--fields and --columns', () => {
  it('--fields with a near miss: exit 2 naming the field, nothing sent', async () => {
    const r = await server.run(['prospects', 'list', '--fields', 'firstName,fistName', '-o', 'json']);
    refusedUnsent(r, /^error: --fields: prospect has no field "fistName"\nhint: did you mean firstName\?/m);
  });

  it('--fields on a type the spec shows whole: any unknown name is exit 2', async () => {
    const r = await server.run(['mailboxes', 'list', '--fields', 'email,colour', '-o', 'json']);
    refusedUnsent(r, /^error: --fields: mailbox has no field "colour"/m);
  });

  it('--columns with a near miss: exit 2', async () => {
    const r = await server.run(['prospects', 'list', '--columns', 'id,lastNme', '-o', 'csv']);
    refusedUnsent(r, /^error: --columns: prospect has no field "lastNme"\nhint: did you mean lastName\?/m);
  });

  it('--columns account.nmae: exit 2 naming the included type', async () => {
    const r = await server.run(['prospects', 'list', '--columns', 'id,account.nmae', '-o', 'csv']);
    refusedUnsent(r, /^error: --columns account\.nmae: account has no field "nmae"\nhint: did you mean name\?/m);
  });

  it.each([
    ['--columns', 'id,titl'],
    ['--fields', 'titl,firstName'],
  ])('a near miss in %s is refused before sending, with the suggestion', async (flag, value) => {
    const r = await server.run(['prospects', 'list', '--limit', '1', flag, value, '-o', 'csv']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: ${flag}: prospect has no field "titl"\nhint: did you mean title? (\`svc schema show prospect\` lists the fields)\n`,
    );
    expect(r.sent).toEqual([]);
  });
});

// A bad --query expression is checked through the built binary (e2e query-output).
describe('--query and --json', () => {
  it('table and csv cannot show a query result', async () => {
    const r = await server.run(['prospects', 'list', '-o', 'csv', '--query', '[].id']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --query works with -o json, ndjson or raw, not -o csv\n');
    expect(r.sent).toEqual([]);
  });

  // A new-user trial: these went to the server, whose 400 was exit 1 (the README says 2).
  it('--filter and --sort: a near miss of a field is a usage error with the field; nothing is sent', async () => {
    refusedUnsent(
      await server.run(['prospects', 'list', '--filter', 'titel=CEO']),
      /^error: --filter: prospect has no field "titel"\nhint: did you mean title\? \(`svc schema show prospect` lists the fields\)\n$/,
    );
    refusedUnsent(
      await server.run(['prospects', 'list', '--sort', '-titel']),
      /^error: --sort: prospect has no field "titel"\nhint: did you mean title\?/,
    );
  });

  // A new-user trial: `--sort updated` suggested `updater`, a relationship, and `--sort updater`
  // then went to the API, which refused it (exit 1).
  it('--sort: near misses point to sortable fields only, and a relationship is refused; nothing is sent', async () => {
    const sortable = /sortable: id, company, createdAt, .*\bupdatedAt\b/;
    refusedUnsent(
      await server.run(['prospects', 'list', '--sort', 'updated']),
      /^error: --sort: prospect has no field "updated"\nhint: did you mean updatedAt\? /,
    );
    for (const name of ['updater', '-updater', 'account']) {
      const r = await server.run(['prospects', 'list', '--sort', name]);
      refusedUnsent(
        r,
        new RegExp(`^error: cannot sort prospects by "${name.replace('-', '')}": it is a relationship, not a field\nhint: `),
      );
      expect(r.stderr).toMatch(sortable);
    }
    // A near miss of a field that does not sort (name) is refused, the sortable ones named instead.
    const nme = await server.run(['prospects', 'list', '--sort', 'nme']);
    refusedUnsent(nme, /^error: --sort: prospect has no field "nme"\nhint: --sort takes id, company, /);
    expect(nme.stderr).not.toMatch(/did you mean/);
    const calls = await server.run(['calls', 'list', '--sort', 'prospect']);
    refusedUnsent(calls, /^error: cannot sort calls by "prospect": it is a relationship, not a field\nhint: sortable: id, /);
  });

  it('--filter and --sort: a name a type the spec shows whole does not have; nothing is sent', async () => {
    refusedUnsent(
      await server.run(['calls', 'list', '--filter', 'favouriteColour=blue']),
      /^error: --filter: call has no field "favouriteColour"\nhint: `svc schema show call` lists the fields/,
    );
    refusedUnsent(await server.run(['calls', 'list', '--sort', 'nope']), /^error: --sort: call has no field "nope"\n/);
    // Still sent: relationship paths, id, and the fields the type has.
    const ok = await server.run(['calls', 'list', '--filter', 'id=1', '--sort', '-createdAt']);
    expect(ok.sent.length, ok.stderr).toBeGreaterThan(0);
  });

  // A new-user trial: `acount.id=4` went to the server (422, exit 1) while `--rel acount=4` was exit 2.
  it('--filter and --sort: a near miss of a relationship in rel.attr is a usage error; nothing is sent', async () => {
    refusedUnsent(
      await server.run(['prospects', 'list', '--filter', 'acount.id=4']),
      /^error: --filter: prospect has no relationship "acount"\nhint: did you mean account\? \(`svc prospects --help` lists the relationships\)\n$/,
    );
    refusedUnsent(
      await server.run(['prospects', 'list', '--sort', 'acount.name']),
      /^error: --sort: prospect has no relationship "acount"\nhint: did you mean account\?/,
    );
    // A type the spec shows whole has no other relationships; one shown in part may (a far-off name is sent).
    refusedUnsent(await server.run(['calls', 'list', '--filter', 'colour.id=1']), /^error: --filter: call has no relationship "colour"\n/);
    const far = await server.run(['prospects', 'list', '--filter', 'zzzzqqq.id=1']);
    expect(far.sent.length, far.stderr).toBeGreaterThan(0);
  });

  it('--json: a name the type does not have is a usage error with the near miss; nothing is sent', async () => {
    const r = await server.run(['prospects', 'list', '--json', 'id,titel']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --json: prospect has no field "titel"\nhint: did you mean title\?/);
    expect(r.sent).toEqual([]);
  });
});

describe('did you mean: commands', () => {
  it('a command (commander)', async () => {
    const r = await server.run(['prospcts', 'list']);
    expect(r.code).toBe(2);
    // As svc's own errors say it (a new-user trial: commander's "(Did you mean …?)" line).
    expect(r.stderr).toBe("error: unknown command 'prospcts'\nhint: did you mean prospects?\n");
    expect(r.sent).toEqual([]);
  });

  it('an option (commander)', async () => {
    const r = await server.run(['prospects', 'list', '--filtr', 'title=CEO']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown option '--filtr'\nhint: did you mean --filter?\n");
    expect(r.sent).toEqual([]);
  });
});
