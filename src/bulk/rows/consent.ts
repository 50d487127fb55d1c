/**
 * Opt-outs a file's rows may not take back. A consent attribute's opt-out value (the registry's
 * `optOut`: `optedOut` true, `emailsOptStatus` `opted_out`) records that a person asked not to be
 * mailed; a spreadsheet exported before they asked still says otherwise, and sending it again
 * would opt them back in. So a bulk update leaves such a value out unless `--allow-opt-in`: by
 * key (upsert, `update --match`), where the record is read, only a change away from the opt-out;
 * a plain update by id every value that is not the opt-out, held at the row before the record is
 * read. What is said of the held values comes from the record as the run (for its before-images)
 * or its plan read it: a take-back is warned of, another change is named, and a value the record
 * already holds — every consent value of a list read back unedited — is no change and says nothing.
 */
import type { WriteData } from '../../api/write-body.js';
import type { ResourceType } from '../../registry/index.js';
import { diffRecord, type FieldChange } from './record-diff.js';

/** Consent values a row set, left out of its write: field → the row's value. */
export type HeldOptIns = Record<string, unknown>;

/** The opt-out value of a consent attribute of `rt`, or undefined for any other attribute. */
function optOutOf(rt: ResourceType, name: string): boolean | string | undefined {
  return rt.attributes.find((a) => a.name === name)?.optOut;
}

/** Leaves out of `data` the consent attributes set to anything but their opt-out; returns them with the row's values. */
export function holdOptIns(rt: ResourceType, data: WriteData): HeldOptIns | undefined {
  let held: HeldOptIns | undefined;
  for (const name of Object.keys(data.attributes)) {
    const out = optOutOf(rt, name);
    if (out === undefined || data.attributes[name] === out) continue;
    (held ??= {})[name] = data.attributes[name];
    delete data.attributes[name];
  }
  return held;
}

/** A change that takes an opt-out back: the record holds the opt-out value, the row another. */
export function takesBackOptOut(rt: ResourceType, c: FieldChange): boolean {
  const out = optOutOf(rt, c.field);
  return out !== undefined && c.old === out && c.new !== out;
}

/**
 * What the held values of a row would have changed in the record as read (compared as an
 * update's fields are, record-diff.ts): `back` the changes that take an opt-out back, `other` the
 * rest (`emailsOptStatus` empty → `opted_in`). A value the record holds is in neither.
 */
export function heldChanges(
  rt: ResourceType,
  held: HeldOptIns,
  record: { attributes?: Record<string, unknown> },
): { back: FieldChange[]; other: FieldChange[] } {
  const { changes } = diffRecord(
    { type: rt.type, attributes: { ...held }, relationships: {} },
    { id: '', attributes: record.attributes ?? {}, relationships: {} },
  );
  return { back: changes.filter((c) => takesBackOptOut(rt, c)), other: changes.filter((c) => !takesBackOptOut(rt, c)) };
}

/** Rows and the fields they name, for one line of a run or plan. */
export interface HeldTally {
  rows: number;
  fields: Set<string>;
}

/** Counts one row's `changes` into `tally` (nothing for none). */
export function tallyHeld(tally: HeldTally, changes: readonly { field: string }[]): void {
  if (!changes.length) return;
  tally.rows++;
  for (const c of changes) tally.fields.add(c.field);
}

const rowsWord = (rows: number, one: string, many: string) => `${rows} ${rows === 1 ? one : many}`;

/**
 * The line a run or plan says about the opt-outs it kept: the records were read, so these rows
 * would have taken an opt-out back. `sent`: the run has done these rows, so a rerun with
 * --allow-opt-in finds them done: it needs a journal of its own (a review: the hint said the flag
 * sends them, and the rerun sent nothing).
 */
export function heldOptInNote(rows: number, fields: ReadonlySet<string>, sent: boolean): string {
  const how = sent ? 'to send them: the same command with --allow-opt-in and a new --journal' : '--allow-opt-in sends them';
  return `${rowsWord(rows, 'row takes', 'rows take')} back an opt-out (${[...fields].join(', ')}): left out, the record stays opted out (${how})`;
}

/**
 * The line of a plain update (or its plan) about consent values it left out that take no
 * opt-out back but differ from the record: `update --match id` reads the records and sends such
 * a change (its rows have journal keys of their own, so a run that has done these rows is no
 * obstacle).
 */
export function heldChangeNote(rows: number, fields: ReadonlySet<string>): string {
  return `${rowsWord(rows, 'row changes', 'rows change')} ${[...fields].join(', ')} (no opt-out taken back): left out, a plain update --input sends no consent value but an opt-out (--match id sends such changes)`;
}

/**
 * A `--dry-run` of a plain update reads no record: it cannot tell a take-back from a value the
 * record already holds, so it says what it leaves out only with --verbose (the run says which).
 */
export function unreadHeldNote(rows: number, fields: ReadonlySet<string>): string {
  return `${rowsWord(rows, 'row carries', 'rows carry')} ${[...fields].join(', ')} not opted out: left out of the requests (a file sends a consent value only with --allow-opt-in); the run compares them with the records and warns of any that would take back an opt-out`;
}
