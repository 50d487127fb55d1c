/**
 * Realistic sample deliveries built from the registry (`svc webhooks trigger`): the attributes a
 * real delivery of that event would carry, with plausible values, in the version-1 or version-2
 * body shape of the spec (Events, Delivery).
 */
import { resourceByType, type AttributeSpec, type ResourceType } from '../registry/index.js';

/** Options of {@link buildSampleDelivery}. */
interface SampleOptions {
  resource: string;
  action: string;
  /** 1 (default) or 2 (adds `beforeUpdate` on changes). */
  payloadVersion?: 1 | 2;
  /** Id of the sample record. @default 42 */
  id?: number | string;
  /** Time of the event, epoch ms. @default Date.now() */
  now?: number;
}

/** A delivery body as the service sends it. */
interface SampleDelivery {
  data: { type: string; id: number | string; attributes: Record<string, unknown>; relationships?: Record<string, unknown> };
  beforeUpdate?: Record<string, unknown>;
  meta: { deliveredAt: string; eventName: string };
}

const NAMED: Record<string, unknown> = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  middleName: 'Augusta',
  nickname: 'Ada',
  title: 'VP Engineering',
  occupation: 'Engineer',
  company: 'Analytical Engines Ltd',
  domain: 'example.com',
  industry: 'Software',
  email: 'ada.lovelace@example.com',
  emails: ['ada.lovelace@example.com'],
  subject: 'Quick question about your roadmap',
  bodyHtml: '<p>Hi Ada, do you have 15 minutes this week?</p>',
  bodyText: 'Hi Ada, do you have 15 minutes this week?',
  timeZone: 'Europe/London',
  locality: 'London',
  region: 'England',
  tags: ['sample'],
  note: 'Left a voicemail.',
  description: 'Sample record sent by svc webhooks trigger.',
  to: '+44 20 7946 0018',
  from: '+44 20 7946 0999',
  currencyType: 'GBP',
  role: 'Decision Maker',
};

/** A plausible value for an attribute (by name first, then by type). */
function sampleValue(rt: ResourceType, a: AttributeSpec, iso: string): unknown {
  if (a.name in NAMED) return NAMED[a.name];
  if (a.name === 'name') return rt.type === 'prospect' || rt.type === 'user' ? 'Ada Lovelace' : `Sample ${rt.type}`;
  if (a.enum?.length) return a.enum[0];
  switch (a.type) {
    case 'string': {
      if (/url$/i.test(a.name)) return `https://example.com/${a.name.replace(/url$/i, '').toLowerCase() || 'page'}`;
      if (/email/i.test(a.name)) return 'ada.lovelace@example.com';
      const s = `sample ${a.name}`;
      return a.maxLength ? s.slice(0, a.maxLength) : s;
    }
    case 'string[]':
      return /phone/i.test(a.name) ? ['+44 20 7946 0018'] : [`sample ${a.name}`];
    case 'integer':
      return /count$/i.test(a.name) ? 1 : /order|priority/i.test(a.name) ? 1 : 100;
    case 'number':
      return 42.5;
    case 'boolean':
      return false;
    case 'date':
      return iso.slice(0, 10);
    case 'date-time':
      return iso;
    case 'object':
      return {};
    case 'array':
      return [];
  }
}

function isObservable(a: AttributeSpec): boolean {
  return !a.writeOnly && !a.onlyOnRequest;
}

/** Attributes a creation sets: the type's usual fields plus its timestamps. */
function createdAttributes(rt: ResourceType, iso: string): Record<string, unknown> {
  const wanted = new Set([...rt.promptFields, ...rt.defaultColumns, 'state', 'createdAt', 'updatedAt']);
  let list = rt.attributes.filter((a) => isObservable(a) && wanted.has(a.name));
  if (list.length === 0) list = rt.attributes.filter(isObservable);
  const out: Record<string, unknown> = {};
  for (const a of list) out[a.name] = sampleValue(rt, a, iso);
  if (rt.type === 'sequenceState' && 'state' in out) out.state = 'active';
  if (rt.type === 'task' && 'state' in out) out.state = 'incomplete';
  return out;
}

/** Relationships a destroyed delivery carries: the embedded to-one ones, with sample ids. */
function sampleRelationships(rt: ResourceType): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = 7;
  for (const r of rt.relationships) {
    if (!r.data || r.kind !== 'one' || !r.target) continue;
    out[r.name] = { data: { type: r.target, id: n++ } };
  }
  return out;
}

/** What changes for an action: new values and old values. */
function changesFor(
  rt: ResourceType,
  action: string,
  iso: string,
  earlier: string,
): { after: Record<string, unknown>; before: Record<string, unknown> } {
  const has = (n: string) => rt.attributes.some((a) => a.name === n);
  const after: Record<string, unknown> = {};
  const before: Record<string, unknown> = {};
  const set = (name: string, value: unknown, old: unknown) => {
    if (!has(name)) return;
    after[name] = value;
    before[name] = old;
  };
  if (action === 'updated') {
    // The first field people edit: a writable string among the usual ones.
    const editable = rt.attributes.filter(
      (a) => !a.readOnly && a.type === 'string' && !a.enum && [...rt.promptFields, ...rt.defaultColumns].includes(a.name),
    );
    const field = ['title', 'name', 'subject'].map((n) => editable.find((a) => a.name === n)).find(Boolean) ?? editable[0];
    if (field) {
      const old = sampleValue(rt, field, earlier);
      set(field.name, field.name === 'title' ? 'CTO' : `${String(old)} (edited)`, old);
    }
  } else {
    const stateOf: Record<string, [string, string]> = {
      finished: ['finished', 'active'],
      completed: ['completed', 'incomplete'],
      bounced: ['bounced', 'delivering'],
      delivered: ['delivered', 'delivering'],
      opened: ['opened', 'delivered'],
      replied: ['replied', 'opened'],
    };
    const st = stateOf[action];
    if (st) {
      set('state', st[0], st[1]);
      set('stateChangedAt', iso, earlier);
    }
    set(`${action}At`, iso, null);
    if (action === 'completed') set('completed', true, false);
    if (action === 'opened') set('openCount', 1, 0);
  }
  set('updatedAt', iso, earlier);
  return { after, before };
}

/**
 * Builds a delivery for `resource.action` (both concrete). Version 2 adds `beforeUpdate` (type,
 * id and the old values of the changed attributes) to deliveries that change a record.
 */
export function buildSampleDelivery(opts: SampleOptions): SampleDelivery {
  const rt = resourceByType(opts.resource);
  if (!rt) throw new Error(`no registry type for webhook resource ${opts.resource}`);
  const now = opts.now ?? Date.now();
  const iso = new Date(now).toISOString();
  const earlier = new Date(now - 86_400_000).toISOString();
  const id = opts.id ?? 42;
  const data: SampleDelivery['data'] = { type: rt.type, id, attributes: {} };
  let beforeUpdate: Record<string, unknown> | undefined;
  if (opts.action === 'created') {
    data.attributes = createdAttributes(rt, iso);
  } else if (opts.action === 'destroyed') {
    data.attributes = createdAttributes(rt, earlier);
    data.relationships = sampleRelationships(rt);
  } else {
    const { after, before } = changesFor(rt, opts.action, iso, earlier);
    data.attributes = after;
    if (opts.action === 'advanced') data.relationships = { sequenceStep: { data: { type: 'sequenceStep', id: 8 } } };
    beforeUpdate = { type: rt.type, id, ...before };
  }
  const body: SampleDelivery = {
    data,
    meta: { deliveredAt: new Date(now + 1234).toISOString(), eventName: `${opts.resource}.${opts.action}` },
  };
  if (opts.payloadVersion === 2 && beforeUpdate) {
    return { data, beforeUpdate, meta: body.meta };
  }
  return body;
}
