/** `svc sync --status`: where the mirror is, how old each table is, how many rows it holds. */
import { age, mirrorStatus, openMirror } from '../../mirror/reader.js';
import type { Context } from '../../runtime/context.js';
import { printValue } from '../shared/output.js';
import type { SyncFlags } from './handler.js';
import { mirrorFile } from './mirror-file.js';

export async function statusHandler(ctx: Context, flags: SyncFlags): Promise<void> {
  const file = await mirrorFile(ctx, flags.db);
  const db = await openMirror(file);
  try {
    const status = mirrorStatus(db, file);
    const now = ctx.clock.now();
    await printValue(ctx, ctx.output, status, () => {
      const lines = [
        `mirror: ${status.file} (${(status.bytes / 1_048_576).toFixed(1)} MB, ${status.binding})`,
        `org: ${status.orgName || status.orgId} at ${status.baseUrl}`,
        '',
        `${'TABLE'.padEnd(28)} ${'ROWS'.padStart(9)}  SYNCED`,
        ...status.tables.map(
          (t) =>
            `${t.table.padEnd(28)} ${t.rows.toLocaleString('en-US').padStart(9)}  ${t.syncedAt ? `${age(t.syncedAt, now)} ago` : 'never'}${t.unfinished ? ' (unfinished: run svc sync)' : ''}`,
        ),
      ];
      return `${lines.join('\n')}\n`;
    });
  } finally {
    db.close();
  }
}
