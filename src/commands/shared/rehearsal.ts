/**
 * Rehearsals on an anonymised copy (`--sandbox-data FILE`): the input values of its anonymised
 * fields are matched and written as the fakes the copy holds, with the key kept beside it
 * (local-sandbox/rehearsal-key.ts, bulk/rows/input-mask.ts).
 */
import path from 'node:path';
import type { Filter } from '../../api/filter.js';
import type { InputMask } from '../../bulk/rows/input-mask.js';
import type { Context } from '../../runtime/context.js';
import { findRelationship, resourceByType } from '../../registry/index.js';

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
  // Performance machinery (src/README.md, Build): the anonymiser is loaded only for a rehearsal.
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

/**
 * A listing's filters as the copy holds their values, so that `--filter emails=ada@corp.com`
 * finds Ada's record in the copy, and `account.name=Acme` the prospects of her account. Ranges
 * are left as they are: the fakes keep no order.
 */
export async function maskQueryFilters(ctx: Context, type: string, query: { filters?: Filter[] }): Promise<void> {
  if (!query.filters) return;
  const mask = await rehearsalMask(ctx);
  if (!mask) return;
  query.filters = query.filters.map((f) => {
    if (f.kind === 'range') return f;
    // `account.name=Acme`: the value is one of the related type's, as the copy holds it.
    const owner = f.path.slice(0, -1).reduce<string | undefined>((t, rel) => {
      const rt = t ? resourceByType(t) : undefined;
      return rt ? findRelationship(rt, rel)?.target : undefined;
    }, type);
    if (!owner) return f;
    return { ...f, values: f.values.map((v) => mask.value(owner, f.path[f.path.length - 1]!, v)) };
  });
}
