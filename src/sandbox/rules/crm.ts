/**
 * Prospects and accounts: `optedOut` sets `optedOutAt`, the full name is derived, the
 * contact histogram is computed on request, and only `named` accounts appear in the index.
 */
import { ruleError } from '../errors.js';
import type { ParsedQuery } from '../query/query.js';
import type { Rec, Store } from '../data/store.js';
import type { TypeRules, WriteInput } from './types.js';
import { nowText } from './util.js';

/** States in which an enrolment counts as active (spec: prospect `activeSequenceStates`). */
export const ACTIVE_STATES = new Set(['active', 'paused', 'failed', 'bounced', 'pending', 'disabled']);

function fullName(first: unknown, last: unknown): string | null {
  const n = [first, last].filter((x) => typeof x === 'string' && x).join(' ');
  return n || null;
}

function prospectWrite(store: Store, rec: Rec | undefined, input: WriteInput): void {
  const a = input.attributes;
  if ('optedOut' in a) {
    const was = rec?.attributes['optedOut'] === true;
    if (a['optedOut'] === true && !was) a['optedOutAt'] = nowText(store);
    if (a['optedOut'] !== true) a['optedOutAt'] = null;
  }
  if ('firstName' in a || 'lastName' in a) {
    const first = 'firstName' in a ? a['firstName'] : rec?.attributes['firstName'];
    const last = 'lastName' in a ? a['lastName'] : rec?.attributes['lastName'];
    a['name'] = fullName(first, last);
  }
}

/**
 * `[inbound, outbound]` per month for the last 12 months (current month last), counted from
 * the prospect's calls (by direction) and mailings (delivered = outbound, replied = inbound).
 */
export function contactHistogram(store: Store, rec: Rec): [number, number][] {
  const now = new Date(store.now());
  const months: [number, number][] = Array.from({ length: 12 }, () => [0, 0]);
  const slot = (text: unknown): number => {
    if (typeof text !== 'string') return -1;
    const d = new Date(text.endsWith('Z') ? text : text + 'Z');
    const diff = (now.getUTCFullYear() - d.getUTCFullYear()) * 12 + now.getUTCMonth() - d.getUTCMonth();
    return diff >= 0 && diff < 12 ? 11 - diff : -1;
  };
  const me = { type: 'prospect', id: rec.id };
  for (const id of store.referrers('call', 'prospect', me) ?? []) {
    const c = store.get('call', id)!;
    const i = slot(c.attributes['dialedAt'] ?? c.attributes['createdAt']);
    if (i >= 0) months[i]![c.attributes['direction'] === 'inbound' ? 0 : 1]++;
  }
  for (const id of store.referrers('mailing', 'prospect', me) ?? []) {
    const m = store.get('mailing', id)!;
    const out = slot(m.attributes['deliveredAt']);
    if (out >= 0) months[out]![1]++;
    const back = slot(m.attributes['repliedAt']);
    if (back >= 0) months[back]![0]++;
  }
  return months;
}

export const prospectRules: TypeRules = {
  beforeCreate: (ctx, input) => prospectWrite(ctx.store, undefined, input),
  beforeUpdate: (ctx, rec, input) => prospectWrite(ctx.store, rec, input),
  computed: { contactHistogram },
  relationFilter: {
    activeSequenceStates: (_store, _owner, member) => ACTIVE_STATES.has(String(member.attributes['state'])),
  },
};

/**
 * `named` is never cleared: an account without it would be in no list at all (the index shows
 * named ones, `filter[named]` matches true or false), so a mirror would take it for deleted.
 */
function refuseNullNamed(input: WriteInput): void {
  if ('named' in input.attributes && input.attributes['named'] === null)
    throw ruleError('named must be true or false: an account is named or not.', '/data/attributes/named');
}

export const accountRules: TypeRules = {
  // Accounts created through the API are named unless the client says otherwise.
  beforeCreate: (_ctx, input) => {
    refuseNullNamed(input);
    input.attributes['named'] ??= true;
  },
  beforeUpdate: (_ctx, _rec, input) => refuseNullNamed(input),
  // "Only named accounts appear in the collection index"; an explicit filter[named] wins.
  visibleInIndex: (rec: Rec, q: ParsedQuery) => q.filters.some((f) => f.path[0] === 'named') || rec.attributes['named'] === true,
};

export const userRules: TypeRules = {
  beforeCreate: (_ctx, input) => {
    input.attributes['name'] = fullName(input.attributes['firstName'], input.attributes['lastName']);
  },
  beforeUpdate: (_ctx, rec, input) => {
    const a = input.attributes;
    if ('firstName' in a || 'lastName' in a) {
      a['name'] = fullName(
        'firstName' in a ? a['firstName'] : rec.attributes['firstName'],
        'lastName' in a ? a['lastName'] : rec.attributes['lastName'],
      );
    }
  },
};

export const templateRules: TypeRules = {
  // "A template created without a name is hidden from template lists."
  visibleInIndex: (rec) => typeof rec.attributes['name'] === 'string' && rec.attributes['name'] !== '',
};
