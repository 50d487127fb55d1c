/**
 * `svc report prospect <id>`: the prospect's contact histogram (12 months, current month last,
 * inbound vs outbound) as a two-series column chart, its engagement counters, and its active
 * sequence states with their counters. The last touch and engagement are dated in the report's
 * zone; the histogram's months are the API's own (it counts them, svc cannot split them again),
 * named as the sandbox counts them: by the month in UTC.
 *
 * Requests: 1 (the prospect with `contactHistogram`, which the service sends only when asked for,
 * and its active sequence states and their sequences' names included).
 */
import { apiTime } from '../../api-time.js';
import type { ResourceObject } from '../../api/jsonapi.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { recordId } from '../../listing/record-text.js';
import type { ReportView, Section } from './model.js';
import { countersOf, pct, ratesOf } from './rates.js';
import { byKey, checkReportOutput, emit, fetcher, relId, relIds, reportZone, type ReportFlags } from './shared.js';
import { zoneText, type Zone } from '../../time-zone.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const COUNTERS = ['openCount', 'replyCount', 'engagedScore', 'touchedAt', 'engagedAt', 'optedOut'] as const;

/** The months of a 12-slot histogram ending with the month of `now`, as `YYYY-MM`. */
export function histogramMonths(now: number): string[] {
  const d = new Date(now);
  return Array.from({ length: 12 }, (_, i) => {
    const m = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 11 + i, 1));
    return `${m.getUTCFullYear()}-${String(m.getUTCMonth() + 1).padStart(2, '0')}`;
  });
}

/** `[inbound, outbound]` pairs as given, or zeros for a missing or malformed histogram. */
export function histogramPairs(v: unknown): [number, number][] {
  const list = Array.isArray(v) ? v : [];
  const pairs = list.slice(-12).map((p): [number, number] => (Array.isArray(p) ? [Number(p[0]) || 0, Number(p[1]) || 0] : [0, 0]));
  while (pairs.length < 12) pairs.unshift([0, 0]);
  return pairs;
}

/** Runs `svc report prospect <id>`. */
export async function prospectReport(ctx: Context, idArg: string, flags: ReportFlags): Promise<void> {
  if (!/^\s*[1-9]\d*\s*$/.test(idArg)) throw new UsageError(`report prospect ${idArg}: expected a prospect id (a positive integer)`);
  if (flags.by !== undefined) throw new UsageError('report prospect has no --by');
  checkReportOutput(ctx, flags);
  const zone = reportZone(ctx, flags);
  const f = await fetcher(ctx);
  const { data: p, included } = await f.get(`prospects/${idArg.trim()}`, {
    include: ['activeSequenceStates.sequence'],
    fields: {
      prospect: ['name', 'contactHistogram', ...COUNTERS, 'activeSequenceStates'],
      sequenceState: [
        'state',
        'stateChangedAt',
        'sequence',
        'deliverCount',
        'openCount',
        'clickCount',
        'replyCount',
        'bounceCount',
        'optOutCount',
      ],
      sequence: ['name'],
    },
  });
  const inc = byKey(included);
  const months = histogramMonths(ctx.clock.now());
  const pairs = histogramPairs(p.attributes?.['contactHistogram']);
  const states = relIds(p, 'activeSequenceStates')
    .map((id) => inc.get(`sequenceState:${id}`))
    .filter((s): s is ResourceObject => !!s);
  const a = p.attributes ?? {};
  const rows: Record<string, unknown>[] = [
    { kind: 'prospect', id: recordId(p.id), name: a['name'] ?? null, ...Object.fromEntries(COUNTERS.map((k) => [k, a[k] ?? null])) },
    ...months.map((month, i) => ({ kind: 'month', month, inbound: pairs[i]![0], outbound: pairs[i]![1] })),
    ...states.map((s) => {
      const c = countersOf(s.attributes);
      const sid = relId(s, 'sequence');
      return {
        kind: 'sequenceState',
        id: recordId(s.id),
        state: s.attributes?.['state'] ?? null,
        sequence: sid === undefined ? null : recordId(sid),
        sequenceName: sid ? (inc.get(`sequence:${sid}`)?.attributes?.['name'] ?? null) : null,
        delivered: c.deliverCount,
        opened: c.openCount,
        clicked: c.clickCount,
        replied: c.replyCount,
        bounced: c.bounceCount,
        // Not `optedOut`: the prospect's row has that, the flag as `prospects list` writes it, and
        // CSV has one column per name (a trial's sheet read counts as the flag, and jq's
        // `select(.optedOut)` took every state, 0 being true there).
        optOuts: c.optOutCount,
      };
    }),
  ];
  await emit(ctx, flags, 'report prospect', view(rows, zone, ctx.clock.now()), rows, f, zone);
}

/** The drawing: the histogram as columns, counters as lines, active sequence states as a table. */
function view(rows: Record<string, unknown>[], zone: Zone, now: number): ReportView {
  const fmt = (v: unknown) => {
    const t = apiTime(v);
    return Number.isNaN(t) ? 'never' : zone.date(t);
  };
  const p = rows.find((r) => r['kind'] === 'prospect')!;
  const months = rows.filter((r) => r['kind'] === 'month');
  const states = rows.filter((r) => r['kind'] === 'sequenceState');
  const inbound = months.map((m) => Number(m['inbound']));
  const outbound = months.map((m) => Number(m['outbound']));
  const sum = (l: number[]) => l.reduce((x, y) => x + y, 0);
  const sections: Section[] = [
    { kind: 'heading', text: `Contacts per month: ${sum(inbound)} inbound, ${sum(outbound)} outbound (12 months, this month last)` },
    {
      kind: 'columns',
      labels: months.map((m) => MONTHS[Number(String(m['month']).slice(5)) - 1]!),
      series: [
        { name: 'inbound', values: inbound },
        { name: 'outbound', values: outbound },
      ],
    },
    { kind: 'heading', text: 'Engagement' },
    {
      kind: 'text',
      lines: [
        `opens ${p['openCount'] ?? 0} · replies ${p['replyCount'] ?? 0} (since the last touch point) · engaged score ${p['engagedScore'] ?? 0}${p['optedOut'] === true ? ' · opted out' : ''}`,
        `last touched ${fmt(p['touchedAt'])} · last engaged ${fmt(p['engagedAt'])}`,
      ],
    },
    { kind: 'heading', text: `Active sequence states: ${states.length}` },
  ];
  if (states.length) {
    sections.push({
      kind: 'table',
      columns: [
        { title: 'state id', align: 'right' },
        { title: 'sequence' },
        { title: 'state' },
        { title: 'deliv', align: 'right' },
        { title: 'open', align: 'right' },
        { title: 'reply', align: 'right' },
      ],
      rows: states.map((s) => {
        const r = ratesOf(countersOf({ deliverCount: s['delivered'], openCount: s['opened'], replyCount: s['replied'] }));
        return [
          String(s['id']),
          `${s['sequenceName'] ?? 'sequence'} (${s['sequence'] ?? '?'})`,
          String(s['state']),
          String(s['delivered']),
          pct(r.open),
          pct(r.reply),
        ];
      }),
    });
  }
  return {
    title: `Prospect ${p['name'] ?? ''} (${p['id']})`,
    sections,
    notes: [
      'inbound: replies and inbound calls; outbound: delivered mailings and outbound calls',
      `dates in ${zoneText(zone, now)}; the histogram's months are the API's, named by the month in UTC`,
    ],
  };
}
