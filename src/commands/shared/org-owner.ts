/**
 * The owner of a run's side files (journal, export part): which org the command writes to or
 * reads from, and as whom (bulk/run/side-owner.ts). One `GET {base_url}` per run tells the org id,
 * the user and, on a local sandbox, the org's instance id; the base URL comes with the
 * connection.
 */
import { parseRoot } from '../../auth/whoami.js';
import type { SideOwner } from '../../bulk/run/side-owner.js';
import { Stopped } from '../../bulk/run/requester.js';
import { ApiError, InterruptedError } from '../../errors.js';
import type { Context } from '../../runtime/context.js';

/**
 * The API an owner read found, as the files that say whose they are write it: a local sandbox by
 * its org's instance (its port changes between runs), any other API by its base URL.
 */
export function ownerApi(owner: SideOwner): string {
  return owner.instance !== undefined ? `sandbox:${owner.instance}` : owner.api.replace(/\/+$/, '');
}

/**
 * The owner of `command`'s side files for the connection of `ctx`.
 * @param get reads a document (a bulk run's paced requester: its waits are shown and shared);
 *   the command's client by default
 */
export async function runOwner(ctx: Context, command: string, get?: (url: string) => Promise<unknown>): Promise<SideOwner> {
  const conn = await ctx.connection();
  const owner: SideOwner = { api: conn.baseUrl, command };
  const read = get ?? (async (url: string) => (await (await ctx.api()).request({ method: 'GET', path: url, signal: ctx.signal })).doc);
  let doc: unknown;
  try {
    doc = await read(conn.baseUrl);
  } catch (err) {
    if (err instanceof Stopped || ctx.signal.aborted) throw interruptedBeforeRows();
    // A root document the API does not give this token (refused, absent): the base URL and the
    // profile's user are what is known. A token refused outright, or an API that is down, stops
    // the run as its first row would.
    if (!(err instanceof ApiError) || err.status < 400 || err.status >= 500 || err.status === 401 || err.status === 429) throw err;
    const user = (await ctx.config()).get(conn.profileName)?.user?.id;
    if (user !== undefined && conn.tokenSource !== 'flag' && conn.tokenSource !== 'env') owner.user = String(user);
    return owner;
  }
  const root = parseRoot(doc);
  if (root.organizationInstance !== undefined) owner.instance = root.organizationInstance;
  if (root.organizationId !== undefined) owner.org = root.organizationId;
  if (root.organization !== undefined) owner.orgName = root.organization;
  if (root.user?.id !== undefined) owner.user = String(root.user.id);
  return owner;
}

/** Ctrl-C while asking whose the org is: nothing of the run was sent yet. */
export function interruptedBeforeRows(): InterruptedError {
  return new InterruptedError('interrupted before the first row').hint('run the same command again to do the rest: nothing was sent yet');
}
