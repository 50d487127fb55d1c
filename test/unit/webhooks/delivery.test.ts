import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_RESOURCE_ACTIONS } from '../../../src/registry/data/webhook-events.js';
import { deliveryRecord, describeDelivery, parseDelivery } from '../../../src/webhooks/delivery.js';
import { buildSampleDelivery } from '../../../src/webhooks/samples.js';

const fixture = fs.readFileSync(new URL('../../fixtures/webhook-v2.json', import.meta.url));

describe('delivery summaries', () => {
  it('reads the spec fixture: v2 old → new values', () => {
    const d = parseDelivery(fixture)!;
    expect(d).toMatchObject({ eventName: 'prospect.updated', type: 'prospect', id: 42, payloadVersion: 2 });
    expect(describeDelivery(d)).toEqual([
      'prospect.updated  prospect 42',
      '  title: CTO → CEO',
      '  updatedAt: 2024-02-01T08:00:00.000Z → 2024-02-03T12:00:00.000Z',
    ]);
    expect(deliveryRecord(d)).toMatchObject({ event: 'prospect.updated', attributes: { title: 'CEO' }, beforeUpdate: { title: 'CTO' } });
  });

  it('prints v1 values and destroyed relationships; tolerates junk', () => {
    const d = parseDelivery(
      JSON.stringify({
        data: {
          type: 'task',
          id: 3,
          attributes: { subject: 'Call' },
          relationships: { prospect: { data: { type: 'prospect', id: 9 } }, user: { data: null } },
        },
        meta: { eventName: 'task.destroyed' },
      }),
    )!;
    expect(describeDelivery(d)).toEqual(['task.destroyed  task 3', '  subject: Call', '  prospect → 9', '  user → null']);
    expect(parseDelivery('not json')).toBeUndefined();
    expect(parseDelivery('[1]')).toBeUndefined();
    expect(describeDelivery(parseDelivery('{}')!)).toEqual(['(unknown)']);
  });
});

describe('sample deliveries', () => {
  const now = Date.parse('2025-03-04T05:06:07.890Z');

  it('builds every event of the spec table in both versions', () => {
    for (const [resource, actions] of Object.entries(WEBHOOK_RESOURCE_ACTIONS)) {
      if (resource === '*') continue;
      for (const action of actions.filter((a) => a !== '*')) {
        for (const v of [1, 2] as const) {
          const s = buildSampleDelivery({ resource, action, payloadVersion: v, now, id: 5 });
          expect(s.meta.eventName).toBe(`${resource}.${action}`);
          expect(s.data).toMatchObject({ type: resource, id: 5 });
          expect(Object.keys(s.data.attributes).length).toBeGreaterThan(0);
          const changes = action !== 'created' && action !== 'destroyed';
          expect('beforeUpdate' in s).toBe(v === 2 && changes);
        }
      }
    }
  });

  it('uses realistic values and the webhook date-time format', () => {
    const created = buildSampleDelivery({ resource: 'prospect', action: 'created', now });
    expect(created.data.attributes).toMatchObject({
      firstName: 'Ada',
      emails: ['ada.lovelace@example.com'],
      createdAt: '2025-03-04T05:06:07.890Z',
    });
    expect(created.meta.deliveredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const updated = buildSampleDelivery({ resource: 'prospect', action: 'updated', payloadVersion: 2, now });
    expect(updated.data.attributes.title).toBe('CTO');
    expect(updated.beforeUpdate).toMatchObject({ type: 'prospect', id: 42, title: 'VP Engineering' });
    const done = buildSampleDelivery({ resource: 'task', action: 'completed', payloadVersion: 2, now });
    expect(done.data.attributes).toMatchObject({ completed: true, state: 'completed' });
    expect(done.beforeUpdate).toMatchObject({ completed: false, state: 'incomplete' });
    const gone = buildSampleDelivery({ resource: 'sequenceState', action: 'destroyed', now });
    expect(gone.data.relationships).toHaveProperty('prospect');
  });
});
