/**
 * Memory policy for long streaming outputs (`list --all`): pages of 1,000 records with hundreds
 * of fields are ~5 MB of JSON each, garbage a moment later. With V8's defaults such a process
 * grows to ~230 MB before collecting (the young generation grows to 2 × 16 MB, the old one to
 * several times what is live). Keeping the young generation at its initial size and the old one
 * within twice the live size holds 100,000 records to ~120 MB for ~10 % more time (measured by
 * bench/list.mjs). V8 reads both flags each time it sizes the heap, so setting them at run time
 * takes effect.
 */
import { setFlagsFromString } from 'node:v8';

let applied = false;

/** Applies the policy to this process (once). */
export function keepHeapNearLiveSize(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=100');
}
