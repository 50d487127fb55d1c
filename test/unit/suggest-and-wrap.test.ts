/** The "did you mean" helper, the scope of a request, and the help wrapper: pure logic. */
import { describe, expect, it } from 'vitest';
import { scopeForRequest } from '../../src/api/scope-hint.js';
import { wrapBlock, wrapLine } from '../../src/runtime/help-layout.js';
import { closest, didYouMean, editDistance } from '../../src/suggest.js';

describe('closest', () => {
  it.each([
    ['lst', ['list', 'get', 'create'], 'list'],
    ['acount', ['account', 'owner', 'stage'], 'account'],
    ['titl', ['title', 'firstName'], 'title'],
    ['updatedA', ['updatedAt', 'createdAt'], 'updatedAt'],
    ['wrok', ['work', 'staging'], 'work'],
    ['Title', ['title'], 'title'],
    ['zzzzqqq', ['title', 'firstName'], undefined],
    ['ab', ['list', 'get'], undefined],
    ['list', ['list', 'lists'], undefined],
  ])('%s among %j → %s', (given, candidates, want) => {
    expect(closest(given, candidates)).toBe(want);
  });

  it('counts a swap of two neighbours as one edit', () => {
    expect(editDistance('frist', 'first')).toBe(1);
    expect(didYouMean('frist', ['first'])).toBe(' (did you mean "first"?)');
    expect(didYouMean('nothing', [])).toBe('');
  });
});

describe('scopeForRequest', () => {
  const base = new URL('http://h/api/v2/');
  it.each([
    ['GET', 'http://h/api/v2/prospects', 'prospects.read'],
    ['GET', 'http://h/api/v2/prospects/5', 'prospects.read'],
    ['PATCH', 'http://h/api/v2/sequenceStates/5', 'sequenceStates.write'],
    ['POST', 'http://h/api/v2/sequenceStates/5/actions/finish', 'sequenceStates.write'],
    ['DELETE', 'http://h/api/v2/accounts/1', 'accounts.delete'],
    ['GET', 'http://h/api/v2/', undefined],
    ['GET', 'http://h/api/v2/nosuch', undefined],
    ['GET', 'http://h/other/prospects', undefined],
  ])('%s %s → %s', (method, url, want) => {
    expect(scopeForRequest(method, new URL(url), base)).toBe(want);
  });
});

describe('wrapLine', () => {
  it('wraps at spaces with a hanging indent and never exceeds the width', () => {
    const line = '  name      string    one of: ' + Array.from({ length: 30 }, (_, i) => `value${i}`).join(', ');
    const out = wrapLine(line, 40, 12);
    expect(out.length).toBeGreaterThan(3);
    for (const l of out) expect(l.length).toBeLessThanOrEqual(40);
    expect(out.slice(1).every((l) => l.startsWith(' '.repeat(12)) && l[12] !== ' ')).toBe(true);
    expect(out.join(' ').replace(/\s+/g, ' ')).toBe(line.replace(/\s+/g, ' ').replace(/^ /, ' '));
  });

  it('cuts a word longer than the width rather than overflow', () => {
    const out = wrapLine(`  ${'x'.repeat(100)}`, 30);
    for (const l of out) expect(l.length).toBeLessThanOrEqual(30);
    expect(out.join('').replace(/\s/g, '')).toBe('x'.repeat(100));
  });

  it('keeps short lines and blank lines as they are; a wrapped $ command continues under its words', () => {
    expect(wrapBlock('a\n\n  b\n', 80)).toBe('a\n\n  b\n');
    const out = wrapBlock(`  $ svc ${'word '.repeat(20).trim()}`, 40).split('\n');
    expect(out[1]).toMatch(/^ {6}\S/);
  });
});
