/**
 * Output gathered as bytes in pieces of ~64 KB: ndjson's listing path, which copies each record's
 * attributes from the page's bytes (recordLine in flatten.ts) instead of decoding them to a string
 * and encoding that string again for stdout: for records of 150 custom fields that was ~4 KB of
 * text made and dropped per record.
 */
import type { LineSink } from '../listing/record-text.js';
import { writeOut } from './io.js';

// Performance machinery (src/README.md, Build): ndjson lines copied as bytes.
/** Size of a piece: streaming, and small enough for the allocator to reuse freed memory. */
const CHUNK = 1 << 16;

/** A {@link LineSink} that fills pieces of bytes; the caller writes them out as they fill. */
export class ByteChunks implements LineSink {
  private buf = Buffer.allocUnsafe(CHUNK);
  private at = 0;
  private ready: Buffer[] = [];

  text(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.at + s.length * 3 > this.buf.length) this.next(s.length * 3);
    this.at += this.buf.write(s, this.at);
  }

  bytes(page: Buffer, start: number, end: number): void {
    const n = end - start;
    if (this.at + n > this.buf.length) this.next(n);
    page.copy(this.buf, this.at, start, end);
    this.at += n;
  }

  /** True when a piece is full, to be written before more is added. */
  get full(): boolean {
    return this.ready.length > 0;
  }

  /** Writes the full pieces (and, with `all`, the one being filled), waiting for drain. */
  async writeTo(out: NodeJS.WritableStream, all = false): Promise<void> {
    if (all && this.at > 0) this.next(0);
    const pieces = this.ready;
    this.ready = [];
    for (const piece of pieces) await writeOut(out, piece);
  }

  /** Starts a new piece with room for `need` bytes. */
  private next(need: number): void {
    if (this.at > 0) this.ready.push(this.buf.subarray(0, this.at));
    this.buf = Buffer.allocUnsafe(Math.max(CHUNK, need));
    this.at = 0;
  }
}
