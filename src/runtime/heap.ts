/**
 * Memory policy for long streaming outputs (`list --all`): pages of 1,000 records with hundreds
 * of fields are ~5 MB of JSON each, garbage a moment later, much of it large strings and buffers.
 * With V8's defaults such a process grows to ~200 MB (the young generation grows to 2 × 16 MB, and
 * the old one to several times what is live before a full collection). Keeping the young
 * generation at its initial size (buffers are freed sooner) and the old one within 2.5× the live
 * size holds 100,000 records to ~140 MB even against a server that answers at once, at the same
 * speed (bench/list.mjs measures both). V8 reads these flags each time it sizes the heap, so
 * setting them at run time takes effect.
 */
// Performance machinery (src/README.md, Build): V8 heap flags set at run time.
import { setFlagsFromString } from 'node:v8';

let applied = false;

/** Applies the policy to this process (once). */
export function keepHeapNearLiveSize(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=150');
}
