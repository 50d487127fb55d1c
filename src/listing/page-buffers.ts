/**
 * Memory for listing pages, used again from page to page. A page of 1,000 records is ~6 MB, and
 * a fresh buffer for each page is memory the process touches for the first time: on a virtual
 * machine that is a page fault per 4 KB, and over 100 pages it cost more than parsing them. A
 * streaming listing (`list --all`) holds at most two pages at a time (the one being written, the
 * next one arriving), so two buffers, handed back and forth, do.
 *
 * A buffer is handed back only when its page's records are done with (`release`), and handing it
 * back detaches the memory from every view of it: a record of that page read later (a bug) finds
 * its bytes gone and fails (page-parse.ts says so), instead of reading another page's records.
 */

// Performance machinery (src/README.md, Build): listing pages read into recycled buffers.
/** Buffers kept for reuse; a listing with a prefetch needs two. */
const KEEP = 2;
/** Larger pages (long mailing bodies) are not kept: the cap on a page is far higher than this. */
const MAX_KEPT = 16 * 1024 * 1024;

/** A pool of page buffers for one listing. */
export class PageBuffers {
  private free: ArrayBuffer[] = [];
  /** Buffers this pool made: only those are ever detached (never Node's shared small-buffer pool). */
  private readonly mine = new WeakSet<ArrayBuffer>();
  /** Buffers handed out that were used before: what the pool saved (tests). */
  reused = 0;

  /** A buffer of `size` bytes, from a released one when one is large enough. */
  take(size: number): Buffer {
    const i = this.free.findIndex((b) => b.byteLength >= size);
    if (i >= 0) {
      this.reused++;
      return this.view(this.free.splice(i, 1)[0]!, size);
    }
    // Room to grow: the next page of a listing is often a little larger.
    return this.view(Buffer.allocUnsafeSlow(size + (size >> 3)).buffer as ArrayBuffer, size);
  }

  private view(memory: ArrayBuffer, size: number): Buffer {
    this.mine.add(memory);
    return Buffer.from(memory, 0, size);
  }

  /** Gives back a buffer from {@link take}; every view of it is detached (length 0) from here on. */
  release(buf: Buffer): void {
    const memory = buf.buffer as ArrayBuffer;
    if (!this.mine.delete(memory)) return;
    // Transferring moves the memory to a new ArrayBuffer without copying and detaches the old one.
    const moved = structuredClone(memory, { transfer: [memory] });
    if (moved.byteLength > MAX_KEPT) return;
    if (this.free.length >= KEEP) this.free.shift();
    this.free.push(moved);
  }
}
