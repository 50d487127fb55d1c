/** Handler of `svc resources`. */
import type { Context } from '../../runtime/context.js';
import { printValue } from '../shared/output.js';
import { RESOURCES } from '../../registry/index.js';

/** One row of `svc resources -o json`. */
interface ResourceSummary {
  type: string;
  command: string;
  alias: string;
  path: string;
  operations: string[];
  actions: string[];
  customFields: boolean;
}

/** The registry as summaries. */
function resourceSummaries(): ResourceSummary[] {
  return RESOURCES.map((r) => ({
    type: r.type,
    command: r.command,
    alias: r.path,
    path: `/${r.path}`,
    operations: [...r.operations],
    actions: r.actions.map((a) => a.command),
    customFields: r.customFields,
  }));
}

export async function resourcesHandler(ctx: Context): Promise<void> {
  const rows = resourceSummaries();
  await printValue(ctx, ctx.output === 'table' ? 'table' : ctx.output, rows, () => {
    const w = Math.max(...rows.map((r) => r.command.length));
    const ops = Math.max(...rows.map((r) => r.operations.join(',').length));
    const head = `${'COMMAND'.padEnd(w)}  ${'OPERATIONS'.padEnd(ops)}  ACTIONS\n`;
    return (
      head + rows.map((r) => `${r.command.padEnd(w)}  ${r.operations.join(',').padEnd(ops)}  ${r.actions.join(',')}`).join('\n') + '\n'
    );
  });
}
