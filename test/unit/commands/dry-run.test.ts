/** The one `--dry-run` format: request line, headers, a blank line before a body, notes. */
import { describe, expect, it } from 'vitest';
import { dryRunText } from '../../../src/commands/shared/dry-run.js';

describe('dryRunText', () => {
  it('a write: method, URL, the body indented', () => {
    expect(dryRunText([{ method: 'PATCH', url: new URL('http://h/api/v2/prospects/1'), body: { data: { id: 1 } } }])).toBe(
      'PATCH http://h/api/v2/prospects/1\n{\n  "data": {\n    "id": 1\n  }\n}\n',
    );
  });
  it('no body: the request line only', () => {
    expect(dryRunText([{ method: 'DELETE', url: 'http://h/x/1' }])).toBe('DELETE http://h/x/1\n');
  });
  it('headers, then a blank line before the body (as on the wire)', () => {
    expect(dryRunText([{ method: 'POST', url: 'http://h/', headers: { a: '1', token: '***' }, body: [1] }])).toBe(
      'POST http://h/\na: 1\ntoken: ***\n\n[\n  1\n]\n',
    );
    expect(dryRunText([{ method: 'POST', url: 'http://h/', headers: { Authorization: 'Bearer ***' } }])).toBe(
      'POST http://h/\nAuthorization: Bearer ***\n',
    );
  });
  it('several requests, then notes in parentheses', () => {
    expect(
      dryRunText(
        [
          { method: 'GET', url: 'http://h/a' },
          { method: 'GET', url: 'http://h/b' },
        ],
        ['would write /tmp/f'],
      ),
    ).toBe('GET http://h/a\nGET http://h/b\n(would write /tmp/f)\n');
  });
});
