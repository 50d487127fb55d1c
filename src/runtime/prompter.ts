/**
 * Interactive prompts behind a small interface, so that handlers never import the prompt
 * library themselves (it is heavy) and tests can answer for the user.
 */
import { InterruptedError } from '../errors.js';

/** The prompts svc asks. */
export interface Prompter {
  input(message: string, opts?: { default?: string; required?: boolean }): Promise<string>;
  password(message: string): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
  select<T extends string>(message: string, choices: readonly T[]): Promise<T>;
  /** A list narrowed as the user types (a sequence among hundreds); resolves to the chosen value. */
  search<T>(message: string, choices: readonly SearchChoice<T>[]): Promise<T>;
}

/** One entry of {@link Prompter.search}. */
interface SearchChoice<T> {
  value: T;
  /** What is shown and matched against the typed text. */
  name: string;
}

/** Choices whose name contains every word typed (case ignored), in their order. */
export function matchChoices<T>(choices: readonly SearchChoice<T>[], term: string | undefined): SearchChoice<T>[] {
  const words = (term ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  return choices.filter((c) => words.every((w) => c.name.toLowerCase().includes(w)));
}

/** Prompts with @inquirer/prompts on the given streams (loaded on first use). */
export async function inquirerPrompter(
  io: { stdin: NodeJS.ReadableStream; stderr: NodeJS.WritableStream },
  /** The command's signal: SIGTERM (or Ctrl-C outside raw mode) ends a prompt waiting for an answer. */
  signal?: AbortSignal,
): Promise<Prompter> {
  // Performance machinery (src/README.md, Build): loaded with import() when first used.
  const p = await import('@inquirer/prompts');
  // Prompts draw on stderr so that stdout stays clean for data.
  const ctx = { input: io.stdin, output: io.stderr, ...(signal ? { signal } : {}) } as Parameters<typeof p.input>[1];
  return {
    input: (message, opts) => interruptible(p.input({ message, default: opts?.default, required: opts?.required }, ctx)),
    password: (message) => interruptible(p.password({ message, mask: '*' }, ctx)),
    confirm: (message, defaultValue = false) => interruptible(p.confirm({ message, default: defaultValue }, ctx)),
    select: (message, choices) => interruptible(p.select({ message, choices: choices.map((c) => ({ value: c, name: c })) }, ctx)),
    search: (message, choices) => interruptible(p.search({ message, pageSize: 12, source: (term) => matchChoices(choices, term) }, ctx)),
  };
}

/**
 * A prompt in raw mode receives Ctrl-C as a key, not as SIGINT: the library then rejects with
 * its own error, which is the user interrupting (exit 130), not a failure.
 */
async function interruptible<T>(prompt: Promise<T>): Promise<T> {
  try {
    return await prompt;
  } catch (err) {
    const name = (err as { name?: string } | null)?.name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError')
      throw new InterruptedError('interrupted at the prompt: nothing was done');
    throw err;
  }
}
