/** Renders the completion script of a shell from the program's command tree. */
import type { Command } from 'commander';
import { renderBash } from './bash.js';
import { renderFish } from './fish.js';
import { buildCompletionModel } from './model.js';
import { renderZsh } from './zsh.js';

/** The script for `shell`, deterministic for a given tree and registry. */
export function renderScript(program: Command, shell: 'bash' | 'zsh' | 'fish'): string {
  const model = buildCompletionModel(program);
  const text = shell === 'bash' ? renderBash(model) : shell === 'zsh' ? renderZsh(model) : renderFish(model);
  return text.endsWith('\n') ? text : `${text}\n`;
}
