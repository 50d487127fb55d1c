import { describe, expect, it } from 'vitest';
import { calendar, groupMailings } from '../../../src/commands/report/mailings.js';
import { histogramMonths, histogramPairs } from '../../../src/commands/report/prospect.js';
import { zoneNamed } from '../../../src/time-zone.js';

const UTC = zoneNamed('UTC');

const m = (id: number, a: Record<string, unknown>, mailbox = 'a@x.test') => ({
  type: 'mailing',
  id,
  attributes: { mailboxAddress: mailbox, ...a },
});

describe('mailings grouped', () => {
  const list = [
    m(1, { deliveredAt: '2026-11-02T10:00:00', openedAt: '2026-11-02T11:00:00', repliedAt: '2026-11-03T09:00:00' }),
    m(2, { deliveredAt: '2026-11-02T23:59:59Z', bouncedAt: '2026-11-02T23:59:59Z' }, 'b@x.test'),
    m(3, { deliveredAt: '2026-11-08T00:00:00', clickedAt: '2026-11-08T01:00:00', openedAt: '2026-11-08T00:30:00' }),
    m(4, { state: 'queued' }), // not delivered: not counted
  ];

  it('by day (UTC), with the empty days of the range', () => {
    const rows = groupMailings(list, 'day', () => '', UTC, calendar('2026-11-01', '2026-11-03', 'day'));
    expect(rows.map((r) => [r.group, r.delivered, r.opened, r.replied, r.bounced])).toEqual([
      ['2026-11-01', 0, 0, 0, 0],
      ['2026-11-02', 2, 1, 1, 1],
      ['2026-11-03', 0, 0, 0, 0],
      ['2026-11-08', 1, 1, 0, 0],
    ]);
    expect(rows[1]).toMatchObject({ openRate: 0.5, replyRate: 0.5, bounceRate: 0.5 });
    expect(rows[0]!.openRate).toBeNull();
  });

  it('by week starting Monday: Sunday 8 November belongs to the week of Monday 2 November', () => {
    const rows = groupMailings(list, 'week', () => '', UTC);
    expect(rows.map((r) => [r.group, r.delivered, r.clicked])).toEqual([['2026-11-02', 3, 1]]);
  });

  it('by a label (mailbox), most delivered first', () => {
    const rows = groupMailings(list, 'mailbox', (x) => String(x.attributes?.['mailboxAddress']), UTC);
    expect(rows.map((r) => [r.group, r.delivered])).toEqual([
      ['a@x.test', 2],
      ['b@x.test', 1],
    ]);
  });
});

describe('contact histogram', () => {
  it('months end with the current one', () => {
    const months = histogramMonths(Date.parse('2026-03-15T00:00:00Z'));
    expect(months).toHaveLength(12);
    expect(months[0]).toBe('2025-04');
    expect(months[11]).toBe('2026-03');
  });

  it('pairs are padded, trimmed to 12 and cleaned', () => {
    expect(histogramPairs(undefined)).toEqual(Array(12).fill([0, 0]));
    const p = histogramPairs([[1, 2], 'x', [3, 'y']]);
    expect(p).toHaveLength(12);
    expect(p.slice(-3)).toEqual([
      [1, 2],
      [0, 0],
      [3, 0],
    ]);
    expect(histogramPairs(Array.from({ length: 14 }, (_, i) => [i, i]))[0]).toEqual([2, 2]);
  });
});

describe('enrolments of a funnel', () => {
  it('break down by state when one page holds them all; else only the counted total', async () => {
    const { enrolmentsOf } = await import('../../../src/commands/report/funnel.js');
    const st = (state: string, id: number) => ({ type: 'sequenceState', id, attributes: { state } });
    expect(enrolmentsOf([st('active', 1), st('finished', 2), st('active', 3)], { count: 3 })).toEqual({
      total: 3,
      active: 2,
      byState: { active: 2, finished: 1 },
    });
    expect(enrolmentsOf([st('active', 1)], { count: 5000 })).toEqual({ total: 5000, active: null, byState: null });
    expect(enrolmentsOf([st('paused', 1)], { count: 5000, count_truncated: true })).toMatchObject({ byState: null });
    expect(enrolmentsOf([], {})).toEqual({ total: 0, active: 0, byState: {} });
  });
});
