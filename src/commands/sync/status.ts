/** `svc sync --status`: where the mirror is, how old each table is, how many rows it holds. */
import { age, mirrorStatus, openReadMirror } from '../../mirror/reader.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { printValue } from '../shared/output.js';
import type { SyncFlags } from './handler.js';
import { mirrorTarget } from './mirror-file.js';
import { markFixes } from './scope-note.js';
import { grouped } from '../../grouped.js';

export async function statusHandler(ctx: Context, flags: SyncFlags): Promise<void> {
  const db = await openReadMirror(await mirrorTarget(ctx, flags));
  try {
    const status = await mirrorStatus(db);
    const now = ctx.clock.now();
    const unreadable = status.tables.flatMap((t) => (t.unreadable === undefined ? [] : [{ table: t.table, scope: t.unreadable }]));
    // A table the last sync's login could not read is not "never synced": no sync with that login
    // fills it. One an earlier sync filled keeps those rows, as old as that sync.
    const fixes = unreadable.length ? await markFixes(ctx, unreadable) : [];
    const synced = (t: (typeof status.tables)[number]) =>
      t.unreadable !== undefined
        ? t.syncedAt
          ? `${age(t.syncedAt, now)} ago; not refreshed by the last sync (its login lacked ${t.unreadable})`
          : `empty: the last sync's login lacked ${t.unreadable}`
        : `${t.syncedAt ? `${age(t.syncedAt, now)} ago` : 'never'}${t.unfinished ? ` (unfinished: run ${svcAgain(ctx)} sync)` : ''}`;
    await printValue(ctx, ctx.output, status, () => {
      const lines = [
        `mirror: ${status.file} (${(status.bytes / 1_048_576).toFixed(1)} MB, ${status.binding})`,
        `org: ${status.orgName || status.orgId} at ${status.baseUrl}`,
        '',
        `${'TABLE'.padEnd(28)} ${'ROWS'.padStart(9)}  SYNCED`,
        ...status.tables.map((t) => `${t.table.padEnd(28)} ${grouped(t.rows).padStart(9)}  ${synced(t)}`),
        ...(fixes.length ? ['', ...fixes.map((f) => `${f.tables.map((t) => t.table).join(', ')}: ${f.fix}`)] : []),
      ];
      return `${lines.join('\n')}\n`;
    });
  } finally {
    await db.close();
  }
}
