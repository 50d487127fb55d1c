/**
 * How long the first e-mails of new enrolments take to go out, from the mailbox's sending
 * limits: at most `maxMailingsPerDay` a day and `maxMailingsPerWeek` in each 7 days. With
 * W = min(perWeek, 7 × perDay), N new enrolments need
 *   days = 7 × ⌊N / W⌋ + ⌈(N mod W) / perDay⌉   (and 7 × (N / W − 1) + ⌈W / perDay⌉ when W divides N),
 * counting today as day 1. It assumes the mailbox sends nothing else meanwhile and that each
 * sequence's first step is an e-mail due at once: a floor, not a promise.
 */
import { grouped } from '../../grouped.js';

/** Days until every first e-mail can go out; undefined when the mailbox gives no limit. */
export function deliveryDays(n: number, perDay?: number, perWeek?: number): number | undefined {
  if (n <= 0) return 0;
  const day = positive(perDay) ?? positive(perWeek);
  if (day === undefined) return undefined;
  const week = Math.min(positive(perWeek) ?? Infinity, 7 * day);
  const full = Math.floor(n / week);
  const rest = n - full * week;
  if (rest === 0) return (full - 1) * 7 + Math.ceil(week / day);
  return full * 7 + Math.ceil(rest / day);
}

function positive(v: number | undefined): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** The forecast as one line of the enroll summary. */
export function forecastLine(n: number, perDay?: number, perWeek?: number): string {
  const limits = `mailbox limits: ${perDay !== undefined ? fmt(perDay) : '?'}/day, ${perWeek !== undefined ? fmt(perWeek) : '?'}/week`;
  if (n === 0) return `delivery: nothing new to send (${limits})`;
  const days = deliveryDays(n, perDay, perWeek);
  if (days === undefined) return `delivery: unknown (the mailbox sets no sending limit)`;
  const when = days <= 1 ? 'today' : `within ${fmt(days)} days`;
  return `delivery: the first e-mails of ${fmt(n)} new enrolment(s) can all go out ${when} (${limits})`;
}

const fmt = grouped;
