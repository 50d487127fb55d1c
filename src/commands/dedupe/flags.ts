/** What the wiring of `svc dedupe` parses and the handlers read (apart, so neither imports the other). */
import type { BulkFlags } from '../bulk-run/session.js';

/** `svc dedupe prospects|accounts`. */
export interface FindFlags {
  by?: string;
  minScore?: string;
  region?: string;
  keep?: string;
  /** `--plan FILE`: where the merge plan goes. */
  plan?: string;
  db?: string;
  schema?: string;
}

/** `svc dedupe apply FILE`. */
export interface ApplyFlags extends Omit<BulkFlags, 'input'> {
  /** Preview: the plan and the request bill, nothing written. */
  plan?: boolean;
  tagOnly?: boolean;
  acrossOwners?: boolean;
}
