/**
 * The deterministic demo organization. Every type of the registry gets records; the types the
 * spec's workflows revolve around get believable, connected ones. Same seed, same org.
 */
import { findRelationship, RESOURCES, resourceByType, type ResourceType } from '../../registry/index.js';
import { hasAttribute, storedRels } from './model.js';
import { Prng } from './prng.js';
import { SeedStats, zeroCounters } from './seed-stats.js';
import { refCache } from '../rules/util.js';
import * as W from './seed-words.js';
import type { Rec, Ref, RelValue, Store } from './store.js';
import { isoSeconds } from './time.js';
import { plantDuplicates } from './seed-duplicates.js';

/** Prospects in the default org. */
export const DEFAULT_PROSPECTS = 25;
const DAY = 86_400_000;

type Attrs = Record<string, unknown>;

/** One shared empty list: stored values are replaced, never mutated. */
const NONE: readonly string[] = Object.freeze([]);

/**
 * Keeps only attributes and relationships the registry has for the type, the attributes as
 * `{ createdAt: created, updatedAt: created, ...attrs }` would give them (in that order, a null
 * dropping the date), without making that object first.
 */
function fit(rt: ResourceType, created: string, attrs: Attrs, rels: Record<string, RelValue>): [Attrs, Record<string, RelValue>] {
  const a: Attrs = {};
  const createdAt = 'createdAt' in attrs ? attrs['createdAt'] : created;
  if (createdAt != null && hasAttribute(rt, 'createdAt')) a['createdAt'] = createdAt;
  const updatedAt = 'updatedAt' in attrs ? attrs['updatedAt'] : created;
  if (updatedAt != null && hasAttribute(rt, 'updatedAt')) a['updatedAt'] = updatedAt;
  for (const k in attrs) {
    if (k === 'createdAt' || k === 'updatedAt') continue;
    const v = attrs[k];
    if (v != null && hasAttribute(rt, k)) a[k] = v;
  }
  const r: Record<string, RelValue> = {};
  for (const k in rels) if (findRelationship(rt, k)) r[k] = rels[k]!;
  return [a, r];
}

/**
 * Seeds `store` with the demo org; `prospects` is the number of prospects, `duplicates` the
 * percentage of them that get a planted duplicate (seed-duplicates.ts), `now` the instant it is
 * seeded as of (the store's clock by default; tests fix it to get the same org on any day).
 */
export function seedOrg(
  store: Store,
  prospects = DEFAULT_PROSPECTS,
  seed = 42,
  duplicates = 0,
  now: number = store.now(),
): { ownerUserId: number } {
  const rnd = new Prng(seed ^ prospects);
  // Dates are relative to the start of today (UTC): the same seed gives the same org all day
  // long, the org's activity always falls in the last months (contact histograms, "latest
  // events"), and nothing that has happened is dated later than the clock.
  const SEED_NOW = Math.floor(now / DAY) * DAY;
  const ref = refCache();
  const time = (daysAgo: number) => isoSeconds(SEED_NOW - daysAgo * DAY - rnd.int(0, DAY - 1000));
  const add = (type: string, attrs: Attrs, rels: Record<string, RelValue> = {}): Rec | undefined => {
    const rt = resourceByType(type);
    if (!rt) return undefined;
    const created = (attrs['createdAt'] as string | undefined) ?? time(rnd.int(30, 365));
    const [a, r] = fit(rt, created, attrs, rels);
    return store.insert(type, a, r, { silent: true });
  };
  const ids = (type: string) => [...store.table(type).keys()];
  const pickRef = (type: string): Ref | null => {
    const list = ids(type);
    return list.length ? ref(type, rnd.pick(list)) : null;
  };

  // People and structure.
  W.USERS.forEach(([first, last], i) => {
    add('user', {
      firstName: first,
      lastName: last,
      name: `${first} ${last}`,
      email: `${first.toLowerCase()}.${last.toLowerCase()}@acme-rockets.test`,
      username: first.toLowerCase(),
      locked: false,
      createdAt: time(400 - i),
    });
  });
  const owner = ref('user', 1);
  const users = ids('user');
  add('team', { name: 'Sales' });
  add('team', { name: 'Customer Success' });
  ['Admin', 'Sales Manager', 'Sales Rep'].forEach((name, i) => {
    add('role', { name }, i ? { parentRole: ref('role', 1) } : {});
  });
  ['Administrator', 'Standard'].forEach((name) => {
    add('profile', { name });
  });
  W.STAGES.forEach((name, i) => {
    add('stage', { name, order: i + 1 });
  });
  W.PERSONAS.forEach((name) => {
    add('persona', { name, description: `${name} persona` });
  });
  ['High', 'Medium', 'Low'].forEach((name) => {
    add('taskPriority', { name });
  });
  ['Prospecting', 'Follow-up', 'Demo'].forEach((name) => {
    add('taskPurpose', { name });
    add('callPurpose', { name, order: ids('callPurpose').length + 1 }, { creator: owner });
  });
  ['Completed', 'No answer', 'Left voicemail'].forEach((name) => {
    add('taskDisposition', { name });
  });
  [
    ['Connected', 'Answered'],
    ['No Answer', 'Not Answered'],
    ['Voicemail', 'Not Answered'],
  ].forEach(([name, outcome], i) => {
    add('callDisposition', { name, outcome, order: i + 1 }, { creator: owner });
  });
  ['Prospecting', 'Qualification', 'Proposal', 'Closed Won'].forEach((name, i) => {
    add('opportunityStage', { name, order: i + 1 });
  });
  ['account_executive', 'sales_development', 'customer_success', 'sales_manager'].forEach((symbolicName) => {
    add('duty', { symbolicName, dutyType: 'Duty' });
  });
  ['Onboarding', 'Enterprise'].forEach((name, i) => {
    add(
      'contentCategory',
      { name, allowSequences: true, allowSnippets: i === 0, allowTemplates: true, color: i ? '#3366ff' : '#22aa55' },
      { creator: owner },
    );
  });
  add('orgSetting', {});

  // Mail.
  users.slice(0, 3).forEach((uid) => {
    const u = store.get('user', uid)!;
    const email = String(u.attributes['email']);
    add(
      'mailbox',
      {
        email,
        username: email,
        userId: uid,
        editable: true,
        sendMethod: 'smtp',
        smtpHost: 'smtp.acme-rockets.test',
        smtpPort: 587,
        smtpSsl: true,
        syncMethod: 'imap',
        imapHost: 'imap.acme-rockets.test',
        imapPort: 993,
        imapSsl: true,
        maxMailingsPerDay: 500,
        maxMailingsPerWeek: 5000,
        sendPeriod: 60,
        sendThreshold: 2,
        sendDisabled: false,
        syncDisabled: false,
        providerType: 'sandbox',
      },
      { user: ref('user', uid), creator: owner },
    );
  });
  const mailboxes = ids('mailbox');

  // Content and sequences.
  add(
    'ruleset',
    { name: 'Default', permitDuplicateProspects: 'disallow', sequenceExclusivity: 'none', includeUnsubscribeLinks: true },
    { owner },
  );
  add(
    'ruleset',
    {
      name: 'Exclusive outbound',
      permitDuplicateProspects: 'only_if_inactive',
      sequenceExclusivity: 'exclusive_sequences',
      includeUnsubscribeLinks: true,
    },
    { owner, finishedStage: ref('stage', 2), repliedStage: ref('stage', 3) },
  );
  const templates: number[] = [];
  [
    ['Quick intro', 'Quick question, {{first_name}}'],
    ['Follow-up', 'Following up'],
    ['Event invite', 'Join us at the spring event'],
    ['Break-up', 'Should I close your file?'],
  ].forEach(([name, subject]) => {
    const t = add(
      'template',
      { name, subject, bodyHtml: `<p>Hi {{first_name}},</p><p>${subject}.</p><p>Best,<br>{{sender.first_name}}</p>` },
      { owner },
    );
    if (t) templates.push(t.id);
  });
  ['Signature', 'Case study link'].forEach((name) => {
    add('snippet', { name, bodyHtml: `<p>${name}</p>` }, { owner });
  });
  W.SEQUENCES.forEach(([name, description], i) => {
    const seq = add(
      'sequence',
      {
        name,
        description,
        sequenceType: 'interval',
        enabled: true,
        enabledAt: time(200),
        locked: false,
        primaryReplyAction: 'finish',
        finishOnReply: true,
        bounceCount: 0,
        failureCount: 0,
        clickCount: 0,
        deliverCount: 0,
        lastUsedAt: time(rnd.int(1, 20)),
      },
      { ruleset: ref('ruleset', i === 1 ? 2 : 1), owner },
    );
    if (!seq) return;
    (['auto_email', 'call', 'auto_email'] as const).forEach((stepType, j) => {
      const step = add(
        'sequenceStep',
        {
          stepType,
          order: j + 1,
          interval: j === 0 ? 0 : 1440 * 2 * j,
          taskNote: stepType === 'call' ? 'Call and reference the e-mail.' : null,
          ...zeroCounters(),
        },
        {
          sequence: ref('sequence', seq.id),
          creator: owner,
          ...(stepType === 'call' ? { callPurpose: ref('callPurpose', 1), taskPriority: ref('taskPriority', 1) } : {}),
        },
      );
      if (step && stepType === 'auto_email')
        add(
          'sequenceTemplate',
          {
            isReply: j > 0,
            enabled: true,
            enabledAt: time(200),
            ...zeroCounters(),
          },
          { sequenceStep: ref('sequenceStep', step.id), template: ref('template', templates[(i + j) % templates.length]!), creator: owner },
        );
    });
  });

  const stats = new SeedStats({ store, add, ref, now: SEED_NOW, owner }, seed ^ prospects);
  stats.addVariants(templates);

  // Accounts and prospects.
  const accountCount = Math.max(5, Math.min(10_000, Math.ceil(prospects / 10)));
  for (let i = 0; i < accountCount; i++) {
    const name = `${rnd.pick(W.COMPANY_A)} ${rnd.pick(W.COMPANY_B)}${i >= W.COMPANY_A.length * W.COMPANY_B.length ? ` ${i}` : ''}`;
    const domain = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.test`;
    add(
      'account',
      {
        name,
        domain,
        named: i % 5 !== 4,
        industry: rnd.pick(W.INDUSTRIES),
        locality: rnd.pick(W.CITIES),
        numberOfEmployees: rnd.int(10, 5000),
        websiteUrl: `https://${domain}`,
        tags: rnd.chance(0.3) ? [rnd.pick(W.TAGS)] : [],
        custom1: rnd.pick(['Enterprise', 'Mid-Market', 'SMB']),
      },
      { owner: ref('user', rnd.pick(users)), creator: owner },
    );
  }
  const accounts = ids('account');
  const stages = ids('stage');
  const personas = ids('persona');
  const withRecords = prospects <= 5000;
  for (let i = 0; i < prospects; i++) {
    const first = rnd.pick(W.FIRST_NAMES);
    const last = rnd.pick(W.LAST_NAMES);
    const account = store.get('account', rnd.pick(accounts))!;
    const domain = String(account.attributes['domain']);
    const email = `${first}.${last}${i}@${domain}`.toLowerCase();
    const phone = `+1 555 ${String(100 + (i % 900)).padStart(3, '0')} ${String(i % 10000).padStart(4, '0')}`;
    const created = time(rnd.int(1, 365));
    const p = add(
      'prospect',
      {
        firstName: first,
        lastName: last,
        name: `${first} ${last}`,
        emails: [email],
        title: rnd.pick(W.TITLES),
        company: account.attributes['name'],
        workPhones: [phone],
        mobilePhones: rnd.chance(0.4) ? [`+1 555 ${String(i % 1000).padStart(3, '0')} 9${String(i % 1000).padStart(3, '0')}`] : NONE,
        timeZone: rnd.pick(W.TIME_ZONES),
        source: rnd.pick(W.SOURCES),
        tags: rnd.chance(0.2) ? [rnd.pick(W.TAGS)] : NONE,
        addressCity: account.attributes['locality'],
        optedOut: false,
        openCount: 0,
        replyCount: 0,
        clickCount: 0,
        engagedScore: 0,
        emailsOptStatus: 'opted_in',
        createdAt: created,
        updatedAt: created,
        custom1: rnd.pick(W.SOURCES),
        custom2: String(rnd.int(0, 100)),
      },
      {
        account: ref('account', account.id),
        owner: ref('user', rnd.pick(users)),
        creator: owner,
        stage: ref('stage', rnd.pick(stages)),
        persona: rnd.chance(0.5) ? ref('persona', rnd.pick(personas)) : null,
      },
    );
    if (p && withRecords) {
      add('emailAddress', { email, emailType: 'work', order: 0, status: 'Valid', createdAt: created }, { prospect: ref('prospect', p.id) });
      add('phoneNumber', { number: phone, phoneType: 'work', createdAt: created }, { prospect: ref('prospect', p.id) });
    }
  }
  if (duplicates > 0)
    plantDuplicates(
      {
        add,
        get: (type, id) => store.get(type, id),
        ref,
        prospectIds: ids('prospect'),
        accountIds: accounts,
        withRecords,
        seed: seed ^ prospects,
      },
      duplicates,
    );
  const prospectIds = ids('prospect');

  // Activity: enrolments with their mailings, tasks, calls, opportunities.
  const sequences = ids('sequence');
  // A third of the prospects, and at least 20 in a small org, so that the demo org's sequences
  // have delivery statistics to report on.
  const enrol = Math.min(2000, Math.max(Math.ceil(prospects / 3), Math.min(prospects, 20)));
  for (let i = 0; i < enrol && i < prospectIds.length; i++) {
    const pid = prospectIds[i]!;
    const seqId = sequences[i % sequences.length]!;
    const state = rnd.pick(['active', 'active', 'active', 'paused', 'finished']);
    // Drawn and left unused so that the main stream, and with it the rest of the org, is unchanged:
    // dates and outcomes come from the statistics' own stream (seed-stats.ts).
    time(rnd.int(1, 60));
    const mailbox = ref('mailbox', rnd.pick(mailboxes));
    if (rnd.chance(0.4)) rnd.chance(0.3);
    stats.enrol({ prospect: store.get('prospect', pid)!, sequenceId: seqId, state, mailbox });
  }
  const taskCount = Math.min(1000, Math.max(6, Math.ceil(prospects / 5)));
  for (let i = 0; i < taskCount; i++) {
    const pid = rnd.pick(prospectIds);
    const done = rnd.chance(0.3);
    add(
      'task',
      {
        action: rnd.pick(['call', 'email', 'action_item', 'in_person']),
        subject: rnd.pick(['Call back', 'Send pricing', 'Book demo', 'Check in']),
        state: done ? 'completed' : 'incomplete',
        completed: done,
        completedAt: done ? time(rnd.int(1, 10)) : null,
        dueAt: isoSeconds(SEED_NOW + rnd.int(-5, 14) * DAY),
      },
      {
        prospect: ref('prospect', pid),
        user: ref('user', rnd.pick(users)),
        account: (store.get('prospect', pid)!.rels['account'] as Ref) ?? null,
        taskPriority: ref('taskPriority', rnd.int(1, 3)),
      },
    );
  }
  const callCount = Math.min(1000, Math.max(5, Math.ceil(prospects / 5)));
  for (let i = 0; i < callCount; i++) {
    const pid = rnd.pick(prospectIds);
    const answered = rnd.chance(0.5);
    const at = time(rnd.int(1, 300));
    add(
      'call',
      {
        direction: rnd.chance(0.8) ? 'outbound' : 'inbound',
        outcome: answered ? 'Answered' : 'Not Answered',
        dialedAt: at,
        answeredAt: answered ? at : null,
        completedAt: at,
        state: 'completed',
        stateChangedAt: at,
        createdAt: at,
        updatedAt: at,
        to: (store.get('prospect', pid)!.attributes['workPhones'] as string[])[0],
        from: '+1 555 000 0001',
        userCallType: 'voip',
        note: answered ? 'Good conversation.' : null,
      },
      {
        prospect: ref('prospect', pid),
        user: ref('user', rnd.pick(users)),
        callDisposition: ref('callDisposition', answered ? 1 : 2),
        callPurpose: ref('callPurpose', 1),
      },
    );
  }
  const oppCount = Math.min(500, Math.max(3, Math.ceil(accounts.length / 2)));
  for (let i = 0; i < oppCount; i++) {
    add(
      'opportunity',
      {
        name: `Deal ${i + 1}`,
        amount: rnd.int(5, 200) * 1000,
        currencyType: 'USD',
        closeDate: isoSeconds(SEED_NOW + rnd.int(10, 120) * DAY),
        probability: rnd.pick([10, 25, 50, 75]),
      },
      {
        account: ref('account', rnd.pick(accounts)),
        opportunityStage: ref('opportunityStage', rnd.int(1, 4)),
        owner: ref('user', rnd.pick(users)),
      },
    );
  }

  // Every other type gets a couple of generic records, so that every collection answers.
  for (const rt of RESOURCES) {
    if (store.table(rt.type).size || rt.type === 'webhook' || rt.type === 'complianceRequest' || rt.type === 'event') continue;
    for (let i = 1; i <= 2; i++) {
      const attrs: Attrs = {};
      for (const a of rt.attributes) {
        if (a.name === 'name') attrs['name'] = `${rt.type} ${i}`;
        else if (a.enum?.length) attrs[a.name] = a.enum[i % a.enum.length];
      }
      const rels: Record<string, RelValue> = {};
      for (const r of storedRels(rt)) if (r.kind === 'one' && r.target && r.target !== rt.type) rels[r.name] = pickRef(r.target);
      add(rt.type, attrs, rels);
    }
  }
  return { ownerUserId: owner.id };
}
