/**
 * Makes sure that following a server's `links.next` ends: a link back to a page already fetched
 * (the page itself, or a cycle), or a page that brings no record the page before did not already
 * have, is a server fault — followed, it would be requested forever. Paging stops with an error
 * naming the link instead.
 */
import { ApiError } from '../errors.js';
import type { ResourceObject } from './jsonapi.js';
import { redactUrl } from './redact.js';

/** The page a URL asks for, whatever page size it names (the client changes that); offset 0 is no offset. */
function pageKey(url: URL): string {
  const u = new URL(url);
  u.searchParams.delete('page[limit]');
  u.searchParams.delete('page[size]');
  if (u.searchParams.get('page[offset]') === '0') u.searchParams.delete('page[offset]');
  u.searchParams.sort();
  u.hash = '';
  return u.toString();
}

function noProgress(detail: string): ApiError {
  return new ApiError(200, [{ title: 'paging made no progress', detail }]);
}

/** One listing's pages, as they are requested and arrive. */
export class PagingGuard {
  private readonly fetched = new Set<string>();
  private lastIds: ReadonlySet<string> = new Set();

  /** A page is requested (whether from a link or computed by the client). */
  requested(url: URL): void {
    this.fetched.add(pageKey(url));
  }

  /**
   * Checks a `links.next` before it is followed.
   * @throws ApiError when it leads to a page already requested
   */
  follow(link: URL): void {
    if (this.fetched.has(pageKey(link))) {
      throw noProgress(`the server's links.next ${redactUrl(link)} leads back to a page already fetched; stopped there`);
    }
  }

  /**
   * Checks the records of a page that has arrived.
   * @param url the request that brought them
   * @throws ApiError when every record was on the page before
   */
  arrived(url: URL, records: readonly ResourceObject[]): void {
    const ids = new Set(records.map((r) => String(r.id)));
    const repeated = records.length > 0 && [...ids].every((id) => this.lastIds.has(id));
    this.lastIds = ids;
    if (repeated) {
      throw noProgress(`the page at ${redactUrl(url)} holds only records the page before already had; stopped there`);
    }
  }
}
