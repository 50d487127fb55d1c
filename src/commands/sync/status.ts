/** `svc sync --status`: where the mirror is, how old each table is, how many rows it holds. */
import { age, mirrorStatus, openReadMirror } from '../../mirror/reader.js';
import type { Context } from '../../runtime/context.js';
import { printValue } from '../shared/output.js';
import type { SyncFlags } from './handler.js';
import { mirrorTarget } from './mirror-file.js';
import { scopeFix } from './scope-note.js';
import { grouped } from '../../grouped.js';

export async function statusHandler(ctx: Context, flags: SyncFlags): Promise<void> {
  const db = await openReadMirror(await mirrorTarget(ctx, flags));
  try {
    const status = await mirrorStatus(db);
    const now = ctx.clock.now();
    const unreadable = status.tables.flatMap((t) => (t.unreadable === undefined ? [] : [{ table: t.table, scope: t.unreadable }]));
    // A table the login cannot read is not "never synced": no sync fills it until the login changes.
    const fix = unreadable.length ? await scopeFix(ctx, unreadable) : '';
    const synced = (t: (typeof status.tables)[number]) =>
      t.unreadable !== undefined
        ? `not readable with this login (it lacks ${t.unreadable})`
        : `${t.syncedAt ? `${age(t.syncedAt, now)} ago` : 'never'}${t.unfinished ? ' (unfinished: run svc sync)' : ''}`;
    await printValue(ctx, ctx.output, status, () => {
      const lines = [
        `mirror: ${status.file} (${(status.bytes / 1_048_576).toFixed(1)} MB, ${status.binding})`,
        `org: ${status.orgName || status.orgId} at ${status.baseUrl}`,
        '',
        `${'TABLE'.padEnd(28)} ${'ROWS'.padStart(9)}  SYNCED`,
        ...status.tables.map((t) => `${t.table.padEnd(28)} ${grouped(t.rows).padStart(9)}  ${synced(t)}`),
        ...(fix ? ['', `${unreadable.map((t) => t.table).join(', ')}: ${fix}`] : []),
      ];
      return `${lines.join('\n')}\n`;
    });
  } finally {
    await db.close();
  }
}
