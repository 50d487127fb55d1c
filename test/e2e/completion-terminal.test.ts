/**
 * Completion in a real interactive shell (tmux), where the shell decides whether a space
 * follows a completed word: `--filter titl<TAB>` must leave `title=` with the cursor right
 * after the `=`, ready for the value, in bash, zsh and fish alike.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { requireProgram, without } from '../helpers/programs.js';
import { ROOT, tempDir } from '../helpers/run-svc.js';
import { sh, TmuxSession } from '../helpers/tmux.js';

const sessions: TmuxSession[] = [];
afterAll(() => {
  for (const s of sessions) s.kill();
});

/** The shell, started clean, then what loads the committed completion script. */
const SHELLS = {
  bash: { start: 'bash --norc --noprofile', load: "PS1='$ '; source completions/svc.bash" },
  zsh: { start: 'zsh -f', load: "PS1='$ '; autoload -Uz compinit && compinit -u -D; source completions/_svc" },
  fish: { start: 'fish --no-config', load: "function fish_prompt; echo '$ '; end; source completions/svc.fish" },
} as const;

describe.skipIf(without('tmux', 'interactive completion tests'))('name=value completion leaves no space', () => {
  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    it.skipIf(without(shell, `${shell} completion tests`))(shell, async () => {
      requireProgram('tmux');
      requireProgram(shell);
      // Each line in a shell of its own: clearing a line between two (Ctrl-U, and Ctrl-C in fish)
      // raced fish's handling of the Ctrl-C, which dropped the next keys' completion or the
      // Ctrl-C itself now and then once keys followed the screen at once.
      for (const [typed, done] of [
        ['svc prospects list --filter titl', 'svc prospects list --filter title=X'],
        ['svc prospects create --rel acc', 'svc prospects create --rel account=X'],
      ]) {
        const env = { HOME: tempDir(), TERM: 'xterm', SVC_CONFIG_DIR: tempDir() };
        const t = new TmuxSession(`cd ${sh(ROOT)} && exec ${SHELLS[shell].start}`, { width: 120, height: 20, env });
        sessions.push(t);
        t.send(SHELLS[shell].load, 'Enter');
        await t.waitFor(/^\$ ?$/m);
        t.send('-l', typed!);
        t.send('Tab');
        await t.waitFor(/=\s*$/m);
        t.send('-l', 'X');
        expect(await t.waitFor(new RegExp(`\\$ ${done!.replace(/[.]/g, '\\.')}\\s*$`, 'm'))).toContain(done);
        t.kill();
      }
    });
  }
});
