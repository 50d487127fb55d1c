/**
 * Memory policy for long streaming outputs (`list --all`): pages of 1,000 records with hundreds
 * of fields are ~5 MB of JSON and ~15 MB once parsed, all garbage a moment later. V8's default
 * lets the old generation grow to several times what is live before collecting it (~200 MB for
 * 100,000 such records); a growing factor of 1.5 keeps the process near what is live (~135 MB)
 * for ~5-10 % more collector time. V8 reads the flag each time it sizes the heap, so setting it
 * at run time takes effect.
 */
import { setFlagsFromString } from 'node:v8';

let applied = false;

/** Applies the policy to this process (once). */
export function keepHeapNearLiveSize(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString('--heap-growing-percent=50');
}
