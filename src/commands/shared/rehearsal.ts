/**
 * Rehearsals on an anonymised copy (`--sandbox-data FILE`): the input values of its anonymised
 * fields are matched and written as the fakes the copy holds, with the key kept beside it
 * (local-sandbox/rehearsal-key.ts, bulk/input-mask.ts).
 */
import path from 'node:path';
import type { InputMask } from '../../bulk/input-mask.js';
import type { Context } from '../../runtime/context.js';

const masks = new WeakMap<Context, Promise<InputMask | undefined>>();

/** The mask of the copy this command rehearses on, or undefined (no copy, or one not anonymised); said once. */
export function rehearsalMask(ctx: Context): Promise<InputMask | undefined> {
  let m = masks.get(ctx);
  if (!m) {
    m = readMask(ctx);
    masks.set(ctx, m);
  }
  return m;
}

async function readMask(ctx: Context): Promise<InputMask | undefined> {
  const file = ctx.globals.sandboxData;
  if (file === undefined) return undefined;
  // Performance machinery (README.md, Build): the anonymiser is loaded only for a rehearsal.
  const { readRehearsalMask } = await import('../../local-sandbox/rehearsal-key.js');
  const r = readRehearsalMask(path.resolve(file));
  if (r.mask) {
    ctx.info('rehearsal on an anonymised copy: input values of its anonymised fields are matched and written as its fakes');
    return r.mask;
  }
  if (r.missing)
    ctx.warn(
      `${r.missing}: e-mail addresses, names and other anonymised values are used as written and will not match the copy's fakes; make the copy again (svc sandbox --from-profile) to get its key`,
    );
  return undefined;
}
