/**
 * Opens a URL in the user's browser. `$BROWSER` comes first, as git, gh and xdg-utils read it:
 * a colon-separated list of commands tried in order, each given the URL as its last argument, or
 * where it writes `%s`. The command is split into words without a shell (the URL is one argument
 * and is never interpreted). Without `$BROWSER`, the `open` package picks the desktop's launcher.
 */
import { spawn } from 'node:child_process';
import { splitWords } from '../../shell-words.js';

/** The argv that runs one `$BROWSER` entry on a URL. */
export function browserArgv(entry: string, url: string): string[] {
  const words = splitWords(entry);
  if (words.some((w) => w.includes('%s'))) return words.map((w) => w.replaceAll('%s', url));
  return [...words, url];
}

/** Starts one command; false when it cannot start (a pid is there at once when it did). */
function launch(argv: string[]): boolean {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  if (child.pid === undefined) return false;
  child.unref();
  return true;
}

/**
 * Opens `url`; resolves to false when no browser could be started (the caller says to open the
 * URL by hand).
 */
export async function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const entries = (env.BROWSER ?? '')
    .split(':')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length > 0) {
    for (const entry of entries) {
      const argv = browserArgv(entry, url);
      if (argv.length > 0 && launch(argv)) return true;
    }
    return false;
  }
  try {
    // Performance machinery (src/README.md, Build): loaded with import() when first used.
    const { default: open } = await import('open');
    const child = await open(url);
    child.on('error', () => {});
    return child.pid !== undefined;
  } catch {
    return false;
  }
}
