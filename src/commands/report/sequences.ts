/**
 * `svc report sequences`: one row per sequence with its delivery counters and rates, and a bar for
 * the rate chosen by `--by`.
 *
 * Requests: 1 for the sequences (pages of 1,000, sparse fields) + ⌈e-mail steps ÷ 1,000⌉ for
 * their counters (only the counters and the sequence link; call and task steps send no mailings,
 * so they are left out). 500 sequences of up to two e-mail steps each take 2. A sequence's own
 * resource carries only deliver, click, bounce and failure counts; opens, replies, sentiments,
 * opt-outs and scheduled mailings are the sums over its e-mail steps.
 */
import type { ResourceObject } from '../../api/jsonapi.js';
import type { ListQuery } from '../../api/query.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { resourceByType } from '../../registry/index.js';
import type { FilterDays } from '../resource-commands/filter-checks.js';
import { buildListQuery } from '../resource-commands/query-options.js';
import { recordId } from '../../listing/record-text.js';
import type { Column, ReportView } from './model.js';
import {
  addCounters,
  countersOf,
  COUNTER_NAMES,
  pct,
  RATE_FORMULAS,
  RATE_NAMES,
  ratesOf,
  roundRates,
  type Counters,
  type RateName,
} from './rates.js';
import { checkReportOutput, emit, fetcher, parseBy, parseLimit, relId, reportZone, type ReportFlags } from './shared.js';

/** Counters a sequence carries itself (the rest come from its steps). */
const OWN = ['deliverCount', 'clickCount', 'bounceCount', 'failureCount'] as const;
/** Client-side sort keys (everything else is sent as the API's `sort`). */
const LOCAL_SORT = new Set<string>([...RATE_NAMES, 'delivered']);

/** One row of the report (also the record of `-o json`): counts, then rates (0.1234 = 12.34%). */
interface SequenceRow {
  /** A number, as `list` writes ids (a string only past 2^53). */
  id: number | string;
  name: string;
  enabled: boolean | null;
  emailSteps: number;
  delivered: number;
  opened: number;
  clicked: number;
  replied: number;
  positiveReplies: number;
  neutralReplies: number;
  negativeReplies: number;
  bounced: number;
  failed: number;
  optedOut: number;
  scheduled: number;
  openRate: number | null;
  clickRate: number | null;
  replyRate: number | null;
  positiveRate: number | null;
  bounceRate: number | null;
  optoutRate: number | null;
  failureRate: number | null;
}

/** The counts and rates of a row, from counters (shared with the funnel's rows). */
export function countsAndRates(c: Counters) {
  const r = roundRates(ratesOf(c));
  return {
    delivered: c.deliverCount,
    opened: c.openCount,
    clicked: c.clickCount,
    replied: c.replyCount,
    positiveReplies: c.positiveReplyCount,
    neutralReplies: c.neutralReplyCount,
    negativeReplies: c.negativeReplyCount,
    bounced: c.bounceCount,
    failed: c.failureCount,
    optedOut: c.optOutCount,
    scheduled: c.scheduleCount,
    openRate: r.open,
    clickRate: r.click,
    replyRate: r.reply,
    positiveRate: r.positive,
    bounceRate: r.bounce,
    optoutRate: r.optout,
    failureRate: r.failure,
  };
}

/** A rate of a row by name. */
function rateOf(row: Pick<SequenceRow, `${RateName}Rate`>, k: RateName): number | null {
  return row[`${k}Rate`];
}

/** A row from counters. */
function rowOf(id: number | string, name: string, enabled: boolean | null, emailSteps: number, c: Counters): SequenceRow {
  return { id, name, enabled, emailSteps, ...countsAndRates(c) };
}

/** Runs `svc report sequences`. */
export async function sequencesReport(ctx: Context, flags: ReportFlags): Promise<void> {
  checkReportOutput(ctx, flags);
  // Checked before the first request; without --tz the zone is looked up only for a page (emit).
  let zone = flags.tz === undefined ? undefined : reportZone(ctx, flags);
  const by = parseBy<RateName>(flags.by, ['reply', 'open', 'click', 'positive', 'bounce', 'optout', 'failure']);
  const limit = parseLimit(flags.limit);
  const rt = resourceByType('sequence')!;
  const sortKeys = (flags.sort ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const local = sortKeys.filter((k) => LOCAL_SORT.has(k.replace(/^-/, '')));
  if (local.length && local.length !== sortKeys.length)
    throw new UsageError('--sort: sort either by rates (reply, open, …, delivered) or by sequence attributes, not both');
  // A day in a filter (`createdAt=7d..`) is the report's zone's, looked up only for one.
  const days: FilterDays = { now: ctx.clock.now(), zone: () => (zone ??= reportZone(ctx, flags)) };
  const query: ListQuery = buildListQuery(
    rt,
    { filter: flags.filter, sort: local.length ? undefined : flags.sort },
    (m) => ctx.warn(m),
    days,
  );
  query.fields = { sequence: ['name', 'enabled', ...OWN] };
  const f = await fetcher(ctx);
  // A local sort needs every sequence before the limit applies.
  const seqs = (await f.list('sequences', query, { limit: local.length ? undefined : limit })).data;
  const stepQuery: ListQuery = {
    fields: { sequenceStep: ['sequence', ...COUNTER_NAMES] },
    extra: [['filter[stepType]', 'auto_email,manual_email']],
  };
  // The whole org's steps in one page when the report covers every sequence; else only theirs.
  if (query.filters?.length || limit !== undefined)
    stepQuery.extra!.push(['filter[sequence][id]', seqs.map((s) => String(s.id)).join(',')]);
  const steps = seqs.length ? (await f.list('sequenceSteps', stepQuery)).data : [];
  let rows = seqs.map((s) => rowFor(s, steps));
  if (local.length) {
    rows = sortRows(rows, local);
    if (limit !== undefined) rows = rows.slice(0, limit);
  }
  await emit(ctx, flags, 'report sequences', view(rows, by, ctx.io.columns), rows as unknown as Record<string, unknown>[], f, zone);
}

function rowFor(seq: ResourceObject, steps: ResourceObject[]): SequenceRow {
  const own = steps.filter((s) => relId(s, 'sequence') === String(seq.id));
  const sum = addCounters(own.map((s) => countersOf(s.attributes)));
  // The sequence's own counters win where it has them (they are the service's figures).
  for (const k of OWN) {
    const v = seq.attributes?.[k];
    if (typeof v === 'number') sum[k] = v;
  }
  const a = seq.attributes ?? {};
  return rowOf(recordId(seq.id), String(a['name'] ?? ''), typeof a['enabled'] === 'boolean' ? a['enabled'] : null, own.length, sum);
}

function sortRows(rows: SequenceRow[], keys: string[]): SequenceRow[] {
  const val = (r: SequenceRow, k: string) => (k === 'delivered' ? r.delivered : (rateOf(r, k as RateName) ?? -1));
  return [...rows].sort((a, b) => {
    for (const key of keys) {
      const desc = key.startsWith('-');
      const k = key.replace(/^-/, '');
      const d = val(a, k) - val(b, k);
      if (d) return desc ? -d : d;
    }
    return 0;
  });
}

const LABEL: Record<RateName, string> = {
  open: 'open',
  click: 'click',
  reply: 'reply',
  positive: 'pos',
  bounce: 'bounce',
  optout: 'opt-out',
  failure: 'fail',
};

/** Rate columns by terminal width: the chosen rate always; the others as room allows. */
function shownRates(by: RateName, cols: number): RateName[] {
  const room: RateName[] =
    cols >= 140 ? [...RATE_NAMES] : cols >= 100 ? ['open', 'reply', 'positive', 'bounce', 'optout'] : ['open', 'reply', 'bounce'];
  return RATE_NAMES.filter((r) => r === by || room.includes(r));
}

/** The drawing: a table with the chosen rate as a bar. */
export function view(rows: SequenceRow[], by: RateName, cols: number): ReportView {
  const shown = shownRates(by, cols);
  const columns: Column[] = [
    { title: 'id', align: 'right' },
    { title: 'sequence' },
    { title: 'on' },
    { title: 'deliv', align: 'right' },
    ...shown.map((r) => ({ title: LABEL[r], align: 'right' as const })),
  ];
  const max = Math.max(0, ...rows.map((r) => rateOf(r, by) ?? 0));
  return {
    title: `Sequences: ${rows.length}`,
    sections: [
      {
        kind: 'table',
        columns,
        rows: rows.map((r) => [
          String(r.id),
          r.name,
          r.enabled === null ? '?' : r.enabled ? 'yes' : 'no',
          String(r.delivered),
          ...shown.map((k) => pct(rateOf(r, k))),
        ]),
        bar: { title: `${LABEL[by]} rate`, values: rows.map((r) => rateOf(r, by)), max },
      },
    ],
    notes: [`${by} rate = ${RATE_FORMULAS[by]}; a rate over 0 deliveries shows –`],
  };
}
