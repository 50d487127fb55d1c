/**
 * `--query` within bounds: expressions that build exponentially more than they are given, or run
 * on, stop with one usage error naming the fix, quickly and without the memory they ask for;
 * ordinary expressions over large inputs are not affected.
 */
import { compile, TreeInterpreter } from '@jmespath-community/jmespath';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { boundedSearch, boundedSearcher, boundedSize, QUERY_LIMITS } from '../../../src/output/query-bounds.js';
import { compileQuery } from '../../../src/output/query.js';

const records = Array.from({ length: 50 }, (_, i) => ({ id: i + 1, firstName: `Ada ${i}`, emails: [`ada${i}@example.com`] }));

/**
 * A search with a smaller size budget than --query's 64 MiB: the same bounded interpreter, each
 * case stopped after building a few MiB instead of 64 (about half a CPU-second each). The default
 * budget itself is checked through compileQuery by the first case of each kind.
 */
const SMALL_BUDGET = { ...QUERY_LIMITS, minChars: 4 * 2 ** 20 };

function refused(expression: string, data: unknown = records, small = false): UsageError {
  // CPU time, not wall time: the search is synchronous, and on a loaded machine (CI, other test
  // files) the wall clock also counts the time other processes held the cores.
  const started = process.cpuUsage();
  let err: unknown;
  try {
    if (small) boundedSearch(compile(expression), data, SMALL_BUDGET);
    else compileQuery(expression).search(data);
  } catch (e) {
    err = e;
  }
  expect(err, expression).toBeInstanceOf(UsageError);
  const cpu = process.cpuUsage(started);
  expect((cpu.user + cpu.system) / 1000, expression).toBeLessThan(8_000);
  const message = (err as Error).message;
  expect(message).not.toContain('\n');
  return err as UsageError;
}

describe('--query bounds', () => {
  it('a list doubled again and again is stopped where it passes the budget', () => {
    const e = refused(Array(40).fill('[@,@] | []').join(' | '));
    expect(e.message).toMatch(/^--query: the expression builds more than 64 MiB \(4× its input at most\): filter or pick fields first/);
    expect(e.exitCode).toBe(2);
  });

  it('a value that holds the same list twice, forty times over, is not written out (nor serialised by to_string)', () => {
    refused(Array(40).fill('[@,@]').join(' | '));
    const small = (expression: string) => {
      const e = refused(expression, records, true);
      expect(e.message, expression).toMatch(/^--query: the expression builds more than 4 MiB/);
    };
    small(`to_string(${Array(40).fill('[@,@]').join(' | ')})`.replace('to_string(', 'to_string(@ | ') + '');
    small(`${Array(40).fill('[@,@]').join(' | ')} | to_string(@)`);
    small(`${Array(30).fill('[@,@]').join(' | ')} | [] | [] | join(',', [].to_string(@))`);
  });

  it('padding and replacing past the budget are refused before the string is built', () => {
    refused("pad_right('x', `400000000`)");
    refused("pad_left('', `100000000`, '-')");
    refused(
      `replace(join('', [${Array(16).fill("'aaaaaaaaaaaaaaaa'").join(',')}]), 'a', '${'b'.repeat(1000)}') | replace(@, 'b', '${'c'.repeat(1000)}')`,
    );
  });

  it('an evaluation past its deadline stops with the time bound named', () => {
    let t = 0;
    const now = () => (t += 1_000);
    const node = compile('map(&map(&map(&@, $), $), @)');
    let err: unknown;
    try {
      boundedSearch(node, records, QUERY_LIMITS, now);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(
      '--query: the expression ran longer than 10 s: filter or pick fields first, or post-process -o json with jq',
    );
    // Inside let scopes too (they get interpreters of their own).
    t = 0;
    expect(() => boundedSearch(compile('let $x = @ in $x[*].[$x[*].[$x[*].id]]'), records, QUERY_LIMITS, now)).toThrow(/longer than 10 s/);
  });

  it('ordinary expressions, large results of large inputs and let scopes answer as before', () => {
    const big = Array.from({ length: 20_000 }, (_, i) => ({ id: i, title: 'x'.repeat(200), emails: [`p${i}@example.com`] }));
    expect(compileQuery('sort_by(@, &id)[-1].id').search(big)).toBe(19_999);
    expect((compileQuery('[@, @, @] | []').search(big) as unknown[]).length).toBe(60_000);
    expect(compileQuery('let $n = length(@) in [?id < `2`].{id: id, of: $n}').search(big)).toEqual([
      { id: 0, of: 20_000 },
      { id: 1, of: 20_000 },
    ]);
    expect(compileQuery("pad_left(to_string(length(@)), `8`, '0')").search(big)).toBe('00020000');
  });

  it('boundedSize counts a shared list as often as it would be written, and stops past the cap', () => {
    const l = [1, 'ab'];
    expect(boundedSize([l, l], 1_000)).toBe(boundedSize(JSON.parse(JSON.stringify([l, l])), 1_000));
    let v: unknown = l;
    for (let i = 0; i < 60; i++) v = [v, v];
    expect(boundedSize(v, 10_000)).toBe(Infinity);
  });

  it('costs a record-by-record answer a small multiple of the unbounded search (one interpreter for every call)', () => {
    const node = compile('[].{id: id, email: emails[0]}');
    const rec = [records[0]] as Parameters<typeof TreeInterpreter.search>[1];
    const bounded = boundedSearcher();
    const time = (f: () => unknown) => {
      const t = performance.now();
      for (let i = 0; i < 20_000; i++) f();
      return performance.now() - t;
    };
    // The best of three rounds each, interleaved: the machine's other load falls on both.
    let plain = Infinity;
    let ours = Infinity;
    for (let round = 0; round < 3; round++) {
      plain = Math.min(
        plain,
        time(() => TreeInterpreter.search(node, rec)),
      );
      ours = Math.min(
        ours,
        time(() => bounded(node, rec)),
      );
    }
    // The bounds cost about 2-3× an unbounded search of one record; an interpreter built per call cost 50×.
    expect(ours).toBeLessThan(plain * 10 + 50);
  });
});
