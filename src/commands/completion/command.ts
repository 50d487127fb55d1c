/** `svc completion bash|zsh|fish`: prints the completion script (generated from the command tree). */
import { Argument, type Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';

/** Shells with a completion script. */
const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Registers `completion <shell>`. */
export function registerCompletion(program: Command, app: App): void {
  program
    .command('completion')
    .description('print the shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      `
Install:
  bash  echo 'source <(svc completion bash)' >> ~/.bashrc
  zsh   mkdir -p ~/.zfunc && svc completion zsh > ~/.zfunc/_svc
        then in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath)
        (or in ~/.zshrc, after compinit: source <(svc completion zsh))
  fish  svc completion fish > ~/.config/fish/completions/svc.fish

The scripts are static (completing starts no Node process); the same files are in completions/.
`,
    )
    .action(async (shell: (typeof SHELLS)[number], _opts, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { completionHandler } = await import('./handler.js');
      await runCommand(app, cmd, (ctx) => completionHandler(ctx, cmd, app, shell));
    });
}
