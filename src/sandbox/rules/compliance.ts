/**
 * Compliance requests move `pending → running → done` on timers; a `Delete` of a prospect
 * really deletes it, and a request about a prospect that does not exist ends `failed`.
 */
import { randomUUID } from 'node:crypto';
import { ruleError } from '../errors.js';
import type { Rec } from '../data/store.js';
import { destroyRecord } from './cascade.js';
import type { RuleContext, TypeRules } from './types.js';

function step(ctx: RuleContext, id: number, state: string): void {
  if (ctx.store.get('complianceRequest', id)) ctx.store.update('complianceRequest', id, { state });
}

function finish(ctx: RuleContext, id: number): void {
  const req = ctx.store.get('complianceRequest', id);
  if (!req) return;
  const a = req.attributes;
  if (a['objectType'] === 'Prospect') {
    const pid = Number(a['requestObjectId']);
    const prospect = Number.isInteger(pid) ? ctx.store.get('prospect', pid) : undefined;
    if (!prospect) {
      step(ctx, id, 'failed');
      return;
    }
    if (a['requestType'] === 'Delete') destroyRecord(ctx.store, 'prospect', pid);
  } else if (a['requestType'] === 'Delete') {
    // A recipient: forget the address wherever the sandbox stores it as a recipient value.
    for (const r of [...ctx.store.table('recipient').values()])
      if (r.attributes['value'] === a['requestObjectId']) ctx.store.remove('recipient', r.id);
  }
  step(ctx, id, 'done');
}

export const complianceRules: TypeRules = {
  beforeCreate: (ctx, input) => {
    const a = input.attributes;
    for (const name of ['requestType', 'objectType', 'requestObjectId']) {
      if (a[name] == null || a[name] === '') throw ruleError(`${name} is required.`, `/data/attributes/${name}`);
    }
    if (a['objectType'] === 'Prospect' && !/^\d+$/.test(String(a['requestObjectId']))) {
      throw ruleError('requestObjectId must be a prospect id for objectType Prospect.', '/data/attributes/requestObjectId');
    }
    Object.assign(a, { state: 'pending', uuid: randomUUID(), requesterId: ctx.principal.userId });
    a['batchComplianceRequestUuid'] ??= randomUUID();
    input.rels['requester'] = { type: 'user', id: ctx.principal.userId };
  },
  afterCreate: (ctx, rec: Rec) => {
    const ms = ctx.timing.complianceStepMs;
    ctx.later(ms, () => step(ctx, rec.id, 'running'));
    ctx.later(2 * ms, () => finish(ctx, rec.id));
  },
};
