/** `svc resources`: every type with its command, operations and actions. */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';

export function registerResources(program: Command, app: App): void {
  program
    .command('resources')
    .description('list every resource type: its command, operations and actions')
    .addHelpText(
      'after',
      '\nExamples:\n  $ svc resources\n  $ svc resources -o json | jq \'.[] | select(.operations | index("update"))\'\n',
    )
    .action(async (_opts, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { resourcesHandler } = await import('./handler.js');
      await runCommand(app, cmd, (ctx) => resourcesHandler(ctx));
    });
}
