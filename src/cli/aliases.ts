/**
 * `svc NAME …` where NAME is an alias (`svc alias set`) of the current profile: the command line
 * is rewritten before parsing. Looked up only when NAME is not a built-in command, so start-up
 * pays nothing for aliases otherwise.
 */
import { splitWords } from '../shell-words.js';

/** Global options that take a value (the word after them is not the command). */
const VALUED = new Set(['--profile', '--base-url', '--auth-url', '--token', '-o', '--output', '--timeout']);

/** Index of the command word in argv (after global options), or -1. */
export function commandIndex(argv: readonly string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (VALUED.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return i;
  }
  return -1;
}

/** The profile argv or the environment names (`--profile x`, `--profile=x`, `SVC_PROFILE`). */
export function profileFromArgv(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--profile') return argv[i + 1];
    if (argv[i]!.startsWith('--profile=')) return argv[i]!.slice('--profile='.length);
    if (argv[i] === '--') break;
  }
  return env.SVC_PROFILE || undefined;
}

/**
 * argv with the alias at its command word expanded, or undefined when that word is not an alias
 * of the profile. `isBuiltIn` decides first; the config file is read only after it says no.
 */
export async function expandAlias(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  isBuiltIn: (name: string) => boolean,
): Promise<string[] | undefined> {
  const at = commandIndex(argv);
  if (at < 0 || isBuiltIn(argv[at]!)) return undefined;
  let line: string | undefined;
  try {
    // Performance machinery (src/README.md, Build): loaded with import() when first used.
    const { createConfigStore } = await import('../runtime/services.js');
    const store = createConfigStore(env, profileFromArgv(argv, env), () => {
      throw new Error('aliases are only read here');
    });
    const aliases = store.get(store.currentName())?.aliases;
    line = aliases && Object.hasOwn(aliases, argv[at]!) ? aliases[argv[at]!] : undefined;
  } catch {
    // An unreadable config: the unknown command is reported as it always was.
    return undefined;
  }
  if (line === undefined) return undefined;
  return [...argv.slice(0, at), ...splitWords(line), ...argv.slice(at + 1)];
}
