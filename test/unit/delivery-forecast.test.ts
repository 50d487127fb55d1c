/** The delivery forecast of `svc enroll`: days at a mailbox's daily and weekly limits. */
import { describe, expect, it } from 'vitest';
import { deliveryDays, forecastLine, mailboxLimits } from '../../src/bulk/delivery-forecast.js';

describe('deliveryDays', () => {
  it('spreads by the daily limit, holds each week surplus to the next week', () => {
    expect(deliveryDays(0, { maxMailingsPerDay: 10 })).toBe(0);
    expect(deliveryDays(10, { maxMailingsPerDay: 10 })).toBe(1);
    expect(deliveryDays(11, { maxMailingsPerDay: 10 })).toBe(2);
    expect(deliveryDays(50, { maxMailingsPerDay: 10, maxMailingsPerWeek: 30 })).toBe(8);
    expect(deliveryDays(30, { maxMailingsPerDay: 10, maxMailingsPerWeek: 30 })).toBe(3);
    expect(deliveryDays(61, { maxMailingsPerWeek: 30 })).toBe(15);
    expect(deliveryDays(5, {})).toBeUndefined();
  });

  it('reads limits from attributes, ignoring zero and junk', () => {
    expect(mailboxLimits({ maxMailingsPerDay: 500, maxMailingsPerWeek: 0 })).toEqual({ maxMailingsPerDay: 500, maxMailingsPerWeek: undefined });
    expect(mailboxLimits({ maxMailingsPerDay: '500' })).toEqual({ maxMailingsPerDay: undefined, maxMailingsPerWeek: undefined });
  });

  it('says nothing when nothing is sent, and says when a mailbox states no limits', () => {
    expect(forecastLine(0, 1, { maxMailingsPerDay: 1 })).toBeUndefined();
    expect(forecastLine(3, 2, {})).toMatch(/mailbox 2, which states no sending limits/);
    expect(forecastLine(1200, 2, { maxMailingsPerDay: 500, maxMailingsPerWeek: 5000 })).toBe(
      'delivery forecast: 1,200 first mailing(s) from mailbox 2 (500 a day, 5,000 a week): over 3 day(s) at its limits, not counting its other mailings',
    );
  });
});
