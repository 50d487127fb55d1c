/**
 * Opt-outs a file's rows may not take back. A consent attribute's opt-out value (the registry's
 * `optOut`: `optedOut` true, `emailsOptStatus` `opted_out`) records that a person asked not to be
 * mailed; a spreadsheet exported before they asked still says otherwise, and sending it again
 * would opt them back in. So a bulk update leaves such a value out unless `--allow-opt-in`: by
 * key (upsert, `update --match`), where the record is read, only a change away from the opt-out;
 * a plain update by id, which reads nothing, every value that is not the opt-out (sending it
 * changes nothing where the record holds the same, and opts back in where it does not).
 */
import type { WriteData } from '../../api/write-body.js';
import type { ResourceType } from '../../registry/index.js';
import type { FieldChange } from './record-diff.js';

/** The opt-out value of a consent attribute of `rt`, or undefined for any other attribute. */
function optOutOf(rt: ResourceType, name: string): boolean | string | undefined {
  return rt.attributes.find((a) => a.name === name)?.optOut;
}

/** Leaves out of `data` the consent attributes set to anything but their opt-out; returns their names. */
export function holdOptIns(rt: ResourceType, data: WriteData): string[] {
  const held: string[] = [];
  for (const name of Object.keys(data.attributes)) {
    const out = optOutOf(rt, name);
    if (out === undefined || data.attributes[name] === out) continue;
    delete data.attributes[name];
    held.push(name);
  }
  return held;
}

/** A change that takes an opt-out back: the record holds the opt-out value, the row another. */
export function takesBackOptOut(rt: ResourceType, c: FieldChange): boolean {
  const out = optOutOf(rt, c.field);
  return out !== undefined && c.old === out && c.new !== out;
}

/**
 * The one line a run or plan says about the opt-outs it kept. `sure`: the records were read, so
 * these rows would have taken an opt-out back. `sent`: the run has done these rows, so a rerun with
 * --allow-opt-in finds them done: it needs a journal of its own (a review: the hint said the flag
 * sends them, and the rerun sent nothing).
 */
export function heldOptInNote(rows: number, fields: ReadonlySet<string>, sure: boolean, sent: boolean): string {
  const names = [...fields].join(', ');
  const how = sent ? 'to send them: the same command with --allow-opt-in and a new --journal' : '--allow-opt-in sends them';
  return sure
    ? `${rows} ${rows === 1 ? 'row takes' : 'rows take'} back an opt-out (${names}): left out, the record stays opted out (${how})`
    : `${rows} ${rows === 1 ? 'row carries' : 'rows carry'} ${names} not opted out: left out, a file never takes back an opt-out (${how})`;
}
