/**
 * The bridge between commander and handlers: what main() hands every command (`App`), and
 * `runCommand`, which reads the global options (global-options.ts), builds the Context
 * (create-context.ts), runs the handler, reports errors and closes what the command opened.
 */
import type { Command } from 'commander';
import { redactText } from '../api/redact.js';
import { stderrWidth, type IO } from '../output/io.js';
import type { Clock, Context } from './context.js';
import { createContext } from './create-context.js';
import { globalsFrom } from './global-options.js';
import { applyProfileDefaults } from './profile-defaults.js';

/** What main() hands to every command. */
export interface App {
  io: IO;
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Set by main: the exit code of the command that ran. */
  exitCode: number;
  /** Aborted on SIGINT. */
  signal: AbortSignal;
  /**
   * The command line, when known: resource commands build their operations only for the
   * resource it names (start-up time). Undefined builds every command in full.
   */
  argv?: readonly string[];
}

/** `prospects upsert`: the command's words, for `svc limits`. */
function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ') || 'svc';
}

/** Commands that read no settings (and must work whatever the config file holds). */
const SETTINGS_FREE = new Set(['completion', 'sandbox', 'verify', 'trigger', 'cleanup']);

/**
 * Runs a handler for a commander action: the Context comes from the command's merged options.
 * Sets `app.exitCode`; never throws.
 */
export async function runCommand(app: App, cmd: Command, handler: (ctx: Context) => Promise<void>): Promise<void> {
  const raw = cmd.optsWithGlobals() as Record<string, unknown>;
  let ctx: (Context & { close(): Promise<void> }) | undefined;
  try {
    const globals = globalsFrom(raw, app.env);
    ctx = createContext(app, globals, { command: commandPath(cmd) });
    if (globals.query !== undefined || globals.jsonFields) {
      // Performance machinery (src/README.md, Build): the JMESPath implementation loads only with --query.
      const query = globals.query !== undefined ? (await import('../output/query.js')).compileQuery(globals.query) : undefined;
      ctx.shape = { fields: globals.jsonFields, query };
    }
    if (!SETTINGS_FREE.has(cmd.name())) await applyProfileDefaults(ctx, cmd);
    await handler(ctx);
    app.exitCode = 0;
  } catch (err) {
    const { reportError } = await import('./report-error.js');
    app.exitCode = reportError(err, {
      stderr: app.io.stderr,
      verbose: raw.verbose === true,
      json: (raw.json !== undefined && raw.json !== false) || raw.output === 'json',
      redact: ctx?.redact ?? ((s) => redactText(s)),
      width: stderrWidth(app.io),
      ctx,
    });
  } finally {
    await ctx?.close();
  }
}
