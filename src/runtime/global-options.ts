/**
 * The global options (`--profile`, `-o`, `--json`, `--query`, `--timeout`, `--sandbox`…) from
 * commander's merged options and the environment, checked once for every command.
 */
import { redactText } from '../api/redact.js';
import { UsageError } from '../errors.js';
import { checkPostgresUrl } from '../postgres-url.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../output/formats.js';
import type { GlobalOptions } from './context.js';
import { parseBudget, parsePositiveNumber, parsePriority, parseTimerSeconds } from './option-parsers.js';

/** Global options from commander's merged options and the environment. */
export function globalsFrom(opts: Record<string, unknown>, env: NodeJS.ProcessEnv): GlobalOptions {
  // `--json` alone is true; `--json a,b,c` (or `--json=a,b,c`) gives the fields to keep.
  const json = opts.json !== undefined && opts.json !== false;
  const jsonFields = typeof opts.json === 'string' ? parseJsonFields(opts.json) : undefined;
  // `--json` is `-o json`: beside another -o one of the two was dropped without a word, and a
  // script asking for ndjson or csv got a JSON array (a trial).
  if (json && opts.output !== undefined && opts.output !== 'json') {
    throw new UsageError(`--json means -o json: it cannot go with -o ${String(opts.output)}`).hint(
      'for some fields in another format: --columns a,b (csv, table) or --query (ndjson, raw)',
    );
  }
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
  // The sandbox answers whatever else names an API. Beside --sandbox, a flag naming another is a
  // contradiction; with the sandbox from the environment (a leftover SVC_SANDBOX=1 in a job that
  // means production) what it overrides is said: it was silent, and a job's writes went to a local
  // sandbox, exit 0 (a trial).
  const named = (
    [
      ['--base-url', opts.baseUrl],
      ['--auth-url', opts.authUrl],
      ['--token', opts.token],
      ['--profile', opts.profile],
    ] as const
  ).flatMap(([flag, v]) => (v === undefined ? [] : [flag]));
  const sandboxFlag = opts.sandbox === true || opts.sandboxData !== undefined;
  if (sandboxFlag && named.length) {
    throw new UsageError(
      `${named[0]} cannot go with ${opts.sandbox === true ? '--sandbox' : '--sandbox-data'}: the sandbox is a local server with a profile and token of its own`,
    ).hint(`leave out one of the two`);
  }
  const sandboxEnv = !sandboxFlag && (envFlag(env.SVC_SANDBOX) || sandboxData !== undefined);
  const overridden = sandboxEnv
    ? [...named, ...(['SVC_BASE_URL', 'SVC_AUTH_URL', 'SVC_TOKEN', 'SVC_REFRESH_TOKEN', 'SVC_PROFILE'] as const).filter((k) => env[k])]
    : [];
  // The variable that turned the sandbox on (SVC_SANDBOX_DATA alone implies it).
  const by = envFlag(env.SVC_SANDBOX) ? 'SVC_SANDBOX' : 'SVC_SANDBOX_DATA';
  return {
    ...(overridden.length ? { sandboxOverrides: { by, names: overridden } } : {}),
    profile: (opts.profile as string | undefined) ?? (env.SVC_PROFILE || undefined),
    baseUrl: (opts.baseUrl as string | undefined) ?? (env.SVC_BASE_URL || undefined),
    authUrl: (opts.authUrl as string | undefined) ?? (env.SVC_AUTH_URL || undefined),
    token: (opts.token as string | undefined) ?? (env.SVC_TOKEN || undefined),
    output: output as OutputFormat | undefined,
    ...(opts.output !== undefined || json ? { outputAsked: true } : {}),
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
    ...rateBudgetOptions(opts, env),
  };
}

/** `--budget`, `--priority` and `--budget-ledger`, else `SVC_BUDGET`, `SVC_PRIORITY` and `SVC_BUDGET_LEDGER`. */
function rateBudgetOptions(
  opts: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Pick<GlobalOptions, 'budget' | 'priority' | 'budgetLedger'> {
  const budget = (opts.budget as string | undefined) ?? (env.SVC_BUDGET || undefined);
  const priority = (opts.priority as string | undefined) ?? (env.SVC_PRIORITY || undefined);
  const ledger = (opts.budgetLedger as string | undefined) ?? (env.SVC_BUDGET_LEDGER || undefined);
  if (ledger !== undefined && !/^postgres(ql)?:\/\/./i.test(ledger)) {
    const flag = opts.budgetLedger === undefined ? 'SVC_BUDGET_LEDGER' : '--budget-ledger';
    throw new UsageError(
      `${flag} ${redactText(ledger)}: expected a PostgreSQL connection string (postgres://user:password@host/database); leave it unset for the ledger file in the data directory`,
    );
  }
  if (ledger !== undefined) checkPostgresUrl(ledger, opts.budgetLedger === undefined ? 'SVC_BUDGET_LEDGER' : '--budget-ledger');
  return {
    ...(ledger !== undefined ? { budgetLedger: ledger } : {}),
    ...(budget !== undefined ? { budget: parseBudget(budget, opts.budget === undefined ? 'SVC_BUDGET' : '--budget') } : {}),
    ...(priority !== undefined ? { priority: parsePriority(priority, opts.priority === undefined ? 'SVC_PRIORITY' : '--priority') } : {}),
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
