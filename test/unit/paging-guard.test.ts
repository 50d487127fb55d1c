/** The paging guard: a link back to a page already fetched, or a page of nothing new, stops paging. */
import { describe, expect, it } from 'vitest';
import { PagingGuard } from '../../src/api/paging-guard.js';

const u = (q: string) => new URL(`http://api.test/api/v2/prospects?${q}`);
const recs = (...ids: number[]) => ids.map((id) => ({ type: 'prospect', id }));

describe('PagingGuard', () => {
  it('a link to a page already requested is refused, whatever page size or parameter order it names', () => {
    const g = new PagingGuard();
    g.requested(u('sort=id&page[limit]=1000'));
    expect(() => g.follow(u('page[offset]=1000&sort=id&page[limit]=1000'))).not.toThrow();
    expect(() => g.follow(u('page[limit]=7&page[offset]=0&sort=id'))).toThrow(
      /paging made no progress: the server's links\.next .* leads back to a page already fetched/,
    );
    expect(() => g.follow(u('sort=id&page[size]=3'))).toThrow(/leads back/);
  });

  it('a page whose records were all on the page before is refused; some overlap is not', () => {
    const g = new PagingGuard();
    g.arrived(u('page[offset]=0'), recs(1, 2, 3));
    expect(() => g.arrived(u('page[offset]=3'), recs(3, 4, 5))).not.toThrow();
    expect(() => g.arrived(u('page[offset]=6'), recs(5, 4))).toThrow(
      /the page at \S+page\[offset\]=6 holds only records the page before already had/,
    );
  });

  it('an empty page is no repetition (the listing ends there anyway)', () => {
    const g = new PagingGuard();
    g.arrived(u(''), []);
    expect(() => g.arrived(u('page[offset]=0'), [])).not.toThrow();
  });

  it('secrets in a link are not printed', () => {
    const g = new PagingGuard();
    g.requested(u('token=abc123secret'));
    expect(() => g.follow(u('token=abc123secret'))).toThrow(/token=\*\*\*/);
  });
});
