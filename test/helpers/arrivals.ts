/**
 * Each request as it reaches a test's sandbox, with when it arrived, for tests that count a
 * sandbox's requests by window. The record itself is kept: the sandbox fills in its status and
 * body only when it answers, so they are read after the runs. Both budget tests once copied the
 * status at arrival, when none is set yet, and so counted no 429 whatever the sandbox answered.
 */
import type { TestSandbox } from './sandbox.js';

/** A request and when it reached the sandbox. */
export interface Arrival {
  at: number;
  rec: TestSandbox['requests'][number];
}

/**
 * Calls `fn` with each request a sandbox records, just after it is in `requests` (the sandbox's
 * `requests` array: its push is wrapped); gives the function that unwraps it.
 */
export function afterRecorded<T>(requests: T[], fn: (recs: T[]) => void): () => void {
  const push = requests.push;
  requests.push = function (this: T[], ...recs: T[]) {
    const n = push.apply(this, recs);
    fn(recs);
    return n;
  };
  return () => {
    requests.push = push;
  };
}

/** Records every request `sb` takes from now on into the returned list. */
export function watchArrivals(sb: TestSandbox): Arrival[] {
  const seen: Arrival[] = [];
  afterRecorded(sb.requests, (recs) => {
    for (const rec of recs) seen.push({ at: Date.now(), rec });
  });
  return seen;
}

/** When the first request whose body holds `text` arrived; Infinity when none did. */
export function firstArrival(seen: readonly Arrival[], text: string): number {
  return seen.find(({ rec }) => rec.body.includes(text))?.at ?? Number.POSITIVE_INFINITY;
}
