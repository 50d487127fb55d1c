/**
 * `svc config get|set|list` and `svc alias set|delete`, in-process: they touch only the config
 * dir (per-profile settings and saved command lines), refuse unknown keys, bad values and names
 * that are commands with what to type, and send nothing. (The e2e tests keep the settings and
 * aliases as they change real requests, and `svc open`'s usage errors, through the built binary.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../../helpers/oauth.js';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(async () => {
  expect(server.received).toEqual([]);
  await server.close();
});

/** One config dir for a test. */
function setup() {
  const env = server.env();
  return { env, svc: (args: string[]) => server.run(args, env) };
}

describe('svc config', () => {
  it('a misspelt profile is refused with its near miss, not made; a name unlike any is a new profile; -o csv is CSV', async () => {
    // `--profile prdo config set output csv` made a profile "prdo", and its next command failed
    // for want of a base URL; config list -o csv printed aligned lines (a trial).
    const { env, svc } = setup();
    expect((await svc(['--profile', 'prod', 'config', 'set', 'output', 'json'])).code).toBe(0);
    const typo = await svc(['--profile', 'prdo', 'config', 'set', 'output', 'csv']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'error: no profile named "prdo" (did you mean "prod"?) (profiles: prod)\nhint: to begin a profile "prdo", log in to it first: svc --profile prdo login --base-url URL (or login --with-token)\n',
    );
    // Names like an existing one but not a slip of it are new profiles.
    for (const fresh of ['prod-eu', 'prod2', 'dev'])
      expect((await svc(['--profile', fresh, 'config', 'set', 'pageSize', '100'])).code, fresh).toBe(0);
    const alias = await svc(['--profile', 'prdo', 'alias', 'set', 'ceos', 'prospects list --filter title=CEO']);
    expect(alias.code).toBe(2);
    expect(Object.keys(readConfig(env.SVC_CONFIG_DIR!).profiles).sort()).toEqual(['dev', 'prod', 'prod-eu', 'prod2']);
    expect((await svc(['--profile', 'staging', 'config', 'set', 'pageSize', '200'])).code).toBe(0);
    // --dry-run says what it would write and writes nothing (it wrote the setting: a trial).
    for (const [value, would] of [
      ['500', 'set pageSize = 500 for'],
      ['', 'remove pageSize from'],
    ] as const) {
      const dry = await svc(['--profile', 'staging', 'config', 'set', 'pageSize', value, '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toBe(`(would ${would} profile "staging" in ${path.join(env.SVC_CONFIG_DIR!, 'config.json')})\n`);
      expect(readConfig(env.SVC_CONFIG_DIR!).profiles.staging!.settings).toEqual({ pageSize: 200 });
    }
    // The same for aliases and profiles (they wrote the config all the same, a review).
    const before = fs.readFileSync(path.join(env.SVC_CONFIG_DIR!, 'config.json'), 'utf8');
    expect((await svc(['--profile', 'staging', 'alias', 'set', 'ceos', 'prospects list --filter title=CEO'])).code).toBe(0);
    const withAlias = fs.readFileSync(path.join(env.SVC_CONFIG_DIR!, 'config.json'), 'utf8');
    for (const [args, would] of [
      [
        ['--profile', 'staging', 'alias', 'set', 'cfos', 'prospects list --filter title=CFO'],
        'set alias cfos = svc prospects list --filter title=CFO for profile "staging"',
      ],
      [['--profile', 'staging', 'alias', 'delete', 'ceos'], 'delete alias ceos from profile "staging"'],
      [['profiles', 'use', 'staging'], 'make "staging" the current profile'],
      [['profiles', 'remove', 'staging', '--yes'], 'remove profile "staging" and its tokens from'],
    ] as const) {
      const dry = await svc([...args, '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain(`(would ${would}`);
      expect(fs.readFileSync(path.join(env.SVC_CONFIG_DIR!, 'config.json'), 'utf8')).toBe(withAlias);
    }
    expect(withAlias).not.toBe(before);
    const csv = await svc(['--profile', 'staging', 'config', 'list', '-o', 'csv']);
    expect(csv.stdout).toBe('key,value\npageSize,200\n');
    expect((await svc(['--profile', 'bare', 'config', 'list', '-o', 'csv'])).stdout).toBe('key,value\n');
  });

  it('set, get, list; stored in the profile; an empty value removes a setting', async () => {
    const { env, svc } = setup();
    expect((await svc(['config', 'set', 'output', 'csv'])).stderr).toBe('output = csv for profile "default"\n');
    expect((await svc(['config', 'set', 'pageSize', '200'])).code).toBe(0);
    expect(await svc(['config', 'get', 'output'])).toMatchObject({ code: 0, stdout: 'csv\n' });
    expect(JSON.parse((await svc(['config', 'list', '-o', 'json'])).stdout)).toEqual({ output: 'csv', pageSize: 200 });
    expect(readConfig(env.SVC_CONFIG_DIR!).profiles.default!.settings).toEqual({ output: 'csv', pageSize: 200 });
    expect((await svc(['config', 'set', 'output', ''])).code).toBe(0);
    const gone = await svc(['config', 'get', 'output']);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/^error: output is not set for profile "default"$/m);
  });

  it('refuses unknown keys and bad values with what to type', async () => {
    const { svc } = setup();
    const key = await svc(['config', 'set', 'outpt', 'csv']);
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(
      /unknown setting "outpt" \(did you mean "output"\?\): the settings are output, pageSize, concurrency, appUrl/,
    );
    expect((await svc(['config', 'set', 'output', 'xml'])).stderr).toMatch(/output xml: expected one of table, json, ndjson, csv, raw/);
    expect((await svc(['config', 'set', 'pageSize', '5000'])).stderr).toMatch(/pageSize 5000: expected a whole number from 1 to 1000/);
    expect((await svc(['config', 'set', 'appUrl', 'https://app.example.com/p'])).stderr).toMatch(/needs \{id\}/);
  });

  it('settings are per profile', async () => {
    const { svc } = setup();
    await svc(['--profile', 'work', 'config', 'set', 'output', 'ndjson']);
    expect((await svc(['config', 'list', '-o', 'json'])).stdout.trim()).toBe('{}');
    expect((await svc(['--profile', 'work', 'config', 'get', 'output'])).stdout).toBe('ndjson\n');
  });
});

describe('svc alias', () => {
  it('a built-in command always wins, and an alias cannot take its name', async () => {
    const { env, svc } = setup();
    const r = await svc(['alias', 'set', 'prospects', 'accounts list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/svc already has a command of that name/);
    // Even written into the file by hand, the built-in runs.
    const file = path.join(env.SVC_CONFIG_DIR!, 'config.json');
    const cfg = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { profiles: {} };
    cfg.profiles.default = { ...cfg.profiles.default, aliases: { resources: 'prospects list' } };
    fs.writeFileSync(file, JSON.stringify(cfg), { mode: 0o600 });
    const res = await svc(['resources', '-o', 'json']);
    expect(JSON.parse(res.stdout).length).toBeGreaterThan(40);
  });

  it('checks the command an alias stands for', async () => {
    const { svc } = setup();
    const r = await svc(['alias', 'set', 'x', 'prospcts list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"prospcts" is not an svc command \(did you mean "prospects"\?\)/);
    const d = await svc(['alias', 'delete', 'nosuch']);
    expect(d.code).toBe(2);
  });
});
