/** Handler of `svc completion <shell>`. */
import { Command } from 'commander';
import type { App } from '../../runtime/app.js';
import type { Context } from '../../runtime/context.js';
import { writeOut } from '../../output/io.js';
import { renderScript } from './render.js';
// Static: the running program has loaded the command tree already (an import() of it made a
// chunk of its own and split every module it shares with svc's other import() targets).
import { registerCommands } from '../index.js';

/**
 * The whole command tree. The running program may have built only the commands its command line
 * names (start-up time), so the scripts come from a fresh tree built in full: the same commands
 * registered on a new root that carries the running root's global options.
 */
async function fullProgram(running: Command, app: App): Promise<Command> {
  let root = running;
  while (root.parent) root = root.parent;
  const full = new Command(root.name());
  for (const o of root.options) full.addOption(o);
  const everything: App = Object.assign({}, app);
  // Without a known command line every command is built in full.
  delete (everything as { argv?: unknown }).argv;
  registerCommands(full, everything);
  return full;
}

/** Prints the script for the whole program. */
export async function completionHandler(ctx: Context, cmd: Command, app: App, shell: 'bash' | 'zsh' | 'fish'): Promise<void> {
  await writeOut(ctx.io.stdout, renderScript(await fullProgram(cmd, app), shell));
}
