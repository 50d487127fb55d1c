/**
 * Stable keys of input rows, for the journal and for `--shard`.
 *
 * A row's key is a hash of what the run does with it (the operation and target) and of the
 * row's content, plus `#n` for the n-th identical row. A rerun therefore recognises the rows it
 * did even when rows were added, removed or reordered in between, and does again a row whose
 * content was edited (an update with new values is new work).
 */
import { createHash } from 'node:crypto';

/** Assigns keys to rows in input order. */
export class RowKeys {
  /**
   * How many times each content was seen, for identical rows. Keyed by 48 bits of the hash (a
   * number keeps the map small: a few MB for 100,000 rows); a collision between two different
   * rows only adds a `#2` to the second one's key, the same way in every run.
   */
  private seen = new Map<number, number>();

  /** @param scope what the run does (`create prospect`, `enroll 3 mailbox 1`) */
  constructor(private readonly scope: string) {}

  /** The key of the next row with this content (a string, or any JSON value). */
  next(content: unknown): string {
    const text = typeof content === 'string' ? content : JSON.stringify(content);
    const digest = createHash('sha256')
      .update(this.scope)
      .update('\0')
      .update(text ?? 'null')
      .digest();
    const hash = digest.toString('base64url').slice(0, 22);
    const short = digest.readUIntBE(0, 6);
    const n = (this.seen.get(short) ?? 0) + 1;
    this.seen.set(short, n);
    return n === 1 ? hash : `${hash}#${n}`;
  }
}
