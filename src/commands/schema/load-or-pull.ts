/**
 * The org schema for names only the org can answer (a custom-field label, a field the spec does
 * not show): the profile's cache, or, when there is none, one pull (two requests) that caches it
 * — as bulk input does for its columns — so that labels work without `svc schema pull` first and
 * a name that is no field is refused before anything else is sent.
 */
import type { Context } from '../../runtime/context.js';
import type { OrgSchema } from '../../org-schema/types.js';
import { loadOrgSchema } from './load.js';
import { pullOrgSchema } from './pull.js';

/**
 * The cached schema, else a pulled one when `unknown` names something the registry does not
 * know; undefined when neither (a failed pull is a warning: the names then go as written).
 */
export async function loadOrPullOrgSchema(ctx: Context, unknown: readonly string[]): Promise<OrgSchema | undefined> {
  const cached = await loadOrgSchema(ctx);
  if (cached || unknown.length === 0) return cached;
  // A dry run sends nothing, reads included: the names go as written, and it says how to know them.
  if (ctx.globals.dryRun) {
    ctx.info(`${unknown.map((n) => `"${n}"`).join(', ')} not known and no org schema cached: \`svc schema pull\` reads your org's labels`);
    return undefined;
  }
  ctx.info(`${unknown.map((n) => `"${n}"`).join(', ')} not known: pulling the org schema (custom-field labels) once`);
  try {
    return (await pullOrgSchema(ctx)).schema;
  } catch (err) {
    ctx.warn(`could not pull the org schema: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}
