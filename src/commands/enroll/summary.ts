/**
 * What `svc enroll` says before its first write: the sequence and mailbox by name and id, the
 * rows, how many are already enrolled, how many it will enroll, and the delivery forecast (or
 * that nothing will be sent: the sequence is off or has no steps).
 */
import type { EnrollItem } from '../../bulk/rows/enroll-rows.js';
import { forecastLine } from './forecast.js';
import { grouped } from '../../grouped.js';

/** What the rows will do, counted before the first write. */
interface EnrollPlan {
  /** In the sequence already, or enrolled by an earlier run of this command (journal). */
  already: number;
  /** Distinct prospects to enroll. */
  toEnroll: number;
  /** Invalid rows, unknown or ambiguous addresses. */
  failing: number;
  /** Rows naming a prospect an earlier row names. */
  duplicates: number;
}

/** Counts the held rows: already enrolled (sequence or journal), to enroll, duplicates, failing. */
export function summarize(list: readonly EnrollItem[], enrolled: ReadonlyMap<number | string, unknown>): EnrollPlan {
  const plan: EnrollPlan = { already: 0, toEnroll: 0, failing: 0, duplicates: 0 };
  const seen = new Set<number | string>();
  for (const item of list) {
    if (item.outcome) {
      if (item.outcome.status === 'failed') plan.failing++;
      else plan.already++;
    } else if (enrolled.has(item.prospectId!)) plan.already++;
    else if (seen.has(item.prospectId!)) plan.duplicates++;
    else {
      seen.add(item.prospectId!);
      plan.toEnroll++;
    }
  }
  return plan;
}

/**
 * Why the sequence sends nothing now (`is off`, `has no steps`), else undefined: `enabled` is
 * false, or it has no step.
 * Its new enrolments are made all the same (active, the server says), but no e-mail goes out
 * until it is turned on and has steps: the forecast would promise the opposite (a trial).
 */
export function idleSequence(sequence: Record<string, unknown>, hasSteps: boolean | undefined): string | undefined {
  const off = sequence['enabled'] === false;
  if (off && hasSteps === false) return 'is off and has no steps';
  if (off) return 'is off';
  if (hasSteps === false) return 'has no steps';
  return undefined;
}

/** The summary printed before the first write (stderr), one line per fact group. */
export function summaryLines(s: {
  sequenceId: number | string;
  sequence: Record<string, unknown>;
  /** The sequence has a step; undefined when that could not be read. */
  hasSteps: boolean | undefined;
  mailboxId: number | string;
  mailbox: Record<string, unknown>;
  total: number;
  plan: EnrollPlan;
  /** On a rehearsal copy: the user's value for a fake of it (the sequence name or mailbox address they gave). */
  shown?: (v: string) => string;
}): string[] {
  const shown = s.shown ?? ((v: string) => v);
  const n = grouped;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const name = typeof s.sequence['name'] === 'string' ? `"${shown(s.sequence['name'])}" ` : '';
  const email = typeof s.mailbox['email'] === 'string' ? `${shown(s.mailbox['email'])} ` : '';
  const p = s.plan;
  const counts = [`rows: ${n(s.total)}`, `already enrolled: ${n(p.already)}`, `to enroll: ${n(p.toEnroll)}`];
  if (p.duplicates) counts.push(`duplicate rows: ${n(p.duplicates)}`);
  if (p.failing) counts.push(`failing checks: ${n(p.failing)}`);
  const idle = idleSequence(s.sequence, s.hasSteps);
  return [
    `enroll into sequence ${name}(id ${s.sequenceId}) from mailbox ${email}(id ${s.mailboxId})`,
    `  ${counts.join(' · ')}`,
    idle
      ? `  delivery: nothing will be sent: the sequence ${idle}`
      : `  ${forecastLine(p.toEnroll, num(s.mailbox['maxMailingsPerDay']), num(s.mailbox['maxMailingsPerWeek']))}`,
  ];
}
