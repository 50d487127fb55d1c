/**
 * The Context: everything a command handler needs (io, env, global options, config, tokens,
 * API client, prompter, clock), built lazily so a command pays only for what it uses.
 * No module-level singletons: tests build their own.
 */
import type { ApiClient, ApiClientOptions, TokenProvider } from '../api/client.js';
import type { BudgetGate } from '../budget/gate.js';
import type { BudgetCap, Priority } from '../budget/ledger.js';
import type { ConfigStore } from '../auth/config.js';
import type { IO } from '../output/io.js';
import type { OutputFormat } from '../output/formats.js';
import type { OutputShape } from '../output/shape.js';
import type { OrgSchemaService } from '../org-schema/service.js';
import type { Prompter } from './prompter.js';
import type { Connection } from './connection.js';

/** The global options (README.md § Global options), after env defaults are applied. */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  authUrl?: string;
  token?: string;
  output?: OutputFormat;
  /** `-o` (or `--json`) was given: `output` is not only the default `--query` implies. */
  outputAsked?: boolean;
  verbose: boolean;
  dryRun: boolean;
  yes: boolean;
  /** Run against the local sandbox (`--sandbox`, `SVC_SANDBOX=1`). */
  sandbox: boolean;
  /**
   * With the sandbox set by the environment (`SVC_SANDBOX`, `SVC_SANDBOX_DATA`), the settings
   * naming another API that it overrides (`SVC_BASE_URL`, `--token`…): said once, on stderr.
   */
  sandboxOverrides?: { by: 'SVC_SANDBOX' | 'SVC_SANDBOX_DATA'; names: string[] };
  /** Org file the sandbox serves instead of the default one (`--sandbox-data`, `SVC_SANDBOX_DATA`). */
  sandboxData?: string;
  /** Per-request timeout in milliseconds. @default 30000 */
  timeoutMs: number;
  /** Largest answer read (`--max-response-mb`, `SVC_MAX_RESPONSE_MB`). @default 64 MiB */
  maxResponseBytes?: number;
  /** `--query`: a JMESPath expression for the JSON output. */
  query?: string;
  /** `--json a,b,c`: the fields each record keeps. */
  jsonFields?: string[];
  /** `--budget` (`SVC_BUDGET`): the command's requests per rate window. */
  budget?: BudgetCap;
  /** `--priority` (`SVC_PRIORITY`): how a long command ranks in the shared rate budget. */
  priority?: Priority;
  /** `--budget-ledger` (`SVC_BUDGET_LEDGER`): the shared budget's ledger in this PostgreSQL database. */
  budgetLedger?: string;
}

/** Time, injectable for tests. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Where an API client sends, and the token it sends (only to the base URL's and the auth URL's origins). */
interface ApiTarget {
  baseUrl: string;
  authUrl?: string;
  tokens: TokenProvider;
  /** The token's scopes, where known: a 403's hint gives the whole login to paste. */
  scopes?: string;
}

/** What every command handler receives. */
export interface Context {
  io: IO;
  env: NodeJS.ProcessEnv;
  globals: GlobalOptions;
  clock: Clock;
  /** The output format: `-o`, else table on a TTY and json otherwise. */
  output: OutputFormat;
  /** `--json a,b,c` and `--query`, compiled before anything is sent; unset without them. */
  shape?: OutputShape;
  /** Aborted on Ctrl-C; long operations check it and stop cleanly. */
  signal: AbortSignal;
  /** The command line as given (after alias expansion), when known: what `svc runs` records. */
  argv?: readonly string[];
  config(): Promise<ConfigStore>;
  /** Base URL, auth URL and token source of the active profile (or flags, env, sandbox). */
  connection(): Promise<Connection>;
  /** The command's API client (the connection's), closed with the command. */
  api(): Promise<ApiClient>;
  /**
   * A new API client with the command's settings (timeout, response cap, `--verbose` trace, clock,
   * Ctrl-C signal) for another target or token; `extra` adds or replaces options (`signal:
   * undefined` for one that must finish after Ctrl-C). The caller closes it.
   */
  newApiClient(target: ApiTarget, extra?: Partial<ApiClientOptions>): Promise<ApiClient>;
  prompter(): Promise<Prompter>;
  /**
   * The org schema of the command's profile (custom-field labels, org-only fields): its cache, a
   * pull, or the cache else one pull. Loaded on first use.
   */
  orgSchema(): Promise<OrgSchemaService>;
  /** A warning line on stderr (`warning: …`). */
  warn(message: string): void;
  /** An informational line on stderr. */
  info(message: string): void;
  /** A trace line on stderr with --verbose, secrets redacted. */
  trace(message: string): void;
  /** Remembers a secret so that traces and errors redact it even where it is not recognisable. */
  addSecret(secret: string | undefined): void;
  /** Redacts known secrets and token-like values from a text. */
  redact(text: string): string;
  /** Runs at the end of the command (close sockets, stop an in-process sandbox). */
  onClose(fn: () => Promise<void> | void): void;
  /**
   * The command's door to the rate budget shared by the user's svc processes (budget/gate.ts),
   * which the command's API clients ask before each request; undefined when it cannot be used.
   */
  rateBudget(): Promise<BudgetGate | undefined>;
}

/** Longest delay a Node timer holds; a longer one fires after 1 ms instead (and warns). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const end = Date.now() + ms;
      let t: NodeJS.Timeout | undefined;
      // Long waits go in steps a timer can hold: one past ~24.8 days must not become a 1 ms loop.
      const arm = () => {
        const left = end - Date.now();
        if (left <= 0) return done();
        t = setTimeout(left > MAX_TIMER_MS ? arm : done, Math.min(left, MAX_TIMER_MS));
      };
      function done() {
        signal?.removeEventListener('abort', done);
        clearTimeout(t);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
      arm();
    }),
};
