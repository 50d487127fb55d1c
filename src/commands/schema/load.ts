/**
 * Loads the org schema that `svc schema pull` cached for the command's profile, for the write
 * path of resource commands. Without a cache file this costs one failed file read.
 */
import { configDir } from '../../auth/config-dir.js';
import type { Context } from '../../runtime/context.js';
import { readSchemaCache, schemaCachePath } from '../../org-schema/cache.js';
import type { OrgSchema } from '../../org-schema/types.js';

/**
 * The profile's cached schema, if any. Never throws: a command works without it (and a missing
 * base URL is reported by the request that needs it, not here).
 */
export async function loadOrgSchema(ctx: Context): Promise<OrgSchema | undefined> {
  let file: string;
  let baseUrl: string | undefined;
  try {
    const conn = await ctx.connection();
    // The zero-set-up sandbox listens on a new port each run while its org persists.
    baseUrl = conn.tokenSource === 'sandbox' ? undefined : conn.baseUrl;
    // The directory alone: no need to load the config store (conf) for this.
    file = schemaCachePath(configDir(ctx.env), conn.profileName);
  } catch {
    return undefined;
  }
  let schema: OrgSchema | undefined;
  try {
    schema = readSchemaCache(file);
  } catch {
    ctx.warn(`ignoring the schema cache ${file}: unreadable; run \`svc schema pull\` again`);
    return undefined;
  }
  if (schema && baseUrl !== undefined && schema.baseUrl.replace(/\/+$/, '') !== baseUrl.replace(/\/+$/, '')) {
    ctx.warn(`ignoring the schema cache: it was pulled from ${schema.baseUrl}, not ${baseUrl}; run \`svc schema pull\``);
    return undefined;
  }
  if (schema) ctx.trace(`org schema from ${file} (pulled ${schema.pulledAt})`);
  return schema;
}
