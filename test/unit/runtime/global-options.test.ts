/**
 * The global options every command shares, read from commander's merged options and the
 * environment (runtime/global-options.ts): a flag wins over its variable, and a wrong value is a
 * usage error naming the fix.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { globalsFrom } from '../../../src/runtime/global-options.js';

describe('globalsFrom', () => {
  it('takes a flag over its SVC_ variable, and defaults the rest', () => {
    const g = globalsFrom({ profile: 'ci' }, { SVC_PROFILE: 'env', SVC_BASE_URL: 'https://api.example.com/api/v2' });
    expect(g).toMatchObject({ profile: 'ci', baseUrl: 'https://api.example.com/api/v2', timeoutMs: 30_000, sandbox: false });
    expect(g.maxResponseBytes).toBe(64 * 1024 * 1024);
  });

  it('--json fields, --query and an org file mean json output, fields kept, the sandbox', () => {
    expect(globalsFrom({ json: 'id, title' }, {})).toMatchObject({ output: 'json', jsonFields: ['id', 'title'] });
    expect(globalsFrom({ query: '[].id' }, {}).output).toBe('json');
    expect(globalsFrom({}, { SVC_SANDBOX_DATA: 'copy.json' })).toMatchObject({ sandbox: true, sandboxData: 'copy.json' });
    expect(globalsFrom({}, { SVC_SANDBOX: '0' }).sandbox).toBe(false);
  });

  it('--sandbox with a flag naming another API is refused; the sandbox from the environment says what it overrides', () => {
    // A leftover SVC_SANDBOX=1 sent a job meant for SVC_BASE_URL to a local sandbox, silently (a trial).
    expect(() => globalsFrom({ sandbox: true, baseUrl: 'https://api.example.com/api/v2' }, {})).toThrow(
      /^--base-url cannot go with --sandbox: the sandbox is a local server with a profile and token of its own$/,
    );
    expect(() => globalsFrom({ sandbox: true, profile: 'nosuch' }, {})).toThrow(/^--profile cannot go with --sandbox/);
    expect(() => globalsFrom({ sandboxData: 'copy.json', token: 't' }, {})).toThrow(/^--token cannot go with --sandbox-data/);
    const env = { SVC_SANDBOX: '1', SVC_BASE_URL: 'https://api.example.com/api/v2', SVC_TOKEN: 'prod-token' };
    expect(globalsFrom({}, env)).toMatchObject({
      sandbox: true,
      sandboxOverrides: { by: 'SVC_SANDBOX', names: ['SVC_BASE_URL', 'SVC_TOKEN'] },
    });
    expect(globalsFrom({ profile: 'prod' }, { SVC_SANDBOX: 'true' }).sandboxOverrides).toEqual({ by: 'SVC_SANDBOX', names: ['--profile'] });
    expect(globalsFrom({}, { SVC_SANDBOX_DATA: 'copy.json', SVC_TOKEN: 't' }).sandboxOverrides).toEqual({
      by: 'SVC_SANDBOX_DATA',
      names: ['SVC_TOKEN'],
    });
    // Asked for by flag, the sandbox wins over the environment without a word (a flag beats a variable).
    expect(globalsFrom({ sandbox: true }, env).sandboxOverrides).toBeUndefined();
    expect(globalsFrom({}, { SVC_BASE_URL: 'https://api.example.com/api/v2' }).sandboxOverrides).toBeUndefined();
  });

  it('refuses what cannot work, naming the fix', () => {
    expect(() => globalsFrom({ output: 'xml' }, {})).toThrow(UsageError);
    expect(() => globalsFrom({ output: 'xml' }, {})).toThrow(/unknown output format \(use table, json, ndjson, csv, raw\)/);
    expect(() => globalsFrom({ output: 'csv', query: '[].id' }, {})).toThrow(/--query works with -o json, ndjson or raw/);
    expect(() => globalsFrom({ json: 'id,,title' }, {})).toThrow(/expected field names separated by commas/);
    // One of the two was dropped without a word: a script asking for ndjson got a JSON array (a trial).
    expect(() => globalsFrom({ json: 'id,emails', output: 'ndjson' }, {})).toThrow(/^--json means -o json: it cannot go with -o ndjson$/);
    expect(() => globalsFrom({ json: true, output: 'csv' }, {})).toThrow(/^--json means -o json: it cannot go with -o csv$/);
    expect(globalsFrom({ json: 'id', output: 'json' }, {})).toMatchObject({ output: 'json', jsonFields: ['id'] });
  });
});
