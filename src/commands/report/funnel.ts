/**
 * `svc report sequence <id|name>`: the funnel of one sequence, step by step in `order`.
 *
 * Requests: 1 for the sequence (by id; by name, one listing of names, as names are not
 * filterable) + 1 for its steps with their sequence templates and templates included (pages of
 * 1,000) + 1 for the calls of its call steps when it has any + 1 for its enrolments (one page
 * of 1,000 states, only their `state`, with the total counted). A sequence of 10 steps and 20
 * templates takes 4.
 */
import type { ResourceObject } from '../../api/jsonapi.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { recordId } from '../../listing/record-text.js';
import type { ReportView, Section } from './model.js';
import { AB_RULE, COUNTER_NAMES, countersOf, pct, RATE_FORMULAS, ratio, twoProportionTest } from './rates.js';
import { countsAndRates } from './sequences.js';
import { byKey, checkReportOutput, emit, fetcher, relId, relIds, reportZone, type Fetcher, type ReportFlags } from './shared.js';

/** One row of `-o json`: a step, or one of its templates (level `template`, under its step). */
type FunnelRow = {
  level: 'step' | 'template';
  step: number;
  /** Ids are numbers, as `list` writes them (strings only past 2^53). */
  stepId: number | string;
  stepType: string;
  templateId: number | string | null;
  template: string | null;
  calls: number | null;
  answeredCalls: number | null;
  abPValue: number | null;
  abSignificant: boolean | null;
} & ReturnType<typeof countsAndRates>;

const EMAIL = new Set(['auto_email', 'manual_email']);

/** The sequence named by id or by name (exact, case-insensitive; ambiguous names are an error). */
async function resolveSequence(f: Fetcher, idOrName: string, svc: string): Promise<ResourceObject> {
  const fields = { sequence: ['name', 'enabled', 'deliverCount', 'clickCount', 'bounceCount', 'failureCount'] };
  if (/^\s*\d+\s*$/.test(idOrName)) return (await f.get(`sequences/${idOrName.trim()}`, { fields })).data;
  const want = idOrName.trim().toLowerCase();
  if (!want) throw new UsageError('report sequence: give a sequence id or name');
  const all = (await f.list('sequences', { fields })).data;
  const hits = all.filter(
    (s) =>
      String(s.attributes?.['name'] ?? '')
        .trim()
        .toLowerCase() === want,
  );
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1)
    throw new UsageError(`${hits.length} sequences are named "${idOrName}": give an id (${hits.map((h) => h.id).join(', ')})`);
  throw new UsageError(`no sequence named "${idOrName}"`).hint(`list them with: ${svc} sequences list --fields name`);
}

/** Runs `svc report sequence <id|name>`. */
export async function funnelReport(ctx: Context, idOrName: string, flags: ReportFlags): Promise<void> {
  if (flags.by !== undefined) throw new UsageError('report sequence has no --by: the funnel shows every stage');
  checkReportOutput(ctx, flags);
  // Checked before the first request; without --tz the zone is looked up only for a page (emit).
  const zone = flags.tz === undefined ? undefined : reportZone(ctx, flags);
  const f = await fetcher(ctx);
  const seq = await resolveSequence(f, idOrName, svcAgain(ctx));
  const { data: steps, included } = await f.list('sequenceSteps', {
    extra: [['filter[sequence][id]', String(seq.id)]],
    include: ['sequenceTemplates.template'],
    fields: {
      sequenceStep: ['order', 'stepType', 'displayName', 'sequenceTemplates', ...COUNTER_NAMES],
      sequenceTemplate: ['template', 'enabled', ...COUNTER_NAMES],
      template: ['name'],
    },
  });
  steps.sort((a, b) => Number(a.attributes?.['order'] ?? 0) - Number(b.attributes?.['order'] ?? 0));
  const callSteps = steps.filter((s) => s.attributes?.['stepType'] === 'call').map((s) => String(s.id));
  const calls = callSteps.length
    ? (await f.list('calls', { extra: [['filter[sequenceStep][id]', callSteps.join(',')]], fields: { call: ['outcome', 'sequenceStep'] } }))
        .data
    : [];
  const states = await f.page('sequenceStates', {
    extra: [['filter[sequence][id]', String(seq.id)]],
    fields: { sequenceState: ['state'] },
    pageLimit: 1000,
    count: true,
  });
  const enrolments = enrolmentsOf(states.data, states.meta);
  const inc = byKey(included);
  const rows: FunnelRow[] = [];
  for (const s of steps) {
    const type = String(s.attributes?.['stepType'] ?? '');
    const base = { step: Number(s.attributes?.['order'] ?? 0), stepId: recordId(s.id), stepType: type };
    const own = calls.filter((c) => relId(c, 'sequenceStep') === String(s.id));
    const isCall = type === 'call';
    rows.push({
      level: 'step',
      ...base,
      templateId: null,
      template: null,
      calls: isCall ? own.length : null,
      answeredCalls: isCall ? own.filter((c) => c.attributes?.['outcome'] === 'Answered').length : null,
      abPValue: null,
      abSignificant: null,
      ...countsAndRates(countersOf(s.attributes)),
    });
    const tpls = relIds(s, 'sequenceTemplates')
      .map((id) => inc.get(`sequenceTemplate:${id}`))
      .filter((t): t is ResourceObject => !!t);
    const tRows: FunnelRow[] = tpls.map((t) => {
      const tid = relId(t, 'template');
      const name = tid ? String(inc.get(`template:${tid}`)?.attributes?.['name'] ?? `template ${tid}`) : `sequence template ${t.id}`;
      return {
        level: 'template',
        ...base,
        templateId: recordId(t.id),
        template: name,
        calls: null,
        answeredCalls: null,
        abPValue: null,
        abSignificant: null,
        ...countsAndRates(countersOf(t.attributes)),
      };
    });
    const ab = abPair(tRows);
    if (ab) {
      const r = twoProportionTest(ab[0].replied, ab[0].delivered, ab[1].replied, ab[1].delivered);
      if (r.tested) for (const x of ab) Object.assign(x, { abPValue: Math.round(r.p * 10_000) / 10_000, abSignificant: r.significant });
    }
    rows.push(...tRows);
  }
  const name = String(seq.attributes?.['name'] ?? '');
  const v = view(name, String(seq.id), rows, ctx.io.columns);
  v.subtitle = `${enrolmentText(enrolments)}\n${v.subtitle}`;
  // The enrolment figures ride on every row (scripts read one list of rows).
  for (const r of rows) Object.assign(r, { enrolments: enrolments.total, activeEnrolments: enrolments.active });
  await emit(ctx, flags, 'report sequence', v, rows, f, zone);
}

/** Enrolments of a sequence: total (the service's count), and by state when one page held them all. */
interface Enrolments {
  total: number | null;
  active: number | null;
  byState: Record<string, number> | null;
}

/** Enrolment figures from one page of states and its `meta.count`. */
export function enrolmentsOf(states: readonly ResourceObject[], meta: Record<string, unknown>): Enrolments {
  const counted = typeof meta['count'] === 'number' ? meta['count'] : null;
  const complete = meta['count_truncated'] !== true && (counted === null ? states.length < 1000 : counted <= states.length);
  if (!complete) return { total: counted, active: null, byState: null };
  const byState: Record<string, number> = {};
  for (const s of states) {
    const k = String(s.attributes?.['state'] ?? 'unknown');
    byState[k] = (byState[k] ?? 0) + 1;
  }
  return { total: states.length, active: byState['active'] ?? 0, byState };
}

function enrolmentText(e: Enrolments): string {
  if (e.total === null) return 'enrolments: not counted by the service';
  if (!e.byState) return `enrolments: ${e.total} (too many to break down by state in one request)`;
  const parts = Object.entries(e.byState)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n} ${k.replace('_', ' ')}`);
  return `enrolments: ${e.total}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** The two templates of a step with the most deliveries, when it has two or more. */
function abPair(t: FunnelRow[]): [FunnelRow, FunnelRow] | undefined {
  if (t.length < 2) return undefined;
  const [a, b] = [...t].sort((x, y) => y.delivered - x.delivered);
  return [a!, b!];
}

/** The drawing: per step a funnel, then its templates side by side and the A/B verdict. */
export function view(name: string, id: string, rows: FunnelRow[], cols: number): ReportView {
  const steps = rows.filter((r) => r.level === 'step');
  const max = Math.max(1, ...steps.map((s) => s.delivered));
  const sections: Section[] = [];
  for (const s of steps) {
    const tpls = rows.filter((r) => r.level === 'template' && r.stepId === s.stepId);
    sections.push({
      kind: 'heading',
      text: `Step ${s.step} · ${s.stepType.replace('_', ' ')}${tpls.length === 1 ? ` · ${tpls[0]!.template}` : ''}`,
    });
    if (!EMAIL.has(s.stepType)) {
      const lines =
        s.calls !== null
          ? [`calls: ${s.calls} (${s.answeredCalls} answered${s.calls ? `, ${pct(ratio(s.answeredCalls ?? 0, s.calls))}` : ''})`]
          : [];
      lines.push(counterLine(s));
      sections.push({ kind: 'text', lines });
      continue;
    }
    sections.push({
      kind: 'funnel',
      max,
      stages: [
        { label: 'delivered', count: s.delivered, rate: '' },
        { label: 'opened', count: s.opened, rate: pct(s.openRate) },
        { label: 'clicked', count: s.clicked, rate: pct(s.clickRate) },
        { label: 'replied', count: s.replied, rate: pct(s.replyRate) },
      ],
    });
    sections.push({ kind: 'text', lines: detailLines(s) });
    if (tpls.length > 1) {
      const tmax = Math.max(0, ...tpls.map((t) => t.replyRate ?? 0));
      const wide = cols >= 100;
      sections.push({
        kind: 'table',
        columns: [
          { title: 'template' },
          { title: 'deliv', align: 'right' },
          { title: 'open', align: 'right' },
          ...(wide ? [{ title: 'click', align: 'right' as const }] : []),
          { title: 'reply', align: 'right' },
          ...(wide ? [{ title: 'pos', align: 'right' as const }] : []),
        ],
        rows: tpls.map((t) => [
          t.template ?? '',
          String(t.delivered),
          pct(t.openRate),
          ...(wide ? [pct(t.clickRate)] : []),
          pct(t.replyRate),
          ...(wide ? [pct(t.positiveRate)] : []),
        ]),
        bar: { title: 'reply rate', values: tpls.map((t) => t.replyRate), max: tmax },
      });
      sections.push({ kind: 'text', lines: [abLine(tpls)] });
    }
  }
  if (!steps.length) sections.push({ kind: 'text', lines: ['this sequence has no steps'] });
  return {
    title: `Sequence ${name} (${id}): ${steps.length} step${steps.length === 1 ? '' : 's'}`,
    subtitle: 'bars: counts against the most delivered step; rates of delivered',
    sections,
    notes: [`open, click, reply rate = count ÷ deliverCount; bounce rate = ${RATE_FORMULAS.bounce}`, `A/B: ${AB_RULE}`],
  };
}

function counterLine(s: FunnelRow): string {
  return `scheduled ${s.scheduled} · delivered ${s.delivered} · replied ${s.replied}`;
}

function detailLines(s: FunnelRow): string[] {
  return [
    `replies: ${s.positiveReplies} positive, ${s.neutralReplies} neutral, ${s.negativeReplies} negative`,
    `bounced ${s.bounced} (${pct(s.bounceRate)}) · opted out ${s.optedOut} (${pct(s.optoutRate)})${s.failed ? ` · failed ${s.failed}` : ''}${s.scheduled ? ` · scheduled ${s.scheduled}` : ''}`,
  ];
}

function abLine(tpls: FunnelRow[]): string {
  const pair = abPair(tpls)!;
  const r = twoProportionTest(pair[0].replied, pair[0].delivered, pair[1].replied, pair[1].delivered);
  if (!r.tested) return `A/B: not tested, ${r.reason}`;
  const p = r.p < 0.0001 ? '< 0.0001' : `= ${r.p.toFixed(4)}`;
  if (!r.significant) return `A/B: no significant difference in reply rate (p ${p}, z = ${r.z.toFixed(2)})`;
  const win = pair[r.better!]!;
  return `A/B: "${win.template}" replies more: ${pct(win.replyRate)} vs ${pct(pair[1 - r.better!]!.replyRate)}, significant (p ${p}, z = ${r.z.toFixed(2)})`;
}
