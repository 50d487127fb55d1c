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
    const indent = ' '.repeat(w + 2 + ops + 2);
    // Actions wrap at their commas under their column: three rows ran past 80 columns (a trial).
    const room = Math.max(ctx.io.columns - indent.length, 12);
    const head = `${'COMMAND'.padEnd(w)}  ${'OPERATIONS'.padEnd(ops)}  ACTIONS\n`;
    return (
      head +
      rows
        .map((r) => `${r.command.padEnd(w)}  ${r.operations.join(',').padEnd(ops)}  ${wrapList(r.actions, room, indent)}`.trimEnd())
        .join('\n') +
      '\n'
    );
  });
}

/** Names joined by commas, a new line (indented) before a name that would pass `room`. */
function wrapList(names: readonly string[], room: number, indent: string): string {
  const lines: string[] = [];
  for (const n of names) {
    const last = lines.length - 1;
    // One column is kept for the comma that ends a wrapped line.
    if (last >= 0 && lines[last]!.length + 1 + n.length < room) lines[last] += `,${n}`;
    else if (last >= 0) {
      lines[last] += ',';
      lines.push(n);
    } else lines.push(n);
  }
  return lines.join(`\n${indent}`);
}
