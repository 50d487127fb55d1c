/**
 * The text of a response body. A body of ASCII only is decoded as Latin-1 (the same
 * characters): for a body over ~1 MB Node keeps such a string outside V8's heap, where making
 * it costs a copy, while UTF-8 decoding builds a fresh large object in the heap. On a virtual
 * machine where fresh memory is slow to fault in, that was ~20 ms of a 5.7 MB listing page
 * against ~3 ms (bench/RESULTS.md: list throughput). Any other body is decoded as UTF-8.
 */
import { isAscii } from 'node:buffer';

// Performance machinery (src/README.md, Build): ASCII bodies decoded as Latin-1.
/** `body` as text (UTF-8; invalid sequences become U+FFFD, as `Buffer#toString` does). */
export function bodyText(body: Buffer): string {
  return body.toString(isAscii(body) ? 'latin1' : 'utf8');
}
