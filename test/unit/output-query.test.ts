import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { compileQuery, errorColumn } from '../../src/output/query.js';

const records = [
  { id: '1', type: 'prospect', firstName: 'Ada', title: 'CEO', emails: ['ada@example.com'] },
  { id: '2', type: 'prospect', firstName: 'Bob', title: 'CTO', emails: [] },
];

describe('compileQuery', () => {
  it('applies JMESPath to a value', () => {
    expect(compileQuery('[].firstName').search(records)).toEqual(['Ada', 'Bob']);
    expect(compileQuery("[?title=='CEO'].{id: id, email: emails[0]}").search(records)).toEqual([{ id: '1', email: 'ada@example.com' }]);
    expect(compileQuery('length(@)').search(records)).toBe(2);
  });

  it('names the column of a syntax error, with a caret under it', () => {
    const cases: [string, number][] = [
      ['[?title==', 10], // ends too soon: the column after the end
      ['a.b ^ c', 5], // unknown character
      ['a[}', 3], // a token that cannot follow
      ['[].{id: id', 11],
    ];
    for (const [expr, column] of cases) {
      expect(errorColumn(expr), expr).toBe(column);
      let err: unknown;
      try {
        compileQuery(expr);
      } catch (e) {
        err = e;
      }
      expect(err, expr).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toContain(`syntax error at column ${column}`);
      expect((err as UsageError).hints[0]).toBe(expr);
      expect((err as UsageError).hints[1]).toMatch(new RegExp(`^ {${column - 1}}\\^`));
    }
  });

  it('an empty expression and a failure on the data are usage errors', () => {
    expect(() => compileQuery('  ')).toThrow(UsageError);
    const q = compileQuery('nosuchfn(@)');
    expect(() => q.search(records)).toThrow(/--query: .*nosuchfn/i);
  });
});
