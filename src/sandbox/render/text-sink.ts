/**
 * Collects a large JSON document as UTF-8 chunks. A page of 1,000 prospects is 5.7 MB of text:
 * kept as JS strings until the end, all of it would survive young-generation collections (each
 * one copying megabytes); encoded every 64 KB, the strings die young and the bytes live outside
 * the JS heap.
 */
const CHUNK = 64 * 1024;

/** Appends strings; {@link TextSink.finish} returns the document. */
export class TextSink {
  private pending = '';
  private chunks: Buffer[] = [];
  private bytes = 0;

  add(s: string): void {
    this.pending += s;
    if (this.pending.length >= CHUNK) this.flush();
  }

  private flush(): void {
    const b = Buffer.from(this.pending, 'utf8');
    this.chunks.push(b);
    this.bytes += b.length;
    this.pending = '';
  }

  /** The document: a string when it stayed small, else one Buffer. */
  finish(): string | Buffer {
    if (!this.chunks.length) return this.pending;
    if (this.pending) this.flush();
    return Buffer.concat(this.chunks, this.bytes);
  }
}
