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
  /** How many times each content hash was seen, for identical rows. */
  private seen = new Map<string, number>();

  /** @param scope what the run does (`create prospect`, `enroll 3 mailbox 1`) */
  constructor(private readonly scope: string) {}

  /** The key of the next row with this content (a string, or any JSON value). */
  next(content: unknown): string {
    const text = typeof content === 'string' ? content : JSON.stringify(content);
    const hash = createHash('sha256').update(this.scope).update('\0').update(text ?? 'null').digest('base64url').slice(0, 22);
    const n = (this.seen.get(hash) ?? 0) + 1;
    this.seen.set(hash, n);
    return n === 1 ? hash : `${hash}#${n}`;
  }
}
