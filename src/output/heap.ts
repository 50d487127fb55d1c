/**
 * Memory policy for long streaming outputs (`list --all`): pages of 1,000 records with hundreds
 * of fields are ~5 MB of JSON each, garbage a moment later, much of it large strings that only a
 * full collection frees. With V8's defaults such a process grows to ~200 MB before collecting
 * (the old generation may grow to several times what is live). A growing factor of 1.2 holds
 * 100,000 records to ~140 MB for ~10 % more collector time (bench/list.mjs measures both). V8
 * reads the flag each time it sizes the heap, so setting it at run time takes effect.
 */
import { setFlagsFromString } from 'node:v8';

let applied = false;

/** Applies the policy to this process (once). */
export function keepHeapNearLiveSize(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString('--heap-growing-percent=20');
}
