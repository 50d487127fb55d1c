/**
 * The one rule for a write that cannot be taken back lightly (a delete, an undo or a merge that
 * deletes, removing a profile or run records): `--yes` goes on; on a terminal the person is asked,
 * default no; anywhere else (a script, CI, `</dev/null`) it is refused, exit 2, nothing done —
 * never asked of a stdin no one types into, never done unasked. `delete`, a bulk delete, `runs
 * undo`, `runs prune`, `dedupe apply` and `profiles remove` each wrote this rule out, and one
 * read only stdin.
 */
import { UsageError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';

interface Confirmation {
  /** What is refused without --yes: `delete 3 prospects` ("refusing to delete 3 prospects without --yes"). */
  refuse: string;
  /** The hint lines of the refusal: how to look first, how to go on. */
  hints?: string[];
  /** The question on a terminal (answered no by default). */
  question: string;
  /** Said on stderr when the person answers no. */
  declined: string;
}

/** @returns true to go on; false when the person answered no (`declined` said). */
export async function confirmOrYes(ctx: Context, c: Confirmation): Promise<boolean> {
  if (ctx.globals.yes) return true;
  if (!ctx.io.stdinIsTTY || !ctx.io.stderrIsTTY) {
    const err = new UsageError(`refusing to ${c.refuse} without --yes (not an interactive terminal)`);
    for (const h of c.hints ?? []) err.hint(h);
    throw err;
  }
  if (await (await ctx.prompter()).confirm(c.question, false)) return true;
  ctx.info(c.declined);
  return false;
}
