/**
 * `--plan` of upsert and update by key: reads the current records with the same batched match a
 * run makes, and prints per row the fields that would change (old → new), then the bill:
 * creates, updates, unchanged, requests, and the time they need at the rate limit given what is
 * left of the current window. Nothing is written. `-o json` gives the plan as one document,
 * `-o ndjson` a line per row and the bill last.
 */
import type { PageClient } from '../../api/paginate.js';
import type { RateLimitInfo } from '../../api/jsonapi.js';
import { readServerWait } from '../../api/server-wait.js';
import { keyedItems, keyedLookup, type KeyedInput } from '../../bulk/rows/upsert-rows.js';
import type { Context } from '../../runtime/context.js';
import { isFoldedAttribute } from '../../bulk/rows/key-match.js';
import { stdoutWidth, writeOut } from '../../output/io.js';
import { printLine, printPlan } from '../shared/output.js';
import { fitLines, terminalSafe } from '../../output/terminal-text.js';
import { grouped } from '../../grouped.js';
import { heldChangeNote, heldOptInNote, tallyHeld, type HeldTally } from '../../bulk/rows/consent.js';
import { secretAttributeNames, secretsMasked } from '../../registry/index.js';
import { labelledName } from '../../org-schema/custom-values.js';

/** The totals of a plan. */
interface PlanBill {
  creates: number;
  updates: number;
  unchanged: number;
  ambiguous: number;
  failed: number;
  /** Done by earlier runs (journal). */
  done: number;
  /** Lookup requests the match takes (the run makes them again). */
  lookups: number;
  /** Requests of the run: lookups + creates + updates. */
  requests: number;
  /** `X-RateLimit-Remaining` and `-Limit` of the last answer, when the server sends them. */
  remaining: number | null;
  limit: number | null;
  /** Seconds the run must wait for the rate limit (0 when the window's budget holds it). */
  waitSeconds: number;
}

/** The rate window of the API: an hour. */
const WINDOW_S = 3600;

/** Seconds of waiting for `requests` at the rate limit, from the last reading. */
export function rateWait(requests: number, rl: RateLimitInfo | undefined, now: number): number {
  if (!rl || rl.remaining === undefined || requests <= rl.remaining) return 0;
  const limit = rl.limit && rl.limit > 0 ? rl.limit : undefined;
  const w = readServerWait(rl.reset, now);
  const toReset = w && 'ms' in w ? Math.ceil(w.ms / 1000) : WINDOW_S;
  if (!limit) return toReset;
  return toReset + (Math.ceil((requests - rl.remaining) / limit) - 1) * WINDOW_S;
}

const show = (v: unknown) => (v === null || v === undefined ? '(empty)' : JSON.stringify(v));

/** A relationship's ids as a plan shows them: `5`, `[1, 2]`, or (empty). */
function relText(d: unknown): string {
  if (Array.isArray(d)) return `[${d.map((x) => (x as { id: unknown }).id).join(', ')}]`;
  return d && typeof d === 'object' ? String((d as { id: unknown }).id) : '(empty)';
}

/** The plan is printed as text for a person (not `-o json` or `-o ndjson`). */
export function planIsText(ctx: Context): boolean {
  return ctx.globals.output !== 'json' && ctx.globals.output !== 'ndjson' && !(ctx.globals.output === 'raw' && ctx.shape?.query);
}

/**
 * Prints the plan of a keyed run on stdout.
 * @param nameLookups requests that resolved relationship names before the plan (the run makes them again)
 */
export async function printKeyedPlan(ctx: Context, input: KeyedInput, nameLookups = 0): Promise<PlanBill> {
  const api = await ctx.api();
  let lookups = nameLookups;
  let last: RateLimitInfo | undefined;
  const client: PageClient = {
    baseUrl: api.baseUrl,
    resolve: (p) => api.resolve(p),
    request: async (req) => {
      lookups++;
      const res = await api.request(req);
      if (res.rateLimit.remaining !== undefined) last = res.rateLimit;
      return res;
    },
  };
  const lookup = await keyedLookup(client, input, { signal: ctx.signal });
  // A document for -o json, and for -o raw with --query (the query's result: --query and --json
  // a,b shape a plan as any JSON result; they were ignored).
  const json = ctx.globals.output === 'json' || (ctx.globals.output === 'raw' && ctx.shape?.query !== undefined);
  // NDJSON streams a line per row and the bill last, for files too long to hold as one document.
  const ndjson = ctx.globals.output === 'ndjson';
  const bill: PlanBill = {
    creates: 0,
    updates: 0,
    unchanged: 0,
    ambiguous: 0,
    failed: 0,
    done: 0,
    lookups: 0,
    requests: 0,
    remaining: null,
    limit: null,
    waitSeconds: 0,
  };
  const rows: Record<string, unknown>[] = [];
  /** Updates that change nothing, which only a plain update (input.whole) sends. */
  let sentAsGiven = 0;
  /** Rows whose change would take back an opt-out, left out (consent.ts). */
  const kept: HeldTally = { rows: 0, fields: new Set() };
  /** A plain update's rows whose consent values change the record otherwise, left out all the same. */
  const heldOther: HeldTally = { rows: 0, fields: new Set() };
  /** Failing rows a plain update sends all the same (their 404s): requests of the bill too. */
  let failingSends = 0;
  // The human plan quotes the file's values and the org's: escaped as in every human view, and
  // on a terminal broken between words to its width (the bill alone is some 190 columns).
  const width = stdoutWidth(ctx.io);
  const out = (s: string) => writeOut(ctx.io.stdout, fitLines(ctx.redact(terminalSafe(s)), width) + '\n');
  // A custom field by its label too, as the columns line and the row errors name it: `custom2`
  // alone sent a reader to `svc schema show` to learn which of their columns it was (a trial).
  const field = (name: string) => labelledName(name, input.names?.label?.(name));
  for await (const item of keyedItems(input, lookup)) {
    const line: Record<string, unknown> = { row: item.row };
    if (item.value !== undefined) line[input.match] = item.value;
    const o = item.outcome;
    if (item.plan === 'create') {
      bill.creates++;
      line.action = 'create';
      const fields = item.data ? secretsMasked(input.rt, item.data.attributes) : undefined;
      line.fields = fields;
      if (item.data && Object.keys(item.data.relationships).length) line.relationships = item.data.relationships;
      line.matched = 'none';
      if (!json && !ndjson) {
        await out(
          `row ${item.row}: create (${input.match} ${item.value}: no ${input.rt.type} has it${isFoldedAttribute(input.match) ? ', ignoring case' : ''})`,
        );
        // The values it sends, as an update's changes are shown: a number or name read wrongly
        // from a spreadsheet showed nowhere but in -o json (a trial).
        for (const [k, v] of Object.entries(fields ?? {})) await out(`  ${field(k)}: ${show(v)}`);
        for (const [k, rel] of Object.entries(item.data?.relationships ?? {})) await out(`  ${k}: ${relText(rel.data)}`);
      }
    } else if (item.plan === 'update') {
      bill.updates++;
      line.action = 'update';
      line.id = item.write!.id;
      // Secret values are never shown: neither the one sent nor the one held (a review).
      const secret = secretAttributeNames(input.rt);
      const changes = item.changes?.map((c) => (secret.has(c.field) ? { ...c, old: '***', new: '***' } : c));
      line.changes = changes;
      line.matched = item.matched;
      const same = !item.changes?.length;
      if (same) sentAsGiven++;
      if (!json && !ndjson) {
        await out(
          `row ${item.row}: update ${input.rt.type} ${item.write!.id} (${input.match} ${item.value}${matchNote(item.matched)})${same ? `: sent as the file gives it; nothing ${item.keptOptOuts || item.heldChanges ? 'it sends ' : ''}differs` : ''}`,
        );
        for (const c of changes ?? []) await out(`  ${field(c.field)}: ${show(c.old)} → ${show(c.new)}`);
      }
    } else if (item.plan === 'unchanged') {
      bill.unchanged++;
      line.action = 'unchanged';
      line.id = o?.id ?? null;
      line.matched = item.matched;
      if (!json && !ndjson && item.matched !== 'exact')
        await out(`row ${item.row}: unchanged ${input.rt.type} ${line.id} (${input.match} ${item.value}${matchNote(item.matched)})`);
    } else if (item.plan === 'landed') {
      // Done earlier, as the run reports it (created, recovered): nothing is sent.
      bill.done++;
      line.action = 'skip';
      line.id = item.landed;
      line.reason = 'created by an earlier run (its answer was lost; found by the match)';
    } else if (o?.status === 'skipped') {
      bill.done++;
      line.action = 'skip';
      if (o.id !== undefined && o.id !== null) line.id = o.id;
      line.reason = o.extra?.reason;
    } else if (o) {
      if (o.extra?.reason === 'ambiguous') bill.ambiguous++;
      else bill.failed++;
      if (item.sentAnyway) failingSends++;
      line.action = o.extra?.reason === 'ambiguous' ? 'ambiguous' : o.status;
      // A row refused by the checks names its id as the run's report does.
      if (o.id !== undefined && o.id !== null) line.id = o.id;
      line.error = o.error;
      if (!json && !ndjson) await out(`row ${item.row}: ${o.status}: ${o.error ?? ''}`);
    }
    if (item.keptOptOuts) {
      tallyHeld(kept, item.keptOptOuts);
      line.keptOptedOut = item.keptOptOuts.map((c) => c.field);
      if (!json && !ndjson) {
        if (item.plan === 'unchanged' && item.matched === 'exact')
          await out(`row ${item.row}: unchanged ${input.rt.type} ${line.id} (${input.match} ${item.value})`);
        for (const c of item.keptOptOuts)
          await out(`  ${c.field}: ${show(c.old)} kept (the row says ${show(c.new)}; --allow-opt-in sends it)`);
      }
    }
    if (item.heldChanges) {
      tallyHeld(heldOther, item.heldChanges);
      line.consentLeftOut = item.heldChanges.map((c) => c.field);
      if (!json && !ndjson)
        for (const c of item.heldChanges)
          await out(
            `  ${c.field}: ${show(c.old)} kept (the row says ${show(c.new)}; a plain update sends no consent value but an opt-out)`,
          );
    }
    if (json) rows.push(line);
    // Streamed, for files too long to hold as one document; each line shaped as printPlan shapes it.
    else if (ndjson) await printLine(ctx, line, true);
  }
  bill.lookups = lookups;
  bill.requests = lookups + bill.creates + bill.updates + failingSends;
  bill.remaining = last?.remaining ?? null;
  bill.limit = last?.limit ?? null;
  bill.waitSeconds = rateWait(bill.requests, last, ctx.clock.now());
  if (kept.rows) ctx.warn(heldOptInNote(kept.rows, kept.fields, false));
  if (heldOther.rows) ctx.info(heldChangeNote(heldOther.rows, heldOther.fields));
  if (sentAsGiven)
    ctx.info(
      `${grouped(sentAsGiven)} of the updates change nothing: a plain update sends each row as the file gives it (with --match id, only the fields that differ, and such rows not at all)`,
    );
  if (ndjson) {
    await printLine(ctx, { bill });
    return bill;
  }
  if (await printPlan(ctx, ctx.globals.output, rows, bill)) return bill;
  const n = grouped;
  const budget =
    bill.remaining === null
      ? 'the server gave no rate-limit reading'
      : bill.waitSeconds === 0
        ? `within the window's remaining budget (${n(bill.remaining)}${bill.limit ? ` of ${n(bill.limit)}` : ''} left): no wait`
        : `${n(bill.remaining)} left in this window: about ${waitText(bill.waitSeconds)} of waiting for the rate limit`;
  const of = (x: number, word: string) => `${n(x)} ${word}${x === 1 ? '' : 's'}`;
  await out(
    `bill: ${of(bill.creates, 'create')}, ${of(bill.updates, 'update')}, ${n(bill.unchanged)} unchanged (not sent), ${n(bill.ambiguous)} ambiguous, ${n(bill.failed)} failed, ${n(bill.done)} done earlier; ` +
      `${of(bill.requests, 'request')} (${of(bill.lookups, 'lookup')} + ${of(bill.creates + bill.updates + failingSends, 'write')}); ${budget}`,
  );
  return bill;
}

/** `, matched ignoring case (stored "Mia@X.test")`; nothing for an exact match. */
function matchNote(matched: string | undefined): string {
  return matched && matched !== 'exact' ? `, matched ${matched}` : '';
}

function waitText(s: number): string {
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
