/**
 * What `events tail` and `events replay` share: the filters of `--name` and `--prospect`, the
 * times of `--since` and `--until`, and the API client whose rate-limit headers pace the polls.
 */
import type { Filter } from '../../api/filter.js';
import type { ApiClient } from '../../api/client.js';
import { ApiError, NetworkError, UsageError } from '../../errors.js';
import { expandNameGlobs, unknownNameNote } from '../../events/names.js';
import type { PollPacer } from '../../events/pace.js';
import { parseTimeFlag } from '../../events/since.js';
import type { Context } from '../../runtime/context.js';
import { parseId } from '../../runtime/option-parsers.js';
import { machineDays } from '../resource-commands/query-options.js';

/** The server-side filters of `--name GLOB…` and `--prospect ID`. */
export function eventFilters(names: readonly string[] | undefined, prospect: string | undefined, warn: (m: string) => void): Filter[] {
  const filters: Filter[] = [];
  if (names?.length) {
    const r = expandNameGlobs(names);
    if ('problem' in r) throw new UsageError(r.problem);
    for (const n of r.unknown) warn(unknownNameNote(n));
    filters.push({ path: ['name'], kind: 'list', values: r.names, escaped: false });
  }
  if (prospect !== undefined) {
    let id: string;
    try {
      id = parseId(prospect);
    } catch {
      throw new UsageError(`--prospect ${prospect}: expected a prospect id (a positive integer)`);
    }
    filters.push({ path: ['prospect', 'id'], kind: 'eq', values: [id], escaped: false });
  }
  return filters;
}

/**
 * The reader of a command's time flags, as epoch ms: a day is one of the machine's zone, as in
 * `--filter` (`machineDays`: looked up once, and only for a flag that names a day); `end` reads
 * a day as its last instant (`--until`). A usage error (exit 2) when unparsable or in the future.
 */
export function timeFlags(ctx: Context): (value: string, flag: string, end?: boolean) => number {
  const days = machineDays(ctx);
  return (value, flag, end = false) => {
    const r = parseTimeFlag(value, flag, days.now, { zone: days.zone, end });
    if (typeof r !== 'number') throw new UsageError(r.problem);
    return r;
  };
}

/** An API client of the command's connection that tells the pacer the server's stated limit. */
export async function pacedClient(ctx: Context, pacer: PollPacer | undefined): Promise<ApiClient> {
  const conn = await ctx.connection();
  const client = await ctx.newApiClient(conn, {
    now: () => ctx.clock.now(),
    ...(pacer ? { onRateLimit: (info) => pacer.observe(info.limit) } : {}),
  });
  ctx.onClose(() => client.close());
  return client;
}

/** A failure of a read that the next poll may not meet: the network, a 5xx, a 429 the client gave up on. */
export function transientReadError(err: unknown): boolean {
  return err instanceof NetworkError || (err instanceof ApiError && (err.status >= 500 || err.status === 429));
}
