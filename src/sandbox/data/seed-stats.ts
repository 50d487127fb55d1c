/**
 * The seeded org's delivery statistics. Every enrolment walks its sequence's steps in order, as
 * far as time allows, and each e-mail step leaves one mailing whose outcome (bounced, failed,
 * delivered, opened, clicked, replied with a sentiment, opted out) moves the same counters on the
 * enrolment, the step, the step's template, the sequence and the prospect. So the counters agree
 * with each other and with the mailings, as they do on a real org: the sum over a sequence's
 * steps is the sequence, the sum over a step's templates is the step, and so on.
 *
 * Aggregates count mailings, not events: a mailing opened three times counts one open (its own
 * `openCount` says three), so delivered ≥ opened ≥ clicked always holds.
 *
 * It draws from its own PRNG so that the rest of the org (tasks, calls, deals) stays the same
 * whatever this module does.
 */
import { hasAttribute } from './model.js';
import { Prng } from './prng.js';
import { resourceByType } from '../../registry/index.js';
import type { Rec, Ref, RelValue, Store } from './store.js';
import { isoSeconds } from './time.js';

const DAY = 86_400_000;

type Attrs = Record<string, unknown>;

/** What the seed hands over: its record factory and references. */
interface SeedTools {
  store: Store;
  add(type: string, attrs: Attrs, rels?: Record<string, RelValue>): Rec | undefined;
  ref(type: string, id: number): Ref;
  /** The start of today (UTC), the seed's "now": nothing seeded as done is dated after it. */
  now: number;
  owner: Ref;
}

/** One enrolment as the seed drew it; the statistics decide the rest. */
interface Enrolment {
  prospect: Rec;
  sequenceId: number;
  state: string;
  mailbox: Ref;
}

/** How well a template does: chances per delivered mailing (reply and click given an open). */
interface Profile {
  open: number;
  click: number;
  reply: number;
}

const SENTIMENTS = ['positiveReplyCount', 'neutralReplyCount', 'negativeReplyCount'] as const;

/** Adds `by` to a counter of a record, when its type has the counter. */
function add1(type: string, rec: Rec | undefined, key: string, by = 1): void {
  if (!rec) return;
  const rt = resourceByType(type);
  if (rt && hasAttribute(rt, key)) rec.attributes[key] = ((rec.attributes[key] as number | undefined) ?? 0) + by;
}

/**
 * Seasonal weight of a date: busy in spring and autumn, quiet in August and late December, as
 * outbound e-mail is; the contact histograms show it.
 */
function seasonWeight(ms: number): number {
  const d = new Date(ms);
  const m = d.getUTCMonth();
  const base = [0.8, 1.0, 1.15, 1.2, 1.1, 0.9, 0.65, 0.45, 1.0, 1.2, 1.1, 0.55][m]!;
  return base;
}

/** The statistics engine of the seed. */
export class SeedStats {
  private readonly rnd: Prng;
  private readonly profiles = new Map<number, Profile>();

  constructor(
    private readonly t: SeedTools,
    seed: number,
  ) {
    this.rnd = new Prng(seed ^ 0x5ea50);
  }

  private at(ms: number): string {
    return isoSeconds(ms);
  }

  /**
   * Gives the first step of every sequence a second template (an A/B test), and every
   * template on a step its own performance, B better than A on odd sequences.
   */
  addVariants(templates: number[]): void {
    const s = this.t.store;
    for (const seqId of s.table('sequence').keys()) {
      const steps = this.stepsOf(seqId);
      const first = steps.find((st) => st.attributes['stepType'] === 'auto_email');
      if (!first) continue;
      const existing = this.templatesOf(first.id);
      const used = new Set(existing.map((st) => (st.rels['template'] as Ref | null)?.id));
      const other = templates.find((id) => !used.has(id));
      if (other === undefined) continue;
      const created = this.at(this.t.now - 150 * DAY);
      this.t.add(
        'sequenceTemplate',
        { isReply: false, enabled: true, enabledAt: created, createdAt: created, ...zeroCounters() },
        { sequenceStep: this.t.ref('sequenceStep', first.id), template: this.t.ref('template', other), creator: this.t.owner },
      );
    }
    for (const id of s.table('sequenceTemplate').keys()) {
      const st = s.get('sequenceTemplate', id)!;
      const step = s.get('sequenceStep', (st.rels['sequenceStep'] as Ref).id);
      const seqId = (step?.rels['sequence'] as Ref | undefined)?.id ?? 0;
      const second = this.templatesOf(step?.id ?? 0)[1]?.id === id;
      // Per opened mailing; with opens of 45–65 % a reply rate of 5–18 % of delivered, below the click rate mostly.
      const reply = second ? (seqId % 2 ? 0.3 : 0.1) : seqId % 2 ? 0.12 : 0.16;
      this.profiles.set(id, { open: 0.45 + this.rnd.next() * 0.2, click: 0.2 + this.rnd.next() * 0.15, reply });
    }
  }

  private stepsOf(seqId: number): Rec[] {
    const s = this.t.store;
    return [...(s.referrers('sequenceStep', 'sequence', { type: 'sequence', id: seqId }) ?? [])]
      .map((id) => s.get('sequenceStep', id)!)
      .sort((a, b) => Number(a.attributes['order']) - Number(b.attributes['order']));
  }

  private templatesOf(stepId: number): Rec[] {
    const s = this.t.store;
    return [...(s.referrers('sequenceTemplate', 'sequenceStep', { type: 'sequenceStep', id: stepId }) ?? [])]
      .sort((a, b) => a - b)
      .map((id) => s.get('sequenceTemplate', id)!);
  }

  /** A start date in the last `days` days, weighted by season. */
  private startMs(days: number): number {
    for (;;) {
      const ms = this.t.now - this.rnd.int(1, days) * DAY - this.rnd.int(0, DAY - 1000);
      if (this.rnd.next() * 1.2 < seasonWeight(ms)) return ms;
    }
  }

  /** Creates the enrolment, its mailings and calls, and moves every counter they touch. */
  enrol(e: Enrolment): Rec | undefined {
    const { store, add, ref, owner } = this.t;
    const steps = this.stepsOf(e.sequenceId);
    const sequence = store.get('sequence', e.sequenceId);
    // A live org: one enrolment in ten started this week, so some mailings still wait to go.
    const start = this.rnd.chance(0.1) ? this.t.now - this.rnd.int(0, 7 * DAY) : this.startMs(330);
    const at = this.at(start);
    const p = e.prospect;
    const ss = add(
      'sequenceState',
      {
        state: e.state,
        stateChangedAt: at,
        activeAt: at,
        createdAt: at,
        updatedAt: at,
        pauseReason: e.state === 'paused' ? 'manual' : null,
        ...zeroCounters(),
      },
      {
        prospect: ref('prospect', p.id),
        sequence: ref('sequence', e.sequenceId),
        mailbox: e.mailbox,
        sequenceStep: steps[0] ? ref('sequenceStep', steps[0].id) : null,
        account: (p.rels['account'] as Ref) ?? null,
        creator: owner,
      },
    );
    if (!ss) return undefined;
    this.history(e);
    let state = e.state;
    let lastChange = start;
    let current = steps[0];
    // A paused enrolment stopped after its first step; a finished one sends nothing more.
    const stepLimit = state === 'paused' ? 1 : steps.length;
    for (let k = 0; k < stepLimit; k++) {
      const step = steps[k]!;
      const due = start + Number(step.attributes['interval'] ?? 0) * 60_000;
      const type = String(step.attributes['stepType']);
      const email = type === 'auto_email' || type === 'manual_email';
      if (due > this.t.now && !(email && state === 'active')) break;
      current = step;
      if (type === 'call') {
        const answered = this.rnd.chance(0.45);
        // An hour after the step fell due, unless that is still ahead of the seed's clock.
        const t = this.at(Math.min(due + 3_600_000, this.t.now));
        add(
          'call',
          {
            direction: 'outbound',
            outcome: answered ? 'Answered' : 'Not Answered',
            dialedAt: t,
            answeredAt: answered ? t : null,
            completedAt: t,
            state: 'completed',
            stateChangedAt: t,
            createdAt: t,
            updatedAt: t,
            to: (p.attributes['workPhones'] as string[] | undefined)?.[0] ?? null,
            from: '+1 555 000 0001',
            userCallType: 'voip',
            note: null,
          },
          {
            prospect: ref('prospect', p.id),
            user: owner,
            sequence: ref('sequence', e.sequenceId),
            sequenceState: ref('sequenceState', ss.id),
            sequenceStep: ref('sequenceStep', step.id),
            callDisposition: ref('callDisposition', answered ? 1 : 2),
            callPurpose: ref('callPurpose', 1),
          },
        );
        lastChange = due;
        continue;
      }
      if (!email) continue;
      const variants = this.templatesOf(step.id);
      const st = variants.length ? variants[this.rnd.int(0, variants.length - 1)]! : undefined;
      const outcome = this.mailing(e, ss, step, st, sequence, due);
      if (outcome === 'scheduled') break;
      lastChange = due;
      if (outcome !== 'sent') {
        state = outcome;
        break;
      }
    }
    ss.attributes['state'] = state;
    if (state !== e.state) ss.attributes['stateChangedAt'] = this.at(lastChange);
    if (current && current !== steps[0]) {
      // Through update, so that the step's reverse index knows the enrolment moved on.
      store.update('sequenceState', ss.id, {}, { sequenceStep: ref('sequenceStep', current.id) }, { silent: true });
    }
    ss.attributes['updatedAt'] = this.at(lastChange);
    return ss;
  }

  /**
   * The prospect's one-off e-mails of the past year (outside any sequence), on dates weighted by
   * season, some answered: what gives its contact histogram a shape. They move no sequence counter.
   */
  private history(e: Enrolment): void {
    const { store, add, ref, owner } = this.t;
    const p = e.prospect;
    const address = store.get('mailbox', e.mailbox.id)?.attributes['email'] ?? null;
    // Fewer than the sequence's own (most of an org's mail goes out in sequences), and answered
    // as one-off mail is: opened by some, clicked and replied by fewer of those.
    for (let n = this.rnd.int(0, 2); n > 0; n--) {
      const sent = this.startMs(364);
      const opened = this.rnd.chance(0.4);
      const clicked = opened && this.rnd.chance(0.3);
      const replied = opened && this.rnd.chance(0.2);
      const openedAt = sent + this.rnd.int(10, 48 * 60) * 60_000;
      const clickedAt = openedAt + this.rnd.int(1, 120) * 60_000;
      const back = openedAt + this.rnd.int(1, 72) * 3_600_000;
      const last = replied ? back : clicked ? clickedAt : opened ? openedAt : sent;
      const t = (ms: number) => this.at(Math.min(ms, this.t.now - 60_000));
      touch(p, t(last));
      add(
        'mailing',
        {
          subject: 'Checking in',
          bodyHtml: '<p>Checking in.</p>',
          bodyText: 'Checking in.',
          mailingType: 'single',
          state: replied ? 'replied' : opened ? 'opened' : 'delivered',
          deliveredAt: t(sent),
          openedAt: opened ? t(openedAt) : null,
          clickedAt: clicked ? t(clickedAt) : null,
          repliedAt: replied ? t(back) : null,
          openCount: opened ? this.rnd.int(1, 3) : 0,
          clickCount: clicked ? 1 : 0,
          retryCount: 0,
          mailboxAddress: address,
          stateChangedAt: t(last),
          createdAt: t(sent - 60_000),
          updatedAt: t(last),
        },
        { prospect: ref('prospect', p.id), mailbox: e.mailbox, user: owner },
      );
    }
  }

  /**
   * One mailing of an e-mail step and its counters. Returns 'sent', 'scheduled' (due later), or
   * the state the enrolment ends in: finished (a reply finishes it), bounced, opted_out, failed.
   */
  private mailing(
    e: Enrolment,
    ss: Rec,
    step: Rec,
    st: Rec | undefined,
    sequence: Rec | undefined,
    due: number,
  ): 'sent' | 'scheduled' | 'finished' | 'bounced' | 'opted_out' | 'failed' {
    const { store, add, ref, owner } = this.t;
    const p = e.prospect;
    const tplRef = (st?.rels['template'] as Ref | undefined) ?? null;
    const tpl = tplRef ? store.get('template', tplRef.id) : undefined;
    const targets: [string, Rec | undefined][] = [
      ['sequenceState', ss],
      ['sequenceStep', step],
      ['sequenceTemplate', st],
      ['sequence', sequence],
    ];
    const bumpAll = (key: string) => {
      for (const [type, r] of targets) add1(type, r, key);
    };
    const rels = {
      prospect: ref('prospect', p.id),
      sequence: ref('sequence', e.sequenceId),
      sequenceState: ref('sequenceState', ss.id),
      sequenceStep: ref('sequenceStep', step.id),
      template: tplRef,
      mailbox: e.mailbox,
      user: owner,
    };
    const base = {
      subject: tpl?.attributes['subject'] ?? 'Hello',
      bodyHtml: tpl?.attributes['bodyHtml'] ?? '<p>Hello</p>',
      bodyText: 'Hello',
      mailingType: 'sequence',
      retryCount: 0,
      mailboxAddress: store.get('mailbox', e.mailbox.id)?.attributes['email'] ?? null,
    };
    if (due > this.t.now) {
      const t = this.at(Math.max(due, this.t.now + 3_600_000));
      const created = this.at(this.t.now - 3_600_000);
      add(
        'mailing',
        {
          ...base,
          state: 'scheduled',
          scheduledAt: t,
          openCount: 0,
          clickCount: 0,
          stateChangedAt: created,
          createdAt: created,
          updatedAt: created,
        },
        rels,
      );
      bumpAll('scheduleCount');
      return 'scheduled';
    }
    const sent = due + this.rnd.int(60_000, 3_600_000);
    const t = (ms: number) => this.at(Math.min(ms, this.t.now - 60_000));
    const created = t(due);
    if (this.rnd.chance(0.01)) {
      add(
        'mailing',
        {
          ...base,
          state: 'failed',
          errorReason: 'SMTP 421: try again later',
          openCount: 0,
          clickCount: 0,
          stateChangedAt: t(sent),
          createdAt: created,
          updatedAt: t(sent),
        },
        rels,
      );
      bumpAll('failureCount');
      return 'failed';
    }
    bumpAll('deliverCount');
    touch(p, t(sent));
    if (this.rnd.chance(0.035)) {
      add(
        'mailing',
        {
          ...base,
          state: 'bounced',
          deliveredAt: t(sent),
          bouncedAt: t(sent + 120_000),
          openCount: 0,
          clickCount: 0,
          stateChangedAt: t(sent + 120_000),
          createdAt: created,
          updatedAt: t(sent + 120_000),
        },
        rels,
      );
      bumpAll('bounceCount');
      return 'bounced';
    }
    const prof = (st && this.profiles.get(st.id)) ?? { open: 0.5, click: 0.25, reply: 0.2 };
    const opened = this.rnd.chance(prof.open);
    const clicked = opened && this.rnd.chance(prof.click);
    const replied = opened && this.rnd.chance(prof.reply);
    const optedOut = !replied && opened && this.rnd.chance(0.04);
    const openedAt = opened ? sent + this.rnd.int(10, 48 * 60) * 60_000 : 0;
    const clickedAt = clicked ? openedAt + this.rnd.int(1, 120) * 60_000 : 0;
    const repliedAt = replied ? openedAt + this.rnd.int(10, 72 * 60) * 60_000 : 0;
    const opens = opened ? this.rnd.int(1, 3) : 0;
    const last = Math.max(sent, openedAt, repliedAt);
    add(
      'mailing',
      {
        ...base,
        state: replied ? 'replied' : opened ? 'opened' : 'delivered',
        deliveredAt: t(sent),
        openedAt: opened ? t(openedAt) : null,
        clickedAt: clicked ? t(clickedAt) : null,
        repliedAt: replied ? t(repliedAt) : null,
        unsubscribedAt: optedOut ? t(openedAt + 60_000) : null,
        openCount: opens,
        clickCount: clicked ? 1 : 0,
        stateChangedAt: t(last),
        createdAt: created,
        updatedAt: t(last),
      },
      rels,
    );
    if (opened) {
      bumpAll('openCount');
      add1('prospect', p, 'openCount');
      p.attributes['engagedAt'] = t(openedAt);
      p.attributes['engagedScore'] = ((p.attributes['engagedScore'] as number | undefined) ?? 0) + 1;
    }
    if (clicked) {
      bumpAll('clickCount');
      add1('prospect', p, 'clickCount');
      p.attributes['engagedScore'] = ((p.attributes['engagedScore'] as number | undefined) ?? 0) + 2;
    }
    if (replied) {
      bumpAll('replyCount');
      const r = this.rnd.next();
      bumpAll(SENTIMENTS[r < 0.45 ? 0 : r < 0.8 ? 1 : 2]);
      add1('prospect', p, 'replyCount');
      p.attributes['engagedScore'] = ((p.attributes['engagedScore'] as number | undefined) ?? 0) + 5;
      ss.attributes['repliedAt'] = t(repliedAt);
      return 'finished';
    }
    if (optedOut) {
      bumpAll('optOutCount');
      Object.assign(p.attributes, { optedOut: true, optedOutAt: t(openedAt + 60_000), emailsOptStatus: 'opted_out' });
      return 'opted_out';
    }
    return 'sent';
  }
}

/** Moves the prospect's last touch forward (never back: records are not made in date order). */
function touch(p: Rec, at: string): void {
  const cur = p.attributes['touchedAt'];
  if (typeof cur !== 'string' || cur < at) p.attributes['touchedAt'] = at;
}

/** The eleven counters at zero. */
export function zeroCounters(): Attrs {
  return {
    bounceCount: 0,
    clickCount: 0,
    deliverCount: 0,
    failureCount: 0,
    negativeReplyCount: 0,
    neutralReplyCount: 0,
    openCount: 0,
    optOutCount: 0,
    positiveReplyCount: 0,
    replyCount: 0,
    scheduleCount: 0,
  };
}
