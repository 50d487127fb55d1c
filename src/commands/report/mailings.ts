/**
 * `svc report mailings`: mailings delivered in a date range (default: the last 30 days), grouped
 * by delivery day, week (starting Monday), mailbox or sequence, with how many of them were
 * opened, clicked, replied to and bounced (the mailings that carry `openedAt`, `clickedAt`,
 * `repliedAt`, `bouncedAt`).
 *
 * Requests: ⌈mailings ÷ 1,000⌉, asking only for the five timestamps, the mailbox address and the
 * sequence link (sequence names included in the same responses).
 */
import { apiTime } from '../../api-time.js';
import type { ResourceObject } from '../../api/jsonapi.js';
import type { Context } from '../../runtime/context.js';
import { resourceByType } from '../../registry/index.js';
import { buildListQuery } from '../resource-commands/query-options.js';
import type { ReportView } from './model.js';
import { pct, ratio } from './rates.js';
import { byKey, checkReportOutput, emit, fetcher, parseBy, relId, type ReportFlags } from './shared.js';

const DAY = 86_400_000;
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
}

/** A service timestamp (UTC, with or without `Z`) as milliseconds. */
function ms(v: unknown): number | undefined {
  if (typeof v !== 'string' || !v) return undefined;
  const t = apiTime(v);
  return Number.isNaN(t) ? undefined : t;
}

const day = (t: number) => new Date(t).toISOString().slice(0, 10);
/** The Monday of a date's week (ISO weeks start on Monday). */
const monday = (t: number) => day(t - ((new Date(t).getUTCDay() + 6) % 7) * DAY);

/** Groups mailings into rows; `days` lists the day or week keys to show even when empty. */
export function groupMailings(
  mailings: readonly ResourceObject[],
  by: GroupBy,
  label: (m: ResourceObject) => string,
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
    const r = row(by === 'day' ? day(at) : by === 'week' ? monday(at) : label(m));
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

/** Days (or week starts) from `from` to `to`, both as milliseconds. */
export function calendar(from: number, to: number, by: 'day' | 'week'): string[] {
  const out: string[] = [];
  for (let t = from; t <= to && out.length < 1000; t += by === 'day' ? DAY : 7 * DAY) out.push(by === 'day' ? day(t) : monday(t));
  return out;
}

/** Runs `svc report mailings`. */
export async function mailingsReport(ctx: Context, flags: ReportFlags): Promise<void> {
  checkReportOutput(ctx, flags);
  const by = parseBy<GroupBy>(flags.by, GROUP_BY);
  const filters = [...(flags.filter ?? [])];
  const now = ctx.clock.now();
  const defaultFrom = Math.floor(now / DAY) * DAY - 29 * DAY;
  const ranged = filters.some((f) => /^\s*deliveredAt\s*=/.test(f));
  if (!ranged) filters.push(`deliveredAt=${day(defaultFrom)}..`);
  const query = buildListQuery(resourceByType('mailing')!, { filter: filters }, (m) => ctx.warn(m));
  query.fields = {
    mailing: ['deliveredAt', 'openedAt', 'clickedAt', 'repliedAt', 'bouncedAt', 'mailboxAddress', 'mailbox', 'sequence'],
    sequence: ['name'],
  };
  if (by === 'sequence') query.include = ['sequence'];
  const f = await fetcher(ctx);
  const { data, included } = await f.list('mailings', query);
  const inc = byKey(included);
  const label = (m: ResourceObject) => {
    if (by === 'mailbox')
      return String(m.attributes?.['mailboxAddress'] ?? (relId(m, 'mailbox') ? `mailbox ${relId(m, 'mailbox')}` : '(no mailbox)'));
    const sid = relId(m, 'sequence');
    return sid ? `${String(inc.get(`sequence:${sid}`)?.attributes?.['name'] ?? 'sequence')} (${sid})` : '(not in a sequence)';
  };
  const range = rangeOf(
    query.filters?.find((x) => x.path[0] === 'deliveredAt'),
    now,
  );
  const keys = (by === 'day' || by === 'week') && range ? calendar(range[0], range[1], by) : [];
  const rows = groupMailings(data, by, label, keys);
  if (by === 'week' && range) for (const r of rows) r.days = daysInRange(r.group, range);
  const rangeText = range ? `${day(range[0])} to ${day(range[1])}` : 'the filtered mailings';
  await emit(ctx, flags, 'report mailings', view(rows, by, rangeText, ctx.io.columns), rows as unknown as Record<string, unknown>[], f);
}

/** How many of the 7 days of the week starting on Monday `monday` (YYYY-MM-DD) fall in `range`. */
export function daysInRange(monday: string, range: [number, number]): number {
  const start = Date.parse(`${monday}T00:00:00Z`);
  const first = Math.max(start, Math.floor(range[0] / DAY) * DAY);
  const last = Math.min(start + 6 * DAY, Math.floor(range[1] / DAY) * DAY);
  return last < first ? 0 : Math.round((last - first) / DAY) + 1;
}

/** The days a deliveredAt range covers (an open end stops today), when its ends are dates. */
function rangeOf(f: { kind: string; from?: string; to?: string } | undefined, now: number): [number, number] | undefined {
  if (f?.kind !== 'range') return undefined;
  const from = ms(f.from?.length === 10 ? f.from + 'T00:00:00' : f.from);
  const to = f.to === undefined ? now : ms(f.to.length === 10 ? f.to + 'T00:00:00' : f.to);
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
