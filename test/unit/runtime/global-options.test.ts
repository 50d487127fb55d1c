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

  it('refuses what cannot work, naming the fix', () => {
    expect(() => globalsFrom({ output: 'xml' }, {})).toThrow(UsageError);
    expect(() => globalsFrom({ output: 'xml' }, {})).toThrow(/unknown output format \(use table, json, ndjson, csv, raw\)/);
    expect(() => globalsFrom({ output: 'csv', query: '[].id' }, {})).toThrow(/--query works with -o json, ndjson or raw/);
    expect(() => globalsFrom({ json: 'id,,title' }, {})).toThrow(/expected field names separated by commas/);
  });
});
