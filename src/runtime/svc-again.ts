/**
 * `svc` as a hint should write it for this command's user: with the `--sandbox`,
 * `--sandbox-data FILE` or `--profile NAME` they gave, so that the command a hint names reaches
 * the same org. Hints that said plain `svc runs undo …` after `svc --sandbox …` reached another
 * org, or none (a new user's trial).
 */
import type { Context } from './context.js';
import { quoteWord } from '../shell-words.js';

/** `svc`, `svc --sandbox`, `svc --sandbox-data 'my org.json'`, `svc --profile work`. */
export function svcAgain(ctx: Context): string {
  const g = ctx.globals;
  const words = ['svc'];
  if (g.sandboxData !== undefined) words.push('--sandbox-data', quoteWord(g.sandboxData));
  else if (g.sandbox) words.push('--sandbox');
  // The sandbox has a profile of its own, and `--sandbox --profile X` is refused (global-options.ts):
  // a profile from SVC_PROFILE made such hints name a command that fails.
  else if (g.profile !== undefined) words.push('--profile', quoteWord(g.profile));
  return words.join(' ');
}
