/** Alias expansion: where the command word is, how a saved line splits, and what is left alone. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandIndex, expandAlias, profileFromArgv } from '../../src/cli/aliases.js';
import { splitWords } from '../../src/shell-words.js';
import { tempDir } from '../helpers/run-svc.js';

describe('commandIndex', () => {
  it.each([
    [['ceos'], 0],
    [['--profile', 'work', 'ceos', '--limit', '2'], 2],
    [['-o', 'json', '-v', 'ceos'], 3],
    [['--sandbox', '--timeout', '5', 'ceos'], 3],
    [['--json'], -1],
    [['--', 'ceos'], 1],
  ])('%j → %d', (argv, want) => expect(commandIndex(argv)).toBe(want));
});

describe('splitWords', () => {
  it.each([
    ['prospects list --filter title=CEO', ['prospects', 'list', '--filter', 'title=CEO']],
    [`prospects list --filter 'title=VP Sales'`, ['prospects', 'list', '--filter', 'title=VP Sales']],
    ['api GET "/prospects?filter[title]=CEO"', ['api', 'GET', '/prospects?filter[title]=CEO']],
    ['a\\ b  c', ['a b', 'c']],
    [`x ''`, ['x', '']],
  ])('%s', (line, want) => expect(splitWords(line)).toEqual(want));
});

describe('expandAlias', () => {
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({
      currentProfile: 'work',
      profiles: { work: { aliases: { ceos: "prospects list --filter 'title=CEO'" } }, home: { aliases: { mine: 'tasks list' } } },
    }),
    { mode: 0o600 },
  );
  fs.chmodSync(dir, 0o700);
  const env = { SVC_CONFIG_DIR: dir };
  const builtIn = (n: string) => ['prospects', 'tasks'].includes(n);

  it('expands the alias of the current profile, keeping what comes before and after', async () => {
    expect(await expandAlias(['-o', 'csv', 'ceos', '--limit', '2'], env, builtIn)).toEqual([
      '-o',
      'csv',
      'prospects',
      'list',
      '--filter',
      'title=CEO',
      '--limit',
      '2',
    ]);
  });

  it('uses the profile named by --profile or SVC_PROFILE', async () => {
    expect(profileFromArgv(['--profile=home', 'mine'], {})).toBe('home');
    expect(await expandAlias(['--profile', 'home', 'mine'], env, builtIn)).toEqual(['--profile', 'home', 'tasks', 'list']);
    expect(await expandAlias(['mine'], { ...env, SVC_PROFILE: 'home' }, builtIn)).toEqual(['tasks', 'list']);
    expect(await expandAlias(['mine'], env, builtIn)).toBeUndefined();
  });

  it('never reads the config for a built-in command, and leaves unknown names alone', async () => {
    const unreadable = { SVC_CONFIG_DIR: path.join(dir, 'config.json') }; // a file, not a directory
    expect(await expandAlias(['prospects', 'list'], unreadable, builtIn)).toBeUndefined();
    expect(await expandAlias(['nosuch'], env, builtIn)).toBeUndefined();
    expect(await expandAlias(['ceos'], unreadable, builtIn)).toBeUndefined();
  });
});
