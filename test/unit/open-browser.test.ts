import { describe, expect, it } from 'vitest';
import { browserArgv } from '../../src/commands/shared/open-browser.js';
import { splitWords as commandWords } from '../../src/shell-words.js';

describe('$BROWSER entries', () => {
  it('split into words like a shell would, without running one', () => {
    expect(commandWords('firefox --new-tab')).toEqual(['firefox', '--new-tab']);
    expect(commandWords(`'/opt/My Browser/run' "a b" c\\ d ''`)).toEqual(['/opt/My Browser/run', 'a b', 'c d', '']);
    expect(commandWords('  ')).toEqual([]);
  });

  it('take the URL where %s is, else as the last argument; the URL stays one word', () => {
    const url = 'http://127.0.0.1:1/authorize?a=1&b=$(rm -rf x) `y`';
    expect(browserArgv('lynx', url)).toEqual(['lynx', url]);
    expect(browserArgv('chromium --app=%s', url)).toEqual(['chromium', `--app=${url}`]);
  });
});
