/**
 * Mailings: creation defaults, the simulated delivery (queued → delivered after a short delay),
 * and the engagement events (opened, clicked, replied, bounced) that move the counters of the
 * mailing, its prospect, sequence state, step, sequence template and sequence.
 */
import { ruleError } from '../errors.js';
import type { Rec } from '../data/store.js';
import type { RuleContext, TypeRules } from './types.js';
import { bump, follow, nowText, refOf } from './util.js';

/** Engagement events the sandbox can simulate on a delivered mailing. */
export type MailingEvent = 'delivered' | 'opened' | 'clicked' | 'replied' | 'bounced';

function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .trim();
}

/** The records whose counters a mailing moves. */
function counterTargets(ctx: RuleContext, m: Rec): [string, Rec | undefined][] {
  const s = ctx.store;
  const state = follow(s, m, 'sequenceState');
  const step = follow(s, m, 'sequenceStep');
  const template = refOf(m, 'template');
  let seqTemplate: Rec | undefined;
  if (step && template) {
    for (const id of s.referrers('sequenceTemplate', 'sequenceStep', { type: 'sequenceStep', id: step.id }) ?? []) {
      const st = s.get('sequenceTemplate', id);
      if (refOf(st, 'template')?.id === template.id) seqTemplate = st;
    }
  }
  return [
    ['sequenceState', state],
    ['sequenceStep', step],
    ['sequenceTemplate', seqTemplate],
    ['sequence', follow(s, m, 'sequence')],
  ];
}

const COUNTER: Record<MailingEvent, string> = {
  delivered: 'deliverCount',
  opened: 'openCount',
  clicked: 'clickCount',
  replied: 'replyCount',
  bounced: 'bounceCount',
};

/** Sentiment of a simulated reply, by mailing id, so that replies split the way real ones do. */
const REPLY_SENTIMENT = ['positiveReplyCount', 'neutralReplyCount', 'positiveReplyCount', 'negativeReplyCount'] as const;

/** Applies an engagement event; throws 422 when the mailing is not in a state that allows it. */
export function mailingEvent(ctx: RuleContext, m: Rec, event: MailingEvent): void {
  const s = ctx.store;
  const now = nowText(s);
  const state = String(m.attributes['state'] ?? '');
  if (event === 'delivered') {
    if (!['scheduled', 'queued', 'delivering'].includes(state))
      throw ruleError(`Mailing ${m.id} is ${state}; only scheduled or queued mailings can be delivered.`, '/data/attributes/state');
  } else if (!['delivered', 'opened', 'replied'].includes(state)) {
    throw ruleError(`Mailing ${m.id} is ${state}; it must be delivered first.`, '/data/attributes/state');
  }
  // Aggregates count mailings, not events (a second open of a mailing is not a second opened
  // mailing), so that delivered ≥ opened ≥ clicked holds on every step and template.
  const first =
    !(event === 'opened' && m.attributes['openedAt'] != null) &&
    !(event === 'clicked' && m.attributes['clickedAt'] != null) &&
    !(event === 'replied' && state === 'replied');
  const sentiment = event === 'replied' ? REPLY_SENTIMENT[m.id % REPLY_SENTIMENT.length]! : undefined;
  const scheduled = event === 'delivered' && state !== 'delivering';
  const attrs: Record<string, unknown> = {};
  if (event === 'delivered') Object.assign(attrs, { state: 'delivered', deliveredAt: now, stateChangedAt: now });
  if (event === 'opened')
    Object.assign(attrs, {
      openCount: ((m.attributes['openCount'] as number) ?? 0) + 1,
      openedAt: now,
      ...(state === 'delivered' ? { state: 'opened', stateChangedAt: now } : {}),
    });
  if (event === 'clicked') Object.assign(attrs, { clickCount: ((m.attributes['clickCount'] as number) ?? 0) + 1, clickedAt: now });
  if (event === 'replied') Object.assign(attrs, { state: 'replied', repliedAt: now, stateChangedAt: now });
  if (event === 'bounced') Object.assign(attrs, { state: 'bounced', bouncedAt: now, stateChangedAt: now });
  const change = s.update('mailing', m.id, attrs);
  // Webhook actions `delivered`, `opened`, `replied`, `bounced` (clicks only update).
  if (change && event !== 'clicked') s.emit({ ...change, action: event });
  const counter = COUNTER[event];
  for (const [type, rec] of first ? counterTargets(ctx, m) : []) {
    bump(s, type, rec, counter, 1, event === 'replied' ? { repliedAt: now } : {});
    if (sentiment) bump(s, type, s.get(type, rec?.id ?? 0), sentiment);
    // A delivered mailing no longer waits: scheduleCount counts the mailings still to go.
    const cur = rec && s.get(type, rec.id);
    if (scheduled && cur && ((cur.attributes['scheduleCount'] as number | undefined) ?? 0) > 0) bump(s, type, cur, 'scheduleCount', -1);
  }
  const prospect = follow(s, m, 'prospect');
  if (prospect && first && (event === 'opened' || event === 'replied' || event === 'clicked')) {
    const score = ((prospect.attributes['engagedScore'] as number) ?? 0) + (event === 'replied' ? 5 : event === 'clicked' ? 2 : 1);
    bump(s, 'prospect', prospect, counter, 1, { engagedAt: now, engagedScore: score });
  }
  if (prospect && event === 'delivered') s.update('prospect', prospect.id, { touchedAt: now });
  // A reply finishes the enrolment when the sequence says so (finishOnReply / primaryReplyAction).
  const enrolment = follow(s, m, 'sequenceState');
  const sequence = follow(s, m, 'sequence');
  if (
    event === 'replied' &&
    enrolment?.attributes['state'] === 'active' &&
    (sequence?.attributes['finishOnReply'] === true || sequence?.attributes['primaryReplyAction'] === 'finish')
  ) {
    const c = s.update('sequenceState', enrolment.id, { state: 'finished', stateChangedAt: now });
    if (c) s.emit({ ...c, action: 'finished' });
  }
  if (event === 'bounced' && enrolment && ['active', 'paused'].includes(String(enrolment.attributes['state']))) {
    s.update('sequenceState', enrolment.id, { state: 'bounced', stateChangedAt: now });
  }
}

/** Delivers a mailing after the simulated delay (unless it was scheduled for later). */
function scheduleDelivery(ctx: RuleContext, m: Rec): void {
  const at = m.attributes['scheduledAt'];
  const wait = Math.max(ctx.timing.deliveryMs, typeof at === 'string' ? Date.parse(at + 'Z') - ctx.now() : 0);
  ctx.later(wait, () => {
    const cur = ctx.store.get('mailing', m.id);
    if (cur && ['scheduled', 'queued'].includes(String(cur.attributes['state']))) mailingEvent(ctx, cur, 'delivered');
  });
}

/**
 * A new enrolment whose first step is an automatic e-mail gets its mailing, rendered from the
 * step's first template and sent through the enrolment's mailbox.
 */
export function scheduleStepMailing(ctx: RuleContext, state: Rec): void {
  const s = ctx.store;
  const step = follow(s, state, 'sequenceStep');
  if (step?.attributes['stepType'] !== 'auto_email') return;
  const stIds = [...(s.referrers('sequenceTemplate', 'sequenceStep', { type: 'sequenceStep', id: step.id }) ?? [])];
  const template = stIds.length ? follow(s, s.get('sequenceTemplate', stIds[0]!), 'template') : undefined;
  const mailbox = follow(s, state, 'mailbox');
  const html = String(template?.attributes['bodyHtml'] ?? '');
  const m = s.insert(
    'mailing',
    {
      subject: template?.attributes['subject'] ?? null,
      bodyHtml: html || null,
      bodyText: html ? htmlToText(html) : null,
      mailingType: 'sequence',
      mailboxAddress: mailbox?.attributes['email'] ?? null,
      state: 'queued',
      stateChangedAt: nowText(s),
      openCount: 0,
      clickCount: 0,
      retryCount: 0,
    },
    {
      prospect: state.rels['prospect'] ?? null,
      mailbox: state.rels['mailbox'] ?? null,
      sequence: state.rels['sequence'] ?? null,
      sequenceState: { type: 'sequenceState', id: state.id },
      sequenceStep: { type: 'sequenceStep', id: step.id },
      template: template ? { type: 'template', id: template.id } : null,
      user: { type: 'user', id: ctx.principal.userId },
    },
  );
  for (const [type, rec] of counterTargets(ctx, m)) bump(s, type, rec, 'scheduleCount');
  scheduleDelivery(ctx, m);
}

export const mailingRules: TypeRules = {
  beforeCreate: (ctx, input) => {
    const a = input.attributes;
    const s = ctx.store;
    const mailbox = input.rels['mailbox'];
    if (!mailbox || Array.isArray(mailbox)) throw ruleError('A mailing needs the relationship mailbox.', '/data/relationships/mailbox');
    const template =
      input.rels['template'] && !Array.isArray(input.rels['template']) ? s.get('template', input.rels['template'].id) : undefined;
    a['subject'] ??= template?.attributes['subject'] ?? null;
    a['bodyHtml'] ??= template?.attributes['bodyHtml'] ?? null;
    if (typeof a['bodyHtml'] === 'string') a['bodyText'] = htmlToText(a['bodyHtml']);
    a['mailboxAddress'] = s.get('mailbox', mailbox.id)?.attributes['email'] ?? null;
    a['mailingType'] = 'single';
    const future = typeof a['scheduledAt'] === 'string' && Date.parse(a['scheduledAt'] + 'Z') > ctx.now();
    // Only drafts stay put; anything else is on its way.
    if (a['state'] !== 'drafted' && a['state'] !== 'placeholder') a['state'] = future ? 'scheduled' : 'queued';
    Object.assign(a, { stateChangedAt: nowText(s), openCount: 0, clickCount: 0, retryCount: 0 });
    input.rels['user'] = { type: 'user', id: ctx.principal.userId };
  },
  afterCreate: (ctx, rec) => {
    if (['scheduled', 'queued'].includes(String(rec.attributes['state']))) scheduleDelivery(ctx, rec);
  },
};
