/**
 * `--shard i/n`: several machines share one input, each taking the rows whose number r
 * satisfies (r − 1) mod n = i − 1 (i counts from 1, as in `jest --shard` and `playwright
 * --shard`). Row numbers depend only on the file, so every machine with the same file agrees,
 * and the n shards together take every row exactly once.
 */
import { UsageError } from '../../errors.js';

/** A parsed `--shard`. */
export interface Shard {
  /** 1-based index. */
  index: number;
  count: number;
}

/** Parses `i/n` with 1 ≤ i ≤ n. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new UsageError(`--shard ${text}: expected i/n, e.g. 2/4 for the second of four shards`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard ${text}: i must be between 1 and n (n ≥ 1)`);
  }
  return { index, count };
}

/** True when row number `row` (1-based) belongs to the shard; every row without a shard. */
export function inShard(shard: Shard | undefined, row: number): boolean {
  return !shard || (row - 1) % shard.count === shard.index - 1;
}
