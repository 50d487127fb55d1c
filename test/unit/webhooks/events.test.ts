import { describe, expect, it } from 'vitest';
import { checkWebhookAttributes, eventMatches, parseConcreteEvent, parseEventList } from '../../../src/webhooks/events.js';

describe('webhook events', () => {
  it('parses --events lists; a bare resource means all its actions', () => {
    expect(parseEventList('prospect.created, task.*,mailing')).toEqual({
      selectors: [
        { resource: 'prospect', action: 'created' },
        { resource: 'task', action: '*' },
        { resource: 'mailing', action: '*' },
      ],
    });
    expect(parseEventList('*.*')).toEqual({ selectors: [{ resource: '*', action: '*' }] });
  });

  it('names the bad entry of a list', () => {
    const r = parseEventList('prospect.created,user.destroyed');
    expect('problem' in r && r.problem).toMatch(/^user\.destroyed: webhooks on user do not offer action "destroyed"/);
    expect('problem' in parseEventList('widget.created')).toBe(true);
    expect('problem' in parseEventList(' , ')).toBe(true);
  });

  it('suggests the near miss of a resource or action (a trial: prospect.update, prospects.updated)', () => {
    expect(parseConcreteEvent('prospect.update')).toEqual({
      problem: 'webhooks on prospect do not offer action "update" (did you mean "updated"? use one of *, created, updated, destroyed)',
    });
    expect(parseConcreteEvent('prospects.updated')).toEqual({
      problem: expect.stringMatching(/^"prospects" is not a webhook resource \(did you mean "prospect"\? use one of \*, account/),
    });
    expect(parseEventList('Task.completed')).toEqual({ problem: expect.stringMatching(/did you mean "task"\?/) });
  });

  it('wants concrete events for trigger', () => {
    expect(parseConcreteEvent('sequenceState.finished')).toEqual({ resource: 'sequenceState', action: 'finished' });
    expect(parseConcreteEvent('prospect.*')).toHaveProperty('problem');
    expect(parseConcreteEvent('prospect')).toHaveProperty('problem');
    expect(parseConcreteEvent('import.updated')).toHaveProperty('problem');
  });

  it('matches delivery names against selectors', () => {
    const sel = [
      { resource: 'prospect', action: 'created' },
      { resource: 'task', action: '*' },
    ];
    expect(eventMatches(sel, 'prospect.created')).toBe(true);
    expect(eventMatches(sel, 'prospect.updated')).toBe(false);
    expect(eventMatches(sel, 'task.completed')).toBe(true);
    expect(eventMatches([{ resource: '*', action: 'updated' }], 'account.updated')).toBe(true);
  });

  it('checks the resource/action pair of webhook writes', () => {
    expect(checkWebhookAttributes({ resource: 'user', action: 'destroyed' }, false)).toHaveLength(1);
    expect(checkWebhookAttributes({ resource: 'user' }, false)).toEqual([]);
    expect(checkWebhookAttributes({ action: 'completed' }, false)[0]?.reason).toMatch(/webhooks on \* do not offer/);
    // An update naming one side only is left to the service (the other side is unknown here).
    expect(checkWebhookAttributes({ action: 'completed' }, true)).toEqual([]);
    expect(checkWebhookAttributes({ resource: 'task', action: 'completed' }, true)).toEqual([]);
  });
});
