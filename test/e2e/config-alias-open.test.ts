/**
 * `svc config get|set|list` (per-profile defaults a flag overrides), `svc alias set|list|delete`
 * (saved command lines, only for names that are no command), `svc open <type> <id>` and
 * `get --web` (the profile's appUrl; $BROWSER honoured; nothing sent to the API).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../helpers/oauth.js';
import { runSvc, tempDir } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let sbEnv: () => Record<string, string>;
beforeAll(async () => {
  ({ sb, env: sbEnv } = await sandboxWithEnv({ seed: 30 }));
});
afterAll(() => sb.close());

/** One config dir for a test, with the sandbox's URL and token. */
function setup() {
  const env = sbEnv();
  return { env, svc: (args: string[], extra: Record<string, string> = {}) => runSvc(args, { env: { ...env, ...extra } }) };
}

describe('svc config', () => {
  it('set, get, list; stored in the profile; an empty value removes a setting', async () => {
    const { env, svc } = setup();
    expect((await svc(['config', 'set', 'output', 'csv'])).stderr).toBe('output = csv for profile "default"\n');
    expect((await svc(['config', 'set', 'pageSize', '200'])).code).toBe(0);
    expect(await svc(['config', 'get', 'output'])).toMatchObject({ code: 0, stdout: 'csv\n' });
    expect(JSON.parse((await svc(['config', 'list', '-o', 'json'])).stdout)).toEqual({ output: 'csv', pageSize: 200 });
    expect(readConfig(env.SVC_CONFIG_DIR).profiles.default!.settings).toEqual({ output: 'csv', pageSize: 200 });
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

  it('the settings are defaults: output format and page size apply, a flag wins', async () => {
    const { svc } = setup();
    await svc(['config', 'set', 'output', 'csv']);
    await svc(['config', 'set', 'pageSize', '2']);
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'list', '--limit', '3', '--columns', 'id,title']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('id,title');
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
    const pages = received(sb, mark, 'prospects');
    expect(pages[0]!.query.parsed['page[limit]']).toBe('2');
    const flagged = await svc(['prospects', 'list', '--limit', '3', '-o', 'json', '--page-size', '3']);
    expect(JSON.parse(flagged.stdout)).toHaveLength(3);
    expect(received(sb, mark, 'prospects').at(-1)!.query.parsed['page[limit]']).toBe('3');
  });

  it('settings are per profile', async () => {
    const { svc } = setup();
    await svc(['--profile', 'work', 'config', 'set', 'output', 'ndjson']);
    expect((await svc(['config', 'list', '-o', 'json'])).stdout.trim()).toBe('{}');
    expect((await svc(['--profile', 'work', 'config', 'get', 'output'])).stdout).toBe('ndjson\n');
  });

  it('concurrency is the default of bulk runs only: a single create is not refused for it', async () => {
    const { svc } = setup();
    await svc(['config', 'set', 'concurrency', '2']);
    const r = await svc(['prospects', 'create', '--attr', 'firstName=Ada', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('svc alias', () => {
  it('set, run with extra words, list, delete', async () => {
    const { svc } = setup();
    const set = await svc(['alias', 'set', 'ceos', 'prospects list --filter title=CEO --columns "id,title"']);
    expect(set.code, set.stderr).toBe(0);
    const mark = sb.requests.length;
    const r = await svc(['ceos', '--limit', '2', '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('id,title');
    for (const line of r.stdout.trim().split('\n').slice(1)) expect(line).toMatch(/^\d+,CEO$/);
    expect(received(sb, mark, 'prospects')[0]!.query.parsed['filter[title]']).toBe('CEO');
    // Global options before the alias work too.
    expect((await svc(['-o', 'json', 'ceos', '--limit', '1'])).code).toBe(0);
    expect(JSON.parse((await svc(['alias', 'list', '-o', 'json'])).stdout)).toEqual({
      ceos: 'prospects list --filter title=CEO --columns "id,title"',
    });
    expect((await svc(['alias', 'delete', 'ceos'])).code).toBe(0);
    const after = await svc(['ceos']);
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(/unknown command 'ceos'/);
  });

  it('a built-in command always wins, and an alias cannot take its name', async () => {
    const { env, svc } = setup();
    const r = await svc(['alias', 'set', 'prospects', 'accounts list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/svc already has a command of that name/);
    // Even written into the file by hand, the built-in runs.
    const file = path.join(env.SVC_CONFIG_DIR, 'config.json');
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

describe('svc open and get --web', () => {
  /** A $BROWSER that records the address it is given. */
  function fakeBrowser(): { browser: string; opened: () => string } {
    const dir = tempDir();
    const out = path.join(dir, 'opened');
    const script = path.join(dir, 'browser.sh');
    fs.writeFileSync(script, `#!/bin/sh\nprintf '%s' "$1" > '${out}'\n`, { mode: 0o755 });
    return { browser: script, opened: () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '') };
  }
  const waitFor = async (f: () => string) => {
    for (let i = 0; i < 50 && !f(); i++) await new Promise((r) => setTimeout(r, 50));
    return f();
  };

  it('opens the record from the appUrl template in $BROWSER, sending nothing to the API', async () => {
    const { svc } = setup();
    await svc(['config', 'set', 'appUrl', 'https://app.example.com/{path}/{id}?t={type}']);
    const b = fakeBrowser();
    const mark = sb.requests.length;
    const r = await svc(['open', 'sequence-states', '12'], { BROWSER: b.browser });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('https://app.example.com/sequenceStates/12?t=sequenceState\n');
    expect(await waitFor(b.opened)).toBe('https://app.example.com/sequenceStates/12?t=sequenceState');
    const web = fakeBrowser();
    const g = await svc(['prospects', 'get', '5', '--web'], { BROWSER: web.browser });
    expect(g.code, g.stderr).toBe(0);
    expect(await waitFor(web.opened)).toBe('https://app.example.com/prospects/5?t=prospect');
    expect(sb.requests.slice(mark)).toHaveLength(0);
    const printed = await svc(['open', 'prospects', '5', '--no-browser']);
    expect(printed).toMatchObject({ code: 0, stdout: 'https://app.example.com/prospects/5?t=prospect\n', stderr: '' });
  });

  it('without an appUrl, or with a wrong type, says what to do', async () => {
    const { svc } = setup();
    const none = await svc(['open', 'prospects', '5']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^hint: set it once, e.g. `svc config set appUrl/m);
    await svc(['config', 'set', 'appUrl', 'https://app.example.com/{path}/{id}']);
    const type = await svc(['open', 'prospcts', '5']);
    expect(type.code).toBe(2);
    expect(type.stderr).toMatch(/unknown type "prospcts" \(did you mean "prospects"\?\)/);
  });
});
