/**
 * Handler of `svc sync` (README.md, "Questions about your org"): which types, which file, whose
 * org; then mirror/sync.ts does the reading and writing, and this says what it did.
 */
import { ApiError, InterruptedError, UsageError } from '../../errors.js';
import { BudgetSpent } from '../../budget/gate.js';
import type { ApiRequest, ApiResponse } from '../../api/client.js';
import type { PageClient } from '../../api/paginate.js';
import type { Context } from '../../runtime/context.js';
import { findResource, RESOURCES, type ResourceType } from '../../registry/index.js';
import { didYouMean } from '../../suggest.js';
import { tableSpec } from '../../mirror/naming.js';
import type { OrgSchema } from '../../org-schema/types.js';
import { holdsNumbers } from '../../org-schema/custom-values.js';
import { mirrorIdentity, mirrorTarget } from './mirror-file.js';
import { printJsonResult, refuseOutput } from '../shared/output.js';
import { grouped, plural } from '../../grouped.js';

/** The flags of `svc sync`. */
export interface SyncFlags {
  db?: string;
  schema?: string;
  status?: boolean;
  allTypes?: boolean;
  reconcile?: boolean;
  rebuild?: boolean;
  plan?: boolean;
}

/** What a sales-ops person asks about (the issue's list), in the order they are read. */
const DEFAULT_TYPES = [
  'user',
  'stage',
  'persona',
  'mailbox',
  'account',
  'prospect',
  'emailAddress',
  'sequence',
  'sequenceStep',
  'sequenceState',
  'mailing',
  'task',
  'call',
  'opportunity',
] as const;

export async function syncHandler(ctx: Context, args: string[], flags: SyncFlags): Promise<void> {
  if (flags.status) {
    // The status is one object: no rows for csv (-o csv printed its text).
    refuseOutput(ctx, 'svc sync --status', ['table', 'json', 'ndjson', 'raw']);
    const { statusHandler } = await import('./status.js');
    return statusHandler(ctx, flags);
  }
  // A sync's result is its summary (-o json, ndjson); -o csv and -o raw wrote nothing (a trial).
  if (!flags.plan) refuseOutput(ctx, 'svc sync', ['table', 'json', 'ndjson']);
  const types = chooseTypes(args, flags.allTypes === true);
  const target = await mirrorTarget(ctx, flags);
  const api = await ctx.api();
  // The global --budget caps the hour's requests; a sync stops there (its next run continues)
  // rather than waiting for the next hour.
  const gate = await ctx.rateBudget();
  gate?.longRunning();
  gate?.stopAtBudget();
  // What the summary says was sent: the gate's count where there is one (it admits every request,
  // retries included, and none it refused at the budget); else one a request made.
  const before = gate?.admitted() ?? 0;
  let made = 0;
  const sentSoFar = () => (gate ? gate.admitted() - before : made);
  const client: PageClient = {
    baseUrl: api.baseUrl,
    resolve: (p) => api.resolve(p),
    request: (req: ApiRequest): Promise<ApiResponse> => {
      made++;
      return api.request(req);
    },
  };
  if (flags.plan) {
    const { planSync } = await import('./plan.js');
    return planSync(ctx, client, types, args.length === 0);
  }
  const identity = await mirrorIdentity(ctx);
  // The root document (whose org it is) and the org schema's two documents.
  made += 1;
  const org = await orgAdditions(ctx);
  made += 2;
  const tables = types.map((rt) => ({ rt, spec: tableSpec(rt, { ...org.byType.get(rt.type), unread: org.unread }) }));
  const { MirrorStore } = await import('../../mirror/store.js');
  const { syncTables } = await import('../../mirror/sync.js');
  const held = { store: await MirrorStore.open(target, identity, { rebuild: flags.rebuild === true, say: (line) => ctx.warn(line) }) };
  ctx.onClose(() => held.store.close());
  const file = held.store.file;
  for (const t of tables) await held.store.prepare(t.spec, (line) => ctx.info(line));
  const { isDatabaseGone } = await import('../../mirror/dialect/postgres.js');
  const started = ctx.clock.now();
  // A bar on a terminal (output/spinner.ts: one stderr line, never in CI or a pipe); in logs a
  // line per 10,000 records.
  const { startSpinner } = await import('../../output/spinner.js');
  const bar = startSpinner(ctx.io, 'reading…', ctx.env);
  // With --rebuild the same command would start afresh again, dropping what this run read.
  const again = flags.rebuild
    ? 'run the same command again without --rebuild to continue where it stopped (every page read so far is kept)'
    : 'run the same command again to continue where it stopped (every page read so far is kept)';
  const tooSmall = `a sync sends ${BEFORE_FIRST_PAGE} requests before its first page (the org, its schema, the delete events): give a --budget of ${BEFORE_FIRST_PAGE + 1} or more`;
  let outcome: Awaited<ReturnType<typeof syncTables>>;
  try {
    outcome = await withReconnects(
      ctx,
      isDatabaseGone,
      held,
      bar,
      async () => {
        const store = await MirrorStore.open(target, identity);
        for (const t of tables) await store.prepare(t.spec, (line) => ctx.info(line));
        return store;
      },
      (store) =>
        syncTables({
          store,
          client,
          tables,
          now: () => ctx.clock.now(),
          signal: ctx.signal,
          reconcile: flags.reconcile === true,
          // Types the user did not name: those this token cannot read are skipped, said per table.
          skipUnreadable: args.length === 0,
          warn: (line) => {
            bar.clear();
            ctx.warn(line);
          },
          trace: (line) => ctx.trace(line),
          progress: (table, written, kind, total) => {
            bar.update(progressText(table, written, kind, total));
            if (!ctx.io.stderrIsTTY && written % 10_000 === 0) ctx.info(`${table}: ${grouped(written)} records (${kind})`);
          },
          // A stop, not a failure: the sync says what it read before it (a CI script's summary).
          stoppedBy: (err) => (err instanceof BudgetSpent ? 'budget' : ctx.signal.aborted ? 'interrupted' : undefined),
        }),
    );
  } catch (err) {
    bar.stop();
    if (err instanceof BudgetSpent) throw err.hint(again);
    if (ctx.signal.aborted) throw new InterruptedError('sync interrupted').hint(again);
    throw err;
  }
  bar.stop();
  const { tables: results, stop } = outcome;
  for (const r of results) {
    if (r.skipped !== undefined) continue;
    const what = r.byOther
      ? 'synced by another svc sync meanwhile'
      : r.kind === 'incremental'
        ? `${grouped(r.changed)} changed`
        : `${grouped(r.written)} read`;
    const how = r.stopped ? (r.stopped === 'budget' ? 'stopped at the budget' : 'interrupted') : `${r.deleted} deleted`;
    // A stop can leave the database unreadable (Ctrl-C during a statement): the stop is said anyway.
    const count = stop ? await held.store.count(r.table).catch(() => undefined) : await held.store.count(r.table);
    const rows = count === undefined ? '' : `, ${grouped(count)} ${plural(count, 'row')}`;
    ctx.info(`${r.table}: ${what}${r.resumed ? ' (resumed)' : ''}, ${how}${rows}`);
  }
  const skipped = results.flatMap((r) => (r.skipped === undefined ? [] : [{ table: r.table, scope: r.skipped }]));
  if (stop) {
    if (stop.inEvents) ctx.info("deletes: stopped while reading the API's delete events (the next sync reads the rest)");
    if (stop.notReached.length) ctx.info(`not reached: ${stop.notReached.join(', ')}`);
    // Read before the tables, the delete events reach the tables this run did not come to too.
    const gone = [...stop.deletedNotReached].filter(([, n]) => n > 0);
    if (gone.length) ctx.info(`deleted by the API's delete events in them: ${gone.map(([t, n]) => `${t} ${grouped(n)}`).join(', ')}`);
  } else {
    const sent = sentSoFar();
    const secs = ((ctx.clock.now() - started) / 1000).toFixed(1);
    const read = results.length - skipped.length;
    ctx.info(
      `synced ${read}${skipped.length ? ` of ${results.length}` : ''} ${plural(results.length, 'table')} in ${secs} s with ${sent} ${plural(sent, 'request')}: ${file}`,
    );
  }
  // Once, last, with the fix: a rerun skips them again, whatever it is told.
  if (skipped.length) {
    const { unreadableWarning } = await import('./scope-note.js');
    ctx.warn(await unreadableWarning(ctx, skipped));
  }
  // With -o json/ndjson (or --query), one summary object on stdout; stderr said it for people.
  // Stopped (exit 5 at the budget, 130 on Ctrl-C), the same object says what was read before the
  // stop: `stopped` names why, the table it stopped in is marked `stopped`, `notReached` lists
  // the tables it did not come to (docs/mirror.md).
  if (!stop) {
    await printJsonResult(ctx, { file, requests: sentSoFar(), tables: results });
    return;
  }
  const sent = sentSoFar();
  await printJsonResult(ctx, { file, requests: sent, stopped: stop.reason, tables: results, notReached: stop.notReached });
  // A budget that ends before the first page ends every run there: running again reads nothing more.
  const starved = sent <= BEFORE_FIRST_PAGE && results.every((r) => r.written === 0);
  if (stop.error instanceof BudgetSpent) throw stop.error.hint(starved ? tooSmall : again);
  throw new InterruptedError('sync interrupted').hint(again);
}

/** Requests a sync sends before its first page of records: the root document, the org schema (2), the delete events. */
const BEFORE_FIRST_PAGE = 4;

/** Reconnections to a database that went away, in one sync. */
const MAX_RECONNECTS = 5;
/** How long a sync waits for a database that went away. */
const REOPEN_WAIT_MS = 120_000;

/**
 * Runs `run` on the held store; when the database went away (a restart, a cut connection) waits
 * for it, opens the mirror again and runs again: the sync continues after its last whole page,
 * as a rerun would.
 */
async function withReconnects<S extends { close(): Promise<void> }, R>(
  ctx: Context,
  gone: (err: unknown) => boolean,
  held: { store: S },
  bar: { clear(): void },
  open: () => Promise<S>,
  run: (store: S) => Promise<R>,
): Promise<R> {
  for (let reconnects = 0; ; reconnects++) {
    try {
      return await run(held.store);
    } catch (err) {
      if (!gone(err) || ctx.signal.aborted || reconnects >= MAX_RECONNECTS) throw err;
      bar.clear();
      ctx.warn(`${(err as Error).message}; waiting for it, then continuing after the last whole page`);
      await held.store.close();
      held.store = await reopen(ctx, gone, open);
    }
  }
}

/** Opens the mirror again, every 2 s until {@link REOPEN_WAIT_MS}. */
async function reopen<T>(ctx: Context, gone: (err: unknown) => boolean, open: () => Promise<T>): Promise<T> {
  const until = ctx.clock.now() + REOPEN_WAIT_MS;
  for (;;) {
    try {
      return await open();
    } catch (err) {
      if (!gone(err) || ctx.signal.aborted || ctx.clock.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

/** `prospects ██████░░░░ 12,000 / 50,000` (a bar when the total is known). */
function progressText(table: string, written: number, kind: string, total: number | undefined): string {
  const n = grouped(written);
  if (!total) return `${table}: ${n} records (${kind})`;
  const filled = Math.min(20, Math.round((20 * written) / total));
  return `${table} ${'█'.repeat(filled)}${'░'.repeat(20 - filled)} ${n} / ${grouped(total)}`;
}

/** The types named (any spelling the other commands take), or the default list. */
function chooseTypes(args: readonly string[], all: boolean): ResourceType[] {
  if (all && args.length > 0) throw new UsageError('give types or --all-types, not both');
  if (all) return RESOURCES.filter((rt) => rt.operations.includes('list') && rt.type !== 'event');
  if (args.length === 0) return DEFAULT_TYPES.map((t) => findResource(t)!);
  const out: ResourceType[] = [];
  for (const a of args) {
    const rt = findResource(a);
    if (!rt) {
      throw new UsageError(
        `unknown resource type "${a}"${didYouMean(
          a,
          RESOURCES.map((r) => r.command),
        )}`,
      ).hint('`svc resources` lists them');
    }
    if (!rt.operations.includes('list')) throw new UsageError(`${rt.command} cannot be listed, so it cannot be mirrored`);
    if (!out.includes(rt)) out.push(rt);
  }
  return out;
}

/**
 * The org's custom-field labels and extra fields by type (two requests); when the schema cannot be
 * read, those of its last pull (the profile's cache), else none and `unread`.
 */
async function orgAdditions(ctx: Context): Promise<{ byType: Map<string, Parameters<typeof tableSpec>[1]>; unread: boolean }> {
  const byType = new Map<string, Parameters<typeof tableSpec>[1]>();
  const service = await ctx.orgSchema();
  let schema: OrgSchema | undefined;
  try {
    ({ schema } = await service.pull());
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    // Refused at the budget: the tables are refused next, and the stop says so with its hint.
    if (err instanceof BudgetSpent) return { byType, unread: true };
    const why = err instanceof ApiError ? `HTTP ${err.status}` : err instanceof Error ? err.message : String(err);
    // The last pull (this profile's cache, which every sync's pull writes) still names the org's
    // fields and labels: without it, a passing failure would look like fields gone.
    schema = await service.cached();
    if (!schema) {
      ctx.warn(
        `the org schema could not be read (${why}): custom-field labels are not refreshed this time (the labelled views stay as they were)`,
      );
      return { byType, unread: true };
    }
    ctx.warn(`the org schema could not be read (${why}): using the one pulled ${schema.pulledAt}`);
  }
  for (const [type, t] of Object.entries(schema.types)) {
    const labels: Record<string, string> = {};
    const numeric: string[] = [];
    for (const [name, f] of Object.entries(t.customFields)) {
      labels[name] = f.label;
      if (holdsNumbers(f)) numeric.push(name);
    }
    byType.set(type, { extraAttributes: t.extraAttributes, labels, numeric });
  }
  return { byType, unread: false };
}
