/**
 * quoteWord writes a word so that a POSIX shell reads it back as it is (the command lines svc
 * records and names in hints), and splitWords, svc's own reader of such lines, agrees.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { quoteWord, splitWords } from '../../src/shell-words.js';

const WORDS = ['plain', '--sandbox-data', '/tmp/temp 一時/org.json', "it's", 'a*b', '$HOME', 'x;rm -rf', '--attr=secret=***', ''];

describe('quoteWord', () => {
  it('leaves plain words alone and quotes the rest', () => {
    expect(quoteWord('--profile')).toBe('--profile');
    expect(quoteWord('my org.json')).toBe("'my org.json'");
    expect(quoteWord("it's")).toBe("'it'\\''s'");
  });

  it('is read back word for word by sh and by splitWords', () => {
    const line = WORDS.map(quoteWord).join(' ');
    expect(splitWords(line)).toEqual(WORDS);
    const out = execFileSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' });
    expect(out.split('\n').slice(0, -1)).toEqual(WORDS);
  });
});
