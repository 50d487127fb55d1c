/**
 * Sequence automation: enrolment (sequence states) with the ruleset's duplicate and
 * exclusivity rules, the finish/pause/resume actions, and the derived sequence attributes.
 */
import { ruleError } from '../errors.js';
import { zeroCounters } from '../data/seed-stats.js';
import type { Rec, Ref, Store } from '../data/store.js';
import { ACTIVE_STATES } from './crm.js';
import { scheduleStepMailing } from './mailings.js';
import type { RuleContext, TypeRules } from './types.js';
import { follow, nowText, refOf, requireRel } from './util.js';

/** Steps of a sequence in order. */
function stepsOf(store: Store, sequenceId: number): Rec[] {
  const ids = store.referrers('sequenceStep', 'sequence', { type: 'sequence', id: sequenceId }) ?? new Set<number>();
  return [...ids]
    .map((id) => store.get('sequenceStep', id)!)
    .sort((a, b) => ((a.attributes['order'] as number) ?? 0) - ((b.attributes['order'] as number) ?? 0) || a.id - b.id);
}

function statesOf(store: Store, prospectId: number): Rec[] {
  const ids = store.referrers('sequenceState', 'prospect', { type: 'prospect', id: prospectId }) ?? new Set<number>();
  return [...ids].map((id) => store.get('sequenceState', id)!);
}

function rulesetOf(store: Store, sequenceId: number): Rec | undefined {
  return follow(store, store.get('sequence', sequenceId), 'ruleset');
}

function setting(ruleset: Rec | undefined, name: string, dflt: string): string {
  return (ruleset?.attributes[name] as string | undefined) ?? dflt;
}

/** Refuses an enrolment that the ruleset of the sequence (or of another active one) forbids. */
function checkEnrolment(store: Store, prospect: Ref, sequence: Ref): void {
  const ruleset = rulesetOf(store, sequence.id);
  const states = statesOf(store, prospect.id);
  const here = states.filter((s) => refOf(s, 'sequence')?.id === sequence.id);
  const dup = setting(ruleset, 'permitDuplicateProspects', 'disallow');
  const pointer = '/data/relationships/prospect';
  // `optedOut` opts the prospect out of all mailings (spec): a sequence would mail it.
  const p = store.get('prospect', prospect.id)?.attributes;
  if (p?.['optedOut'] === true || p?.['emailsOptStatus'] === 'opted_out') {
    throw ruleError(`Prospect ${prospect.id} has opted out of email and cannot be added to a sequence.`, pointer);
  }
  if (dup === 'disallow' && here.length)
    throw ruleError(`Prospect ${prospect.id} is already in sequence ${sequence.id} and its ruleset disallows duplicates.`, pointer);
  // `onlyIfActive` is how one usage example of the spec spells `only_if_inactive`.
  if ((dup === 'only_if_inactive' || dup === 'onlyIfActive') && here.some((s) => ACTIVE_STATES.has(String(s.attributes['state'])))) {
    throw ruleError(
      `Prospect ${prospect.id} is still active in sequence ${sequence.id}; its ruleset permits a duplicate only when inactive.`,
      pointer,
    );
  }
  const mine = setting(ruleset, 'sequenceExclusivity', 'none');
  for (const s of states) {
    const other = refOf(s, 'sequence');
    if (!other || other.id === sequence.id || s.attributes['state'] !== 'active') continue;
    const theirs = setting(rulesetOf(store, other.id), 'sequenceExclusivity', 'none');
    if (mine === 'all_sequences' || theirs === 'all_sequences') {
      throw ruleError(
        `Prospect ${prospect.id} is active in sequence ${other.id}; sequence exclusivity (all_sequences) forbids adding it to another.`,
        pointer,
      );
    }
    if (mine === 'exclusive_sequences' && theirs === 'exclusive_sequences') {
      throw ruleError(
        `Prospect ${prospect.id} is active in exclusive sequence ${other.id}; exclusive sequences exclude each other.`,
        pointer,
      );
    }
  }
}

function transition(ctx: RuleContext, rec: Rec, from: string, to: string, verb: string, extra: Record<string, unknown> = {}): void {
  if (rec.attributes['state'] !== from) {
    throw ruleError(
      `Cannot ${verb} sequence state ${rec.id}: it is ${String(rec.attributes['state'])}, not ${from}.`,
      '/data/attributes/state',
    );
  }
  const change = ctx.store.update('sequenceState', rec.id, { state: to, stateChangedAt: nowText(ctx.store), ...extra });
  if (change && to === 'finished') ctx.store.emit({ ...change, action: 'finished' });
}

/** The eleven counters of sequences, steps, templates and states (seed-stats.ts sets them at zero). */
const COUNTERS = Object.keys(zeroCounters());

function zeroMissingCounters(attrs: Record<string, unknown>, names: string[] = COUNTERS): void {
  for (const c of names) attrs[c] ??= 0;
}

export const sequenceStateRules: TypeRules = {
  beforeCreate: (ctx, input) => {
    const prospect = requireRel(input.rels, 'prospect', 'A sequence state');
    const sequence = requireRel(input.rels, 'sequence', 'A sequence state');
    requireRel(input.rels, 'mailbox', 'A sequence state');
    checkEnrolment(ctx.store, prospect, sequence);
    const now = nowText(ctx.store);
    Object.assign(input.attributes, { state: 'active', stateChangedAt: now, activeAt: now });
    zeroMissingCounters(input.attributes);
    const first = stepsOf(ctx.store, sequence.id)[0];
    input.rels['sequenceStep'] = first ? { type: 'sequenceStep', id: first.id } : null;
    input.rels['account'] = refOf(ctx.store.get('prospect', prospect.id), 'account') ?? null;
    input.rels['creator'] = { type: 'user', id: ctx.principal.userId };
  },
  afterCreate: (ctx, rec) => {
    const seq = follow(ctx.store, rec, 'sequence');
    if (seq) ctx.store.update('sequence', seq.id, { lastUsedAt: nowText(ctx.store) });
    scheduleStepMailing(ctx, rec);
  },
  actions: {
    finish: (ctx, rec) => transition(ctx, rec, 'active', 'finished', 'finish'),
    pause: (ctx, rec) => transition(ctx, rec, 'active', 'paused', 'pause', { pauseReason: 'manual' }),
    // The spec does not show the state after resume; the sandbox returns the enrolment to active.
    resume: (ctx, rec) => transition(ctx, rec, 'paused', 'active', 'resume', { pauseReason: null }),
  },
  relationFilter: {
    // Mailings and tasks of the step the enrolment is on.
    activeStepMailings: (_s, owner, m) => refOf(m, 'sequenceStep')?.id === refOf(owner, 'sequenceStep')?.id,
    activeStepTasks: (_s, _owner, t) => t.attributes['state'] !== 'completed',
  },
};

export const sequenceRules: TypeRules = {
  beforeCreate: (ctx, input) => {
    const a = input.attributes;
    a['sequenceType'] ??= 'interval';
    Object.assign(a, { enabled: false, locked: false });
    zeroMissingCounters(a, ['bounceCount', 'failureCount', 'clickCount', 'deliverCount']);
    if (a['primaryReplyAction'] === 'finish') a['finishOnReply'] = true;
    input.rels['owner'] ??= { type: 'user', id: ctx.principal.userId };
  },
  computed: {
    automationPercentage: (store, rec) => {
      const steps = stepsOf(store, rec.id);
      return steps.length
        ? Math.round((1000 * steps.filter((s) => s.attributes['stepType'] === 'auto_email').length) / steps.length) / 10
        : 0;
    },
    durationInDays: (store, rec) => {
      const steps = stepsOf(store, rec.id);
      if (rec.attributes['sequenceType'] === 'date') {
        const dates = steps
          .map((s) => s.attributes['date'])
          .filter((d): d is string => typeof d === 'string')
          .sort();
        return dates.length ? Math.round((Date.parse(dates[dates.length - 1]!) - Date.parse(dates[0]!)) / 86_400_000) : 0;
      }
      return Math.round(steps.reduce((n, s) => n + ((s.attributes['interval'] as number) ?? 0), 0) / 1440);
    },
  },
};

export const sequenceStepRules: TypeRules = {
  beforeCreate: (ctx, input) => {
    const seq = requireRel(input.rels, 'sequence', 'A sequence step');
    const steps = stepsOf(ctx.store, seq.id);
    input.attributes['order'] ??= steps.length ? Math.max(...steps.map((s) => (s.attributes['order'] as number) ?? 0)) + 1 : 1;
    zeroMissingCounters(input.attributes);
  },
  computed: {
    displayName: (_store, rec) => {
      const kind = String(rec.attributes['stepType'] ?? 'step').replace(/_/g, ' ');
      return `Step ${String(rec.attributes['order'] ?? '?')} (${kind})`;
    },
  },
};

export const sequenceTemplateRules: TypeRules = {
  beforeCreate: (ctx, input) => {
    requireRel(input.rels, 'sequenceStep', 'A sequence template');
    requireRel(input.rels, 'template', 'A sequence template');
    zeroMissingCounters(input.attributes);
    Object.assign(input.attributes, { enabled: true, enabledAt: nowText(ctx.store) });
  },
};

export const rulesetRules: TypeRules = {
  beforeCreate: (_ctx, input) => {
    input.attributes['permitDuplicateProspects'] ??= 'disallow';
    input.attributes['sequenceExclusivity'] ??= 'none';
  },
};
