/**
 * Builds a command's `Context`: its streams, settings and lazy accessors (config store,
 * connection, API client, prompter), its stderr lines with secrets redacted, and what it closes.
 */
import type { ApiClient } from '../api/client.js';
import type { BudgetGate } from '../budget/gate.js';
import { redactText } from '../api/redact.js';
import { configDir } from '../auth/config-dir.js';
import type { ConfigStore } from '../auth/config.js';
import type { OrgSchemaService } from '../org-schema/service.js';
import { stderrWidth } from '../output/io.js';
import { fitLines, terminalSafeLines } from '../output/terminal-text.js';
import type { App } from './app.js';
import type { Connection } from './connection.js';
import { systemClock, type Context, type GlobalOptions } from './context.js';
import { inquirerPrompter, type Prompter } from './prompter.js';
import { svcAgain } from './svc-again.js';

/** Builds a Context for a command. */
export function createContext(
  app: App,
  globals: GlobalOptions,
  overrides: { prompter?: Prompter; command?: string } = {},
): Context & { close(): Promise<void> } {
  const secrets = new Set<string>();
  const closers: (() => Promise<void> | void)[] = [];
  let store: Promise<ConfigStore> | undefined;
  let connection: Promise<Connection> | undefined;
  let api: Promise<ApiClient> | undefined;
  let orgSchema: Promise<OrgSchemaService> | undefined;
  let gate: Promise<BudgetGate | undefined> | undefined;
  const io = app.io;
  const redact = (s: string) => redactText(s, [...secrets]);
  const ctx: Context & { close(): Promise<void> } = {
    io,
    env: app.env,
    globals,
    clock: app.clock ?? systemClock,
    output: globals.output ?? (io.stdoutIsTTY ? 'table' : 'json'),
    signal: app.signal,
    ...(app.argv ? { argv: app.argv } : {}),
    config() {
      // Reads parse the file; conf loads on the first write only (config-file.ts).
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      store ??= import('./services.js').then((m) => {
        const s = m.createConfigStore(app.env, globals.profile, async (dir) => new (await import('conf')).default(m.confOptions(dir)));
        // The store holds tokens: say so when its permissions had to be tightened.
        for (const r of s.repaired) ctx.warn(`config permissions were too open, repaired: ${r}`);
        return s;
      });
      return store;
    },
    connection() {
      // Loaded with the first command that needs it (start-up time of --help and friends).
      connection ??= import('./services.js').then((m) => m.resolveConnection(ctx));
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
      // The command's own API (not a login's check, not another token's): through the shared budget.
      const budget = connection && target === (await connection.catch(() => undefined)) ? await ctx.rateBudget() : undefined;
      return new ApiClient({
        baseUrl: target.baseUrl,
        ...(target.authUrl ? { trustedOrigins: [target.authUrl] } : {}),
        tokens: target.tokens,
        timeoutMs: globals.timeoutMs,
        maxResponseBytes: globals.maxResponseBytes,
        trace: globals.verbose ? (line) => ctx.trace(line) : undefined,
        sleep: (ms) => ctx.clock.sleep(ms, signal),
        signal: app.signal,
        ...(budget ? { gate: budget } : {}),
        ...(target.scopes ? { heldScopes: target.scopes } : {}),
        ...extra,
      });
    },
    rateBudget() {
      gate ??= ctx.connection().then(async (c) => (await import('./services.js')).openRateBudget(ctx, c, overrides.command ?? 'svc'));
      return gate;
    },
    async prompter() {
      return overrides.prompter ?? inquirerPrompter(io, app.signal);
    },
    orgSchema() {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      orgSchema ??= import('../org-schema/service.js').then((m) =>
        m.orgSchemaService({
          connection: async () => {
            const c = await ctx.connection();
            return { profileName: c.profileName, baseUrl: c.baseUrl, sandbox: c.tokenSource === 'sandbox' };
          },
          // The directory alone: no need to load the config store (conf) to read the cache.
          configDir: () => configDir(app.env),
          storeDir: async () => (await ctx.config()).dir,
          api: () => ctx.api(),
          now: () => ctx.clock.now(),
          dryRun: globals.dryRun,
          svc: svcAgain(ctx),
          warn: (m) => ctx.warn(m),
          info: (m) => ctx.info(m),
          trace: (m) => ctx.trace(m),
        }),
      );
      return orgSchema;
    },
    // Messages quote records, servers and files: shown terminal-safe (newlines and tabs stay).
    // On a terminal each line is broken between words to its width (redacted first: a secret
    // split across two lines would not be recognised); elsewhere it stays whole, as scripts grep it.
    warn(message) {
      io.stderr.write(`${fitLines(redact(`warning: ${terminalSafeLines(message)}`), stderrWidth(io))}\n`);
    },
    info(message) {
      io.stderr.write(`${fitLines(redact(terminalSafeLines(message)), stderrWidth(io))}\n`);
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
