/**
 * How long a mailbox's sending limits make the first mailings of an enrolment take: the line
 * `svc enroll` prints, so that a rehearsal on a copy of the org shows it before production.
 */

/** A mailbox's sending limits, as its attributes give them. */
export interface MailboxLimits {
  maxMailingsPerDay?: number;
  maxMailingsPerWeek?: number;
}

function limit(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;
}

/** The limits of a mailbox record's attributes (missing or zero: no limit known). */
export function mailboxLimits(attributes: Record<string, unknown> | undefined): MailboxLimits {
  return { maxMailingsPerDay: limit(attributes?.['maxMailingsPerDay']), maxMailingsPerWeek: limit(attributes?.['maxMailingsPerWeek']) };
}

/**
 * Days over which `n` mailings go out at the limits, counting from the first: the daily limit
 * spreads them, the weekly one makes each full week's surplus wait for the next week.
 * Undefined when no limit is known.
 */
export function deliveryDays(n: number, l: MailboxLimits): number | undefined {
  if (n <= 0) return 0;
  if (!l.maxMailingsPerDay && !l.maxMailingsPerWeek) return undefined;
  const byDay = l.maxMailingsPerDay ? Math.ceil(n / l.maxMailingsPerDay) : 1;
  const byWeek = l.maxMailingsPerWeek ? (Math.ceil(n / l.maxMailingsPerWeek) - 1) * 7 + 1 : 1;
  return Math.max(byDay, byWeek);
}

/** The forecast line, or undefined when nothing is to be sent. */
export function forecastLine(n: number, mailboxId: number | string, l: MailboxLimits): string | undefined {
  if (n <= 0) return undefined;
  const fmt = (v: number) => v.toLocaleString('en-US');
  const limits = [l.maxMailingsPerDay ? `${fmt(l.maxMailingsPerDay)} a day` : '', l.maxMailingsPerWeek ? `${fmt(l.maxMailingsPerWeek)} a week` : ''].filter(Boolean).join(', ');
  const days = deliveryDays(n, l);
  if (days === undefined) return `delivery forecast: ${fmt(n)} first mailing(s) from mailbox ${mailboxId}, which states no sending limits`;
  return `delivery forecast: ${fmt(n)} first mailing(s) from mailbox ${mailboxId} (${limits}): over ${fmt(days)} day(s) at its limits, not counting its other mailings`;
}
