/** Handler of `svc completion <shell>`. */
import type { Command } from 'commander';
import type { Context } from '../../cli/context.js';
import { writeOut } from '../../output/io.js';
import { renderScript } from './render.js';

/** Prints the script for the whole program (the root of `cmd`). */
export async function completionHandler(ctx: Context, cmd: Command, shell: 'bash' | 'zsh' | 'fish'): Promise<void> {
  let root = cmd;
  while (root.parent) root = root.parent;
  await writeOut(ctx.io.stdout, renderScript(root, shell));
}
