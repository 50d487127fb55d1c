/**
 * Where a profile's mirror lives and whose org it is: `mirror.<profile>.sqlite` in the data
 * directory (owner-only, like every file of svc's that holds data), or `--db FILE`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { dataDir } from '../../auth/config-dir.js';
import type { MirrorIdentity } from '../../mirror/store.js';
import type { Context } from '../../runtime/context.js';
import { runOwner } from '../shared/org-owner.js';

/** The mirror file of the command's profile (its directory made, owner-only). */
export async function mirrorFile(ctx: Context, db: string | undefined): Promise<string> {
  if (db !== undefined) return path.resolve(db);
  const conn = await ctx.connection();
  const dir = dataDir(ctx.env);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return path.join(dir, `mirror.${encodeURIComponent(conn.profileName)}.sqlite`);
}

/**
 * The org the connection reaches (one `GET {base_url}`): a local sandbox by its org's instance
 * id, since its port changes between runs; any other API by its base URL.
 */
export async function mirrorIdentity(ctx: Context): Promise<MirrorIdentity> {
  const owner = await runOwner(ctx, 'sync');
  return {
    baseUrl: owner.instance !== undefined ? `sandbox:${owner.instance}` : owner.api.replace(/\/+$/, ''),
    orgId: owner.org ?? '',
    orgName: owner.orgName ?? '',
  };
}
