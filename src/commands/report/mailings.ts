/**
 * `svc report mailings`: mailings delivered in a date range (default: the last 30 days), grouped
 * by delivery day, week (starting Monday), mailbox or sequence, with how many of them were
 * opened, clicked, replied to and bounced (the mailings that carry `openedAt`, `clickedAt`,
 * `repliedAt`, `bouncedAt`). Days, weeks and the range's dates are local to the report's zone
 * (`--tz`, else the machine's: src/time-zone.ts); the range is sent as the UTC instants its days
 * begin and end at.
 *
 * Requests: ⌈mailings ÷ 1,000⌉, asking only for the five timestamps, the mailbox address and the
 * sequence link (sequence names included in the same responses).
 */
import { apiTime } from '../../api-time.js';
import type { Filter } from '../../api/filter.js';
import type { ResourceObject } from '../../api/jsonapi.js';
import type { Context } from '../../runtime/context.js';
import { resourceByType } from '../../registry/index.js';
import { buildListQuery } from '../resource-commands/query-options.js';
import { recordId } from '../../listing/record-text.js';
import type { ReportView } from './model.js';
import { pct, ratio } from './rates.js';
import { byKey, checkReportOutput, emit, fetcher, parseBy, relId, reportZone, type ReportFlags } from './shared.js';
import { addDays, daysBetween, mondayOf, zoneText, type Zone } from '../../time-zone.js';

/** What `--by` groups by (the first is the default). */
export const GROUP_BY = ['day', 'week', 'mailbox', 'sequence'] as const;
type GroupBy = (typeof GROUP_BY)[number];

/** One group (also the record of `-o json`); rates are over the group's delivered mailings. */
interface MailingRow {
  group: string;
  delivered: number;
  opened: number;
  clicked: number;
  replied: number;
  bounced: number;
  openRate: number | null;
  clickRate: number | null;
  replyRate: number | null;
  bounceRate: number | null;
  /** By week: the days of the week inside the range (a first or last week may have fewer than 7). */
  days?: number;
  /** By sequence: the sequence's id (a number, as `list` writes ids; null: not in a sequence), beside `group`'s "name (id)". */
  sequence?: number | string | null;
  /** By sequence: the sequence's name alone. */
  sequenceName?: string | null;
}

/** A service timestamp (UTC, with or without `Z`) as milliseconds. */
function ms(v: unknown): number | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  const t = apiTime(v);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * Groups mailings into rows, by their local delivery day or week in `zone`; `keys` lists the day
 * or week keys to show even when empty.
 */
export function groupMailings(
  mailings: readonly ResourceObject[],
  by: GroupBy,
  label: (m: ResourceObject) => string,
  zone: Zone,
  keys: string[] = [],
): MailingRow[] {
  const rows = new Map<string, MailingRow>();
  const row = (g: string) => {
    let r = rows.get(g);
    if (!r)
      rows.set(
        g,
        (r = {
          group: g,
          delivered: 0,
          opened: 0,
          clicked: 0,
          replied: 0,
          bounced: 0,
          openRate: null,
          clickRate: null,
          replyRate: null,
          bounceRate: null,
        }),
      );
    return r;
  };
  for (const k of keys) row(k);
  for (const m of mailings) {
    const a = m.attributes ?? {};
    const at = ms(a['deliveredAt']);
    if (at === undefined) continue;
    const r = row(by === 'day' ? zone.date(at) : by === 'week' ? mondayOf(zone.date(at)) : label(m));
    r.delivered++;
    if (ms(a['openedAt']) !== undefined) r.opened++;
    if (ms(a['clickedAt']) !== undefined) r.clicked++;
    if (ms(a['repliedAt']) !== undefined) r.replied++;
    if (ms(a['bouncedAt']) !== undefined) r.bounced++;
  }
  const round = (x: number | null) => (x === null ? null : Math.round(x * 10_000) / 10_000);
  const out = [...rows.values()];
  for (const r of out)
    Object.assign(r, {
      openRate: round(ratio(r.opened, r.delivered)),
      clickRate: round(ratio(r.clicked, r.delivered)),
      replyRate: round(ratio(r.replied, r.delivered)),
      bounceRate: round(ratio(r.bounced, r.delivered)),
    });
  if (by === 'day' || by === 'week') out.sort((x, y) => (x.group < y.group ? -1 : x.group > y.group ? 1 : 0));
  else out.sort((x, y) => y.delivered - x.delivered || (x.group < y.group ? -1 : 1));
  return out;
}

/** Days (or the Mondays of their weeks) from `from` to `to`, both `YYYY-MM-DD`. */
export function calendar(from: string, to: string, by: 'day' | 'week'): string[] {
  const out: string[] = [];
  const step = by === 'day' ? 1 : 7;
  for (let d = by === 'day' ? from : mondayOf(from); d <= to && out.length < 1000; d = addDays(d, step)) out.push(d);
  return out;
}

/** Runs `svc report mailings`. */
export async function mailingsReport(ctx: Context, flags: ReportFlags): Promise<void> {
  checkReportOutput(ctx, flags);
  const by = parseBy<GroupBy>(flags.by, GROUP_BY);
  const zone = reportZone(ctx, flags);
  const filters = [...(flags.filter ?? [])];
  const now = ctx.clock.now();
  const today = zone.date(now);
  const ranged = filters.some((f) => /^\s*deliveredAt\s*=/.test(f));
  if (!ranged) filters.push(`deliveredAt=${addDays(today, -29)}..`);
  // The range's days (and `7d`, `today`) are the report's zone's, sent as the UTC instants they
  // begin and end at (resource-commands/filter-checks.ts, as list sends them).
  const query = buildListQuery(resourceByType('mailing')!, { filter: filters }, (m) => ctx.warn(m), { now, zone: () => zone });
  const dates = query.filters?.find((x) => x.path.length === 1 && x.path[0] === 'deliveredAt');
  query.fields = {
    mailing: ['deliveredAt', 'openedAt', 'clickedAt', 'repliedAt', 'bouncedAt', 'mailboxAddress', 'mailbox', 'sequence'],
    sequence: ['name'],
  };
  if (by === 'sequence') query.include = ['sequence'];
  const f = await fetcher(ctx);
  const { data, included } = await f.list('mailings', query);
  const range = rangeOf(dates, zone, today, firstDay(data, zone, by));
  const inc = byKey(included);
  // By sequence, each group's id and name, for the two columns of its own that CSV gets.
  const sequences = new Map<string, Pick<MailingRow, 'sequence' | 'sequenceName'>>();
  const label = (m: ResourceObject) => {
    if (by === 'mailbox')
      return String(m.attributes?.['mailboxAddress'] ?? (relId(m, 'mailbox') ? `mailbox ${relId(m, 'mailbox')}` : '(no mailbox)'));
    const sid = relId(m, 'sequence');
    const name = sid === undefined ? null : inc.get(`sequence:${sid}`)?.attributes?.['name'];
    const group = sid ? `${String(name ?? 'sequence')} (${sid})` : '(not in a sequence)';
    sequences.set(group, { sequence: sid ? recordId(sid) : null, sequenceName: typeof name === 'string' ? name : null });
    return group;
  };
  const keys = (by === 'day' || by === 'week') && range ? calendar(range[0], range[1], by) : [];
  const grouped = groupMailings(data, by, label, zone, keys);
  // JSON keeps `group` (scripts read it) and gains the two beside it; CSV has the two instead.
  const rows = by === 'sequence' ? grouped.map(({ group, ...r }) => ({ group, ...sequences.get(group), ...r })) : grouped;
  const csvRows = by === 'sequence' ? rows.map(({ group: _, ...r }) => r) : undefined;
  if (by === 'week' && range) for (const r of rows) r.days = daysInRange(r.group, range);
  const rangeText = range ? `${range[0]} to ${range[1]}` : 'the filtered mailings';
  const what = by === 'day' ? 'days' : by === 'week' ? 'weeks (from Monday)' : "the range's days";
  const v = view(rows, by, rangeText, ctx.io.columns);
  v.notes.unshift(`${what} in ${zoneText(zone, now, range)}`);
  await emit(ctx, flags, 'report mailings', v, rows as unknown as Record<string, unknown>[], f, zone, csvRows);
}

/** How many of the 7 days of the week starting on Monday `monday` fall in `range` (local dates). */
export function daysInRange(monday: string, range: [string, string]): number {
  const first = Math.max(0, daysBetween(monday, range[0]));
  const last = Math.min(6, daysBetween(monday, range[1]));
  return last < first ? 0 : last - first + 1;
}

/**
 * The local day of the first delivery (by week, its Monday): where a range without a start
 * (`deliveredAt=..2026-11-29`) begins. Without it the days and weeks with no delivery were left
 * out, so the chart closed its gaps (a trial: January went straight on to March), and weeks had
 * no `days`.
 */
function firstDay(mailings: readonly ResourceObject[], zone: Zone, by: GroupBy): string | undefined {
  let first: number | undefined;
  for (const m of mailings) {
    const at = ms(m.attributes?.['deliveredAt']);
    if (at !== undefined && (first === undefined || at < first)) first = at;
  }
  if (first === undefined) return undefined;
  return by === 'week' ? mondayOf(zone.date(first)) : zone.date(first);
}

/**
 * The local days a deliveredAt filter covers (an open end stops today; an open start begins at
 * `first`, the first delivery): the day each bound falls on. Its days were turned into the
 * instants they begin and end at (the filter checks), and a date-time given is the API's, UTC
 * unless it says otherwise.
 */
function rangeOf(f: Filter | undefined, zone: Zone, today: string, first: string | undefined): [string, string] | undefined {
  const day = (v: string | undefined) => {
    if (v === undefined) return v;
    const t = apiTime(v);
    return Number.isNaN(t) ? undefined : zone.date(t);
  };
  const [from, to] =
    f?.kind === 'range'
      ? [f.from === undefined ? first : day(f.from), f.to === undefined ? today : day(f.to)]
      : f?.kind === 'eq'
        ? [day(f.values[0]), day(f.values[0])]
        : [];
  return from !== undefined && to !== undefined && to >= from ? [from, to] : undefined;
}

/** The drawing: one row per group with counts and rates, the delivered count as a bar. */
export function view(rows: MailingRow[], by: GroupBy, rangeText: string, cols: number): ReportView {
  const max = Math.max(0, ...rows.map((r) => r.delivered));
  const total = rows.reduce(
    (a, r) => ({ d: a.d + r.delivered, o: a.o + r.opened, c: a.c + r.clicked, r: a.r + r.replied, b: a.b + r.bounced }),
    { d: 0, o: 0, c: 0, r: 0, b: 0 },
  );
  const wide = cols >= 100;
  // A week the range covers only in part is marked: its lower counts are not a dip.
  const partial = rows.filter((r) => r.days !== undefined && r.days < 7);
  const notes = partial.length
    ? [
        `* a partial week: the range covers only ${partial.map((r) => `${r.days} of the 7 days of ${r.group}`).join(' and ')}; its counts are not comparable to whole weeks`,
      ]
    : [];
  return {
    title: `Mailings by ${by}: ${total.d} delivered, ${rangeText}`,
    subtitle: `opened ${total.o} (${pct(ratio(total.o, total.d))}) · clicked ${total.c} (${pct(ratio(total.c, total.d))}) · replied ${total.r} (${pct(ratio(total.r, total.d))}) · bounced ${total.b} (${pct(ratio(total.b, total.d))})`,
    sections: [
      {
        kind: 'table',
        columns: [
          { title: by },
          { title: 'deliv', align: 'right' },
          { title: 'open', align: 'right' },
          { title: 'click', align: 'right' },
          { title: 'reply', align: 'right' },
          { title: 'bounce', align: 'right' },
          ...(wide ? [{ title: 'reply %', align: 'right' as const }] : []),
        ],
        rows: rows.map((r) => [
          r.days !== undefined && r.days < 7 ? `${r.group}*` : r.group,
          String(r.delivered),
          String(r.opened),
          String(r.clicked),
          String(r.replied),
          String(r.bounced),
          ...(wide ? [pct(r.replyRate)] : []),
        ]),
        bar: { title: 'delivered', values: rows.map((r) => r.delivered), max },
      },
    ],
    notes: [
      ...notes,
      'open, click, reply, bounce: delivered mailings of the group that have openedAt, clickedAt, repliedAt, bouncedAt; rates over delivered',
    ],
  };
}
