/**
 * `svc config get|set|list` (per-profile defaults a flag overrides), `svc alias set|list|delete`
 * (saved command lines, only for names that are no command), `svc open <type> <id>` and
 * `get --web` (the profile's appUrl; $BROWSER honoured; nothing sent to the API). What touches
 * only the config dir (config set/get/list, alias refusals) is checked in-process in
 * test/unit/commands/config/config-alias.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { sh } from '../helpers/tmux.js';
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
  return { env, svc: (args: string[], extra: Record<string, string> = {}) => svcInProcess(args, { env: { ...env, ...extra } }) };
}

describe('svc config', () => {
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
});

describe('svc open and get --web', () => {
  /** A $BROWSER that records the address it is given. */
  function fakeBrowser(): { browser: string; script: string; opened: () => string } {
    const dir = tempDir();
    const out = path.join(dir, 'opened');
    const script = path.join(dir, 'browser.sh');
    fs.writeFileSync(script, `#!/bin/sh\nprintf '%s' "$1" > '${out}'\n`, { mode: 0o755 });
    // $BROWSER is split into words as the shell would: a path with a space is quoted.
    return { browser: sh(script), script, opened: () => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '') };
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

  it('reads $BROWSER as login does: entries tried in turn, each split into words as the shell would', async () => {
    const { svc } = setup();
    await svc(['config', 'set', 'appUrl', 'https://app.example.com/{path}/{id}']);
    const b = fakeBrowser();
    const spaced = path.join(path.dirname(b.script), 'my browser.sh');
    fs.renameSync(b.script, spaced);
    const r = await svc(['open', 'prospects', '5'], { BROWSER: `svc-no-such-browser:'${spaced}' %s` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/could not start/);
    expect(await waitFor(b.opened)).toBe('https://app.example.com/prospects/5');
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
