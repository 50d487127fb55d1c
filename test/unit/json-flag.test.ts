import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { separateJsonFlag } from '../../src/cli/json-flag.js';

/** A small program with the shapes that matter: a resource command and `api`. */
function program(): Command {
  const p = new Command('svc');
  const prospects = p.command('prospects').alias('Prospects');
  prospects.command('list');
  prospects.command('get');
  p.command('api');
  return p;
}

describe('separateJsonFlag', () => {
  it.each([
    // A field list stays the value of --json.
    [
      ['prospects', 'list', '--json', 'id,title'],
      ['prospects', 'list', '--json', 'id,title'],
    ],
    [
      ['prospects', 'list', '--json', 'title'],
      ['prospects', 'list', '--json', 'title'],
    ],
    [
      ['prospects', 'get', '3', '--json', 'account.name'],
      ['prospects', 'get', '3', '--json', 'account.name'],
    ],
    // A command word, an id or a path after it: --json stands alone.
    [
      ['--json', 'prospects', 'list'],
      ['--json=', 'prospects', 'list'],
    ],
    [
      ['prospects', '--json', 'list'],
      ['prospects', '--json=', 'list'],
    ],
    [
      ['prospects', 'get', '--json', '12'],
      ['prospects', 'get', '--json=', '12'],
    ],
    [
      ['--json', 'api', 'GET', '/x'],
      ['--json=', 'api', 'GET', '/x'],
    ],
    [
      ['api', '--json', 'GET', '/x'],
      ['api', '--json=', 'GET', '/x'],
    ],
    // Nothing after it, an option after it, --json=…, or past --: untouched.
    [
      ['prospects', 'list', '--json'],
      ['prospects', 'list', '--json'],
    ],
    [
      ['prospects', 'list', '--json', '-o', 'json'],
      ['prospects', 'list', '--json', '-o', 'json'],
    ],
    [
      ['prospects', 'list', '--json=list'],
      ['prospects', 'list', '--json=list'],
    ],
    [
      ['api', '--', '--json', 'prospects'],
      ['api', '--', '--json', 'prospects'],
    ],
  ])('%j', (argv, expected) => {
    expect(separateJsonFlag(argv, program())).toEqual(expected);
  });

  it('a list with a comma is fields even when one name is also a command', () => {
    expect(separateJsonFlag(['prospects', 'get', '1', '--json', 'id,list'], program())).toEqual([
      'prospects',
      'get',
      '1',
      '--json',
      'id,list',
    ]);
  });
});
