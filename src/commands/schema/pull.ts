/** Handler of `svc schema pull`. */
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { printDryRun } from '../shared/dry-run.js';
import { schemaCachePath } from '../../org-schema/cache.js';
import { ambiguousLabels } from '../../org-schema/org-schema.js';
import { PLAN_FORMATS, printJsonResult, refuseOutput } from '../shared/output.js';

/** Fetches both documents, writes the profile's cache and the completion extras, reports a summary. */
export async function pullHandler(ctx: Context): Promise<void> {
  refuseOutput(ctx, 'svc schema pull', PLAN_FORMATS);
  if (ctx.globals.dryRun) {
    const api = await ctx.api();
    const conn = await ctx.connection();
    const file = schemaCachePath((await ctx.config()).dir, conn.profileName);
    return printDryRun(
      ctx,
      [
        { method: 'GET', url: api.resolve('schema/openapi.json') },
        { method: 'GET', url: api.resolve('types') },
      ],
      [`would write ${file}`],
    );
  }
  const conn = await ctx.connection();
  const { schema, file } = await (await ctx.orgSchema()).pull();
  const typeNames = Object.keys(schema.types);
  const extra = typeNames.reduce((n, t) => n + schema.types[t]!.extraAttributes.length, 0);
  const labelled = typeNames.reduce((n, t) => n + Object.keys(schema.types[t]!.customFields).length, 0);
  ctx.info(
    `pulled the schema of profile "${conn.profileName}": ${labelled} custom fields with labels, ${extra} fields the spec does not show, on ${typeNames.length} types`,
  );
  for (const a of ambiguousLabels(schema))
    ctx.warn(`${a.type}: label "${a.label}" is shared by ${a.fields.join(', ')}; use the field names`);
  if (schema.unknownTypes.length)
    ctx.info(`types this svc does not know (reachable with \`${svcAgain(ctx)} api\`): ${schema.unknownTypes.join(', ')}`);
  ctx.info(`cached in ${file}`);
  const summary = {
    profile: conn.profileName,
    file,
    pulledAt: schema.pulledAt,
    types: typeNames,
    customFields: labelled,
    extraAttributes: extra,
    unknownTypes: schema.unknownTypes,
  };
  await printJsonResult(ctx, summary);
}
