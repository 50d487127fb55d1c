/**
 * A lone UTF-16 surrogate — which a JSON input can carry as `"\ud800"` — in a query value or key
 * is sent as U+FFFD instead of making encodeURIComponent throw "URI malformed" (an unexpected
 * failure the fuzz tests found with `--filter custom151=\ud800`).
 */
import { describe, expect, it } from 'vitest';
import { encodeQuery, wellFormed } from '../../../src/api/query.js';

describe('encodeQuery with lone surrogates', () => {
  it('replaces them, keeps pairs intact', () => {
    expect(wellFormed('a\ud800b\udc00c')).toBe('a\ufffdb\ufffdc');
    expect(wellFormed('😀')).toBe('😀');
    expect(encodeQuery([['filter[emails]', 'x\ud800@y.test,😀']])).toBe('filter[emails]=x%EF%BF%BD%40y.test,%F0%9F%98%80');
    expect(encodeQuery([['filter[\udfff]', 'v']])).toBe('filter[%EF%BF%BD]=v');
  });
});
