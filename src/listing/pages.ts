/**
 * The pages of a listing (`list`, `export`): api/paginate.ts with the listing's page reader. Each
 * page's body is read into memory used again two pages later (page-buffers.ts) and parsed from
 * its bytes (page-parse.ts), its records' attributes and relationships left as text until read.
 * A page's records are valid until the caller asks for the next page (or stops): paging hands
 * the page's memory back then, and a record read later fails with an internal error.
 */
import type { Page, PageClient, PaginateOptions, PageReader } from '../api/paginate.js';
import { paginate } from '../api/paginate.js';
import { PageBuffers } from './page-buffers.js';
import { parseCollection, unparsedMembers } from './page-parse.js';
import { PageScanner } from './relationship-scan.js';

/** Pages of resources, read and parsed the listing's way (see the module comment). */
export function listPages(client: PageClient, path: string, opts: Omit<PaginateOptions, 'reader'>): AsyncGenerator<Page> {
  return paginate(client, path, { ...opts, reader: pageReader() });
}

/** The reader of one listing's pages: its own two buffers, and one scanner for all its pages. */
function pageReader(): PageReader {
  const buffers = new PageBuffers();
  const scanner = new PageScanner();
  return {
    take: (size) => buffers.take(size),
    parse: (body) => parseCollection(body, undefined, scanner),
    unparsed: unparsedMembers,
    release: (body) => buffers.release(body),
  };
}
