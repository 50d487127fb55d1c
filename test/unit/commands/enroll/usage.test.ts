/**
 * enroll's usage errors, in-process: every id and option is checked before anything is sent, and
 * each refusal is exit 2 with what to type. (The e2e tests keep the required options through the
 * built binary, whose stdin is no terminal.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputFile } from '../../../helpers/bulk.js';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

describe('usage errors send nothing (exit 2)', () => {
  it.each([
    [['enroll', '--sequence', '1', '--mailbox', '1'], /--prospect ID\.\.\. or --input FILE/],
    [['enroll', '--sequence', '0', '--mailbox', '1', '--prospect', '1'], /--sequence 0: expected a sequence id or name/],
    [['enroll', '--sequence', '1', '--mailbox', '1', '--prospect', '1', '--by', 'email'], /--by works with --input/],
    [
      ['enroll', '--sequence', '1', '--mailbox', '1', '--input', '/nonexistent.csv'],
      /^error: --input \/nonexistent.csv: no such file \(looked for \/nonexistent.csv\); check the path, or pass the file the rows are in$/m,
    ],
    [
      ['enroll', '--sequence', '1', '--mailbox', '1', '--prospect', '1', '--concurrency', '0'],
      /--concurrency 0: expected a whole number from 1 to 32/,
    ],
    [['enroll', '--sequence', '1', '--mailbox', '1', '--prospect', '1', '--shard', '4/3'], /--shard 4\/3/],
  ])('%j', async (args, message) => {
    const r = await server.run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.sent).toEqual([]);
  });

  it('a CSV without the column the --by mode needs', async () => {
    const file = inputFile('x.csv', 'name,title\na,b\n');
    const r = await server.run(['enroll', '--sequence', '1', '--mailbox', '1', '--input', file, '--by', 'email']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no "email" or "emails" column \(columns: name, title\)/);
    expect(r.sent).toEqual([]);
  });

  // `Name` was offered as the id column, being the first (a trial): only values name a column.
  it.each([
    [
      'team.csv',
      'Name,E-mail Address\nAda Lovelace,ada@example.com\nAlan Turing,\n',
      [],
      /\nhint: "E-mail Address" holds e-mail addresses: --by email --column "E-mail Address"\n/,
    ],
    ['nums.csv', 'Name,Phone,Prospect No\nAda,5551234,12\nAlan,5559876,13\n', [], /\nhint: name it: --column "Prospect No"; --by email/],
    // A phone number's digits read as an id: a column named so is never offered (a review).
    [
      'phones.csv',
      'Name,Phone\nAda,5551234\n',
      [],
      /\nhint: name the column of prospect ids: --column NAME; --by email for a file of e-mail addresses\n/,
    ],
    ['ppl.csv', 'Name,Mail box\nAda,ada@example.com\n', ['--by', 'email'], /\nhint: name it: --column "Mail box"; --by id/],
    ['ids.csv', 'Name,Who\nAda,12\n', ['--by', 'email'], /\nhint: "Who" holds prospect ids: --by id --column "Who"\n/],
    [
      'x.csv',
      'Name,title\nAda,CEO\n',
      [],
      /\nhint: name the column of prospect ids: --column NAME; --by email for a file of e-mail addresses\n/,
    ],
  ])('%s without the column: the hint names a column only for its values', async (name, text, by, hint) => {
    const file = inputFile(name, text);
    const r = await server.run(['enroll', '--sequence', '1', '--mailbox', '1', '--input', file, ...by]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(hint);
    expect(r.stderr).not.toMatch(/--column "Name"/);
    expect(r.sent).toEqual([]);
  });

  it('--prospect 5,6,abc enrols nobody: every id is checked first', async () => {
    const r = await server.run(['enroll', '--sequence', '1', '--mailbox', '1', '--prospect', '5,6,abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --prospect "abc": not a prospect id \(a positive integer\); nothing was enrolled$/m);
    expect(r.sent).toEqual([]);
  });

  it('--input - says stdin is not supported and how to go on', async () => {
    const r = await server.run(['enroll', '--sequence', '1', '--mailbox', '1', '--input', '-'], server.env(), { input: '5\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --input -: bulk input is read from a file, not stdin/m);
    expect(r.stderr).not.toMatch(/ENOENT/);
    expect(r.sent).toEqual([]);
  });
});
