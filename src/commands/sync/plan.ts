/** `svc sync --plan`: the requests a full sync would need, from each type's `meta.count`. */
import { MAX_PAGE_SIZE, type PageClient } from '../../api/paginate.js';
import { missingScope } from '../../api/scope-hint.js';
import { snake } from '../../mirror/naming.js';
import { unreadableWarning } from './scope-note.js';
import type { ResourceType } from '../../registry/index.js';
import type { Context } from '../../runtime/context.js';
import { printValue } from '../shared/output.js';

/** One count request per type (`page[limit]=1&count=true`); prints records and requests per type. */
export async function planSync(ctx: Context, client: PageClient, types: readonly ResourceType[], skipUnreadable = false): Promise<void> {
  const rows: { type: string; records: number | null; requests: number | null; skipped?: string }[] = [];
  for (const rt of types) {
    const url = client.resolve(rt.path);
    url.searchParams.set('page[limit]', '1');
    url.searchParams.set('count', 'true');
    if (rt.type === 'account') url.searchParams.set('filter[named]', 'true,false');
    let res: Awaited<ReturnType<PageClient['request']>>;
    try {
      res = await client.request({ method: 'GET', path: url.toString(), signal: ctx.signal });
    } catch (err) {
      // As the sync does: a type it was not asked for by name that this token cannot read is skipped.
      const named = skipUnreadable ? missingScope(err) : undefined;
      if (named === undefined) throw err;
      rows.push({ type: rt.path, records: null, requests: 0, skipped: named || `${rt.path}.read` });
      continue;
    }
    const count = (res.doc.meta as { count?: unknown } | undefined)?.count;
    const records = typeof count === 'number' ? count : null;
    // Pages of 1,000, and one more when the last page is exactly full.
    rows.push({ type: rt.path, records, requests: records === null ? null : Math.floor(records / MAX_PAGE_SIZE) + 1 });
  }
  const skipped = rows.flatMap((r) => (r.skipped === undefined ? [] : [{ table: snake(r.type), scope: r.skipped }]));
  if (skipped.length) ctx.warn(await unreadableWarning(ctx, skipped));
  const known = rows.filter((r) => r.requests !== null && r.skipped === undefined);
  const total = known.reduce((n, r) => n + r.requests!, 0);
  ctx.info(
    `a full sync needs about ${total + 5} requests (${known.length} types counted, ${types.length} count requests sent for this plan)`,
  );
  await printValue(
    ctx,
    ctx.output,
    rows,
    () =>
      rows
        .map((r) =>
          r.skipped !== undefined
            ? `${r.type.padEnd(28)} skipped: this login lacks ${r.skipped}`
            : `${r.type.padEnd(28)} ${String(r.records ?? '?').padStart(9)} records  ${String(r.requests ?? '?').padStart(6)} requests`,
        )
        .join('\n') + '\n',
  );
}
