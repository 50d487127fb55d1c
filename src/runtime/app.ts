/**
 * The bridge between commander and handlers: builds a Context from the parsed global options,
 * runs the handler, reports errors, and closes what the command opened.
 */
import type { Command } from 'commander';
import type { ApiClient } from '../api/client.js';
import { redactText } from '../api/redact.js';
import type { ConfigStore } from '../auth/config.js';
import { UsageError } from '../errors.js';
import type { IO } from '../output/io.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../output/formats.js';
import { terminalSafeLines } from '../output/terminal-text.js';
import type { Connection } from './connection.js';
import { systemClock, type Clock, type Context, type GlobalOptions } from './context.js';
import { inquirerPrompter, type Prompter } from './prompter.js';
import { applyProfileDefaults } from './profile-defaults.js';
import { parsePositiveNumber, parseTimerSeconds } from './option-parsers.js';

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

/** Global options from commander's merged options and the environment. */
function globalsFrom(opts: Record<string, unknown>, env: NodeJS.ProcessEnv): GlobalOptions {
  // `--json` alone is true; `--json a,b,c` (or `--json=a,b,c`) gives the fields to keep.
  const json = opts.json !== undefined && opts.json !== false;
  const jsonFields = typeof opts.json === 'string' ? parseJsonFields(opts.json) : undefined;
  let output = (json ? 'json' : opts.output) as string | undefined;
  if (output !== undefined && !OUTPUT_FORMATS.includes(output as OutputFormat)) {
    throw new UsageError(`-o ${output}: unknown output format (use ${OUTPUT_FORMATS.join(', ')})`);
  }
  const query = opts.query as string | undefined;
  if (query !== undefined) {
    // A query result is JSON, not rows: table and csv cannot show it.
    if (output === 'table' || output === 'csv') throw new UsageError(`--query works with -o json, ndjson or raw, not -o ${output}`);
    output ??= 'json';
  }
  const timeoutMs = opts.timeout === undefined ? 30_000 : parseTimerSeconds(String(opts.timeout), '--timeout');
  const maxMbText = (opts.maxResponseMb as string | undefined) ?? (env.SVC_MAX_RESPONSE_MB || undefined);
  const maxMb =
    maxMbText === undefined
      ? 64
      : parsePositiveNumber(maxMbText, opts.maxResponseMb === undefined ? 'SVC_MAX_RESPONSE_MB' : '--max-response-mb', 'megabytes');
  const envFlag = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
  const sandboxData = (opts.sandboxData as string | undefined) ?? (env.SVC_SANDBOX_DATA || undefined);
  return {
    profile: (opts.profile as string | undefined) ?? (env.SVC_PROFILE || undefined),
    baseUrl: (opts.baseUrl as string | undefined) ?? (env.SVC_BASE_URL || undefined),
    authUrl: (opts.authUrl as string | undefined) ?? (env.SVC_AUTH_URL || undefined),
    token: (opts.token as string | undefined) ?? (env.SVC_TOKEN || undefined),
    output: output as OutputFormat | undefined,
    verbose: opts.verbose === true,
    dryRun: opts.dryRun === true,
    yes: opts.yes === true,
    // An org file implies the sandbox: a CI step that names a copy must never reach production.
    sandbox: opts.sandbox === true || envFlag(env.SVC_SANDBOX) || sandboxData !== undefined,
    ...(sandboxData !== undefined ? { sandboxData } : {}),
    timeoutMs,
    maxResponseBytes: Math.round(maxMb * 1024 * 1024),
    query,
    jsonFields,
  };
}

/** `--json a,b,c` as a list of field names. */
function parseJsonFields(list: string): string[] | undefined {
  if (list.trim() === '') return undefined;
  const fields = list.split(',').map((s) => s.trim());
  if (fields.some((f) => f === ''))
    throw new UsageError(`--json ${list}: expected field names separated by commas (e.g. --json id,firstName,title)`);
  return fields;
}

/** Builds a Context for a command. */
export function createContext(
  app: App,
  globals: GlobalOptions,
  overrides: { prompter?: Prompter } = {},
): Context & { close(): Promise<void> } {
  const secrets = new Set<string>();
  const closers: (() => Promise<void> | void)[] = [];
  let store: Promise<ConfigStore> | undefined;
  let connection: Promise<Connection> | undefined;
  let api: Promise<ApiClient> | undefined;
  const io = app.io;
  const redact = (s: string) => redactText(s, [...secrets]);
  const ctx: Context & { close(): Promise<void> } = {
    io,
    env: app.env,
    globals,
    clock: app.clock ?? systemClock,
    output: globals.output ?? (io.stdoutIsTTY ? 'table' : 'json'),
    signal: app.signal,
    config() {
      // Reads parse the file; conf loads on the first write only (config-file.ts).
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      store ??= import('../auth/config-file.js').then((m) => {
        const s = m.createConfigStore(app.env, globals.profile, async (dir) => new (await import('conf')).default(m.confOptions(dir)));
        // The store holds tokens: say so when its permissions had to be tightened.
        for (const r of s.repaired) ctx.warn(`config permissions were too open, repaired: ${r}`);
        return s;
      });
      return store;
    },
    connection() {
      // Loaded with the first command that needs it (start-up time of --help and friends).
      connection ??= import('./connection.js').then((m) => m.resolveConnection(ctx));
      return connection;
    },
    api() {
      api ??= ctx.connection().then(async (c) => {
        const client = await ctx.newApiClient(c);
        closers.push(() => client.close());
        return client;
      });
      return api;
    },
    async newApiClient(target, extra = {}) {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { ApiClient } = await import('../api/client.js');
      // Waits between retries end with the client's own signal (none: they run to the end).
      const signal = 'signal' in extra ? extra.signal : app.signal;
      return new ApiClient({
        baseUrl: target.baseUrl,
        ...(target.authUrl ? { trustedOrigins: [target.authUrl] } : {}),
        tokens: target.tokens,
        timeoutMs: globals.timeoutMs,
        maxResponseBytes: globals.maxResponseBytes,
        trace: globals.verbose ? (line) => ctx.trace(line) : undefined,
        sleep: (ms) => ctx.clock.sleep(ms, signal),
        signal: app.signal,
        ...extra,
      });
    },
    async prompter() {
      return overrides.prompter ?? inquirerPrompter(io);
    },
    // Messages quote records, servers and files: shown terminal-safe (newlines and tabs stay).
    warn(message) {
      io.stderr.write(redact(`warning: ${terminalSafeLines(message)}\n`));
    },
    info(message) {
      io.stderr.write(redact(`${terminalSafeLines(message)}\n`));
    },
    trace(message) {
      if (globals.verbose) io.stderr.write(redact(`* ${terminalSafeLines(message)}\n`));
    },
    addSecret(secret) {
      if (secret) secrets.add(secret);
    },
    redact,
    onClose(fn) {
      closers.push(fn);
    },
    async close() {
      for (const fn of closers.reverse()) {
        try {
          await fn();
        } catch {
          // closing is best effort
        }
      }
    },
  };
  return ctx;
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
    ctx = createContext(app, globals);
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
    });
  } finally {
    await ctx?.close();
  }
}
