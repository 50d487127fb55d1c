/** Handler of `svc schema pull`. */
import type { Context } from '../../runtime/context.js';
import { printDryRun } from '../shared/dry-run.js';
import { schemaCachePath, writeSchemaCache } from '../../org-schema/cache.js';
import { writeCompletionExtra } from '../../org-schema/completion-extra.js';
import { ambiguousLabels, buildOrgSchema } from '../../org-schema/org-schema.js';
import type { OrgSchema } from '../../org-schema/types.js';
import { printJsonResult } from '../shared/output.js';

/**
 * Fetches the OpenAPI document and the `/types` document (two requests), writes the profile's
 * cache and the completion extras; returns the schema and the cache file.
 */
export async function pullOrgSchema(ctx: Context): Promise<{ schema: OrgSchema; file: string }> {
  const api = await ctx.api();
  const conn = await ctx.connection();
  const configDir = (await ctx.config()).dir;
  const file = schemaCachePath(configDir, conn.profileName);
  const [openapi, types] = await Promise.all([
    api.request({ method: 'GET', path: 'schema/openapi.json' }),
    api.request({ method: 'GET', path: 'types' }),
  ]);
  const schema = buildOrgSchema(openapi.doc, types.doc, { profile: conn.profileName, baseUrl: conn.baseUrl, now: ctx.clock.now() });
  writeSchemaCache(file, schema);
  // Org-only field names for the static completion scripts.
  writeCompletionExtra(configDir);
  return { schema, file };
}

/** Fetches both documents, writes the profile's cache and the completion extras, reports a summary. */
export async function pullHandler(ctx: Context): Promise<void> {
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
  const { schema, file } = await pullOrgSchema(ctx);
  const typeNames = Object.keys(schema.types);
  const extra = typeNames.reduce((n, t) => n + schema.types[t]!.extraAttributes.length, 0);
  const labelled = typeNames.reduce((n, t) => n + Object.keys(schema.types[t]!.customFields).length, 0);
  ctx.info(
    `pulled the schema of profile "${conn.profileName}": ${labelled} custom fields with labels, ${extra} fields the spec does not show, on ${typeNames.length} types`,
  );
  for (const a of ambiguousLabels(schema))
    ctx.warn(`${a.type}: label "${a.label}" is shared by ${a.fields.join(', ')}; use the field names`);
  if (schema.unknownTypes.length) ctx.info(`types this svc does not know (reachable with \`svc api\`): ${schema.unknownTypes.join(', ')}`);
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
