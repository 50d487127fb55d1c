/** The delivery forecast of `svc enroll` and the name matching of lookups (pure logic). */
import { describe, expect, it } from 'vitest';
import { deliveryDays, forecastLine } from '../../src/commands/enroll/forecast.js';
import { pickNamed, type NameSource } from '../../src/commands/shared/name-lookup.js';
import { matchChoices } from '../../src/runtime/prompter.js';
import { resourceByType } from '../../src/registry/index.js';

describe('deliveryDays', () => {
  it.each([
    // n, perDay, perWeek, days
    [0, 500, 5000, 0],
    [1, 500, 5000, 1],
    [500, 500, 5000, 1],
    [501, 500, 5000, 2],
    [3500, 500, 5000, 7], // the week cap (5,000) is above 7 × 500: the daily cap rules
    [5000, 500, 5000, 10],
    [7, 2, 5, 8], // 2+2+1 in week one, 2 on day 8
    [5, 2, 5, 3],
    [10, 2, 5, 10], // week two: day 8 (2), 9 (2), 10 (1)
    [2500, 500, 2000, 8],
    [9, 3, undefined, 3],
    [9, undefined, 4, 15], // only a weekly cap: 4 on day 1, 4 on day 8, 1 on day 15
  ])('%i new at %s/day, %s/week → %i days', (n, day, week, days) => {
    expect(deliveryDays(n, day, week)).toBe(days);
  });

  it('no limits: unknown, and said so', () => {
    expect(deliveryDays(10)).toBeUndefined();
    expect(deliveryDays(10, 0, 0)).toBeUndefined();
    expect(forecastLine(10)).toMatch(/delivery: unknown/);
    expect(forecastLine(0, 5, 10)).toMatch(/nothing new to send/);
    expect(forecastLine(1200, 500, 5000)).toMatch(/within 3 days \(mailbox limits: 500\/day, 5,000\/week\)/);
  });
});

describe('pickNamed', () => {
  const src: NameSource = { rt: resourceByType('sequence')!, attr: 'name' };
  const recs = [
    { id: 1, name: 'Outbound Enterprise', attributes: {} },
    { id: 2, name: 'Inbound', attributes: {} },
    { id: 3, name: 'outbound  enterprise', attributes: {} },
    { id: 4, name: 'Event Invite', attributes: {} },
  ];
  it('matches whole names, case and inner spacing ignored', () => {
    expect(pickNamed(recs, ' inbound ', '--sequence', src).id).toBe(2);
    expect(pickNamed(recs, 'EVENT invite', '--sequence', src).id).toBe(4);
  });
  it('several matches: the error lists each id', () => {
    expect(() => pickNamed(recs, 'Outbound Enterprise', '--sequence', src)).toThrow(
      /2 sequences have that name: id 1 "Outbound Enterprise"; id 3 "outbound {2}enterprise"/,
    );
  });
  it('no match: near names first, never a part match taken as the answer', () => {
    try {
      pickNamed(recs, 'Outbound', '--sequence', src);
      expect.unreachable();
    } catch (e) {
      const err = e as Error & { hints: string[] };
      expect(err.message).toBe('--sequence "Outbound": no sequence has that name');
      expect(err.hints).toEqual(['did you mean: id 1 "Outbound Enterprise"; id 3 "outbound  enterprise"']);
    }
  });
});

describe('matchChoices', () => {
  it('keeps the choices holding every typed word', () => {
    const c = [
      { value: 1, name: 'Outbound Enterprise (id 1)' },
      { value: 2, name: 'Inbound (id 2)' },
    ];
    expect(matchChoices(c, 'bound ent').map((x) => x.value)).toEqual([1]);
    expect(matchChoices(c, undefined).map((x) => x.value)).toEqual([1, 2]);
    expect(matchChoices(c, 'id 2').map((x) => x.value)).toEqual([2]);
  });
});
