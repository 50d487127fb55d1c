/**
 * Which recorded rows `svc runs undo` can take back, from the registry's operations table alone:
 * the write an undo makes for a row (a delete for a create, an update for an update, a create for
 * a delete, the inverse action for an action) and the read it makes first (a page of the
 * collection, `filter[id]`) must both be operations the type offers. Asked when a run is recorded
 * (its "takes it back" line promises only what an undo can do) and by the undo itself, which never
 * sends what the type does not offer (an event's DELETE was sent, refused with 405, and the undo
 * then said a rerun would do the rest).
 */
import { resourceByType, type Operation, type ResourceType } from '../../registry/index.js';
import type { RowOp } from '../run/run-record.js';

/**
 * Item actions an undo can take back, by the action that does it and the state the action left
 * (anything else there is a conflict): a pause is taken back by a resume, and the other way round.
 */
export const INVERSE: Readonly<Record<string, { by: 'pause' | 'resume'; left: string }>> = {
  pause: { by: 'resume', left: 'paused' },
  resume: { by: 'pause', left: 'active' },
};

/** The operation that takes back each kind of write, and what it does (an enrolment is finished: an action). */
const UNDONE_BY: Partial<Record<RowOp, { op: Operation; does: string }>> = {
  create: { op: 'delete', does: 'delete the {type} the run created' },
  update: { op: 'update', does: 'set back the {type} the run changed' },
  delete: { op: 'create', does: 're-create the {type} the run deleted' },
};

/** A row as its record holds it: enough to say whether it can be taken back. */
export interface UndoableRow {
  op: RowOp;
  type: string;
  action?: string | undefined;
}

function lacks(rt: ResourceType, op: Operation, what: string): string | undefined {
  return rt.operations.includes(op) ? undefined : `${rt.command} has no operation "${op}": ${what}`;
}

function offersAction(rt: ResourceType, name: string): boolean {
  return rt.actions.some((a) => a.name === name);
}

/** Why svc cannot take back a recorded row, in one clause; undefined when an undo can. */
export function undoBlocker(row: UndoableRow): string | undefined {
  const rt = resourceByType(row.type);
  if (!rt) return `unknown type ${row.type}`;
  if (row.op === 'finish') return 'a finished sequence state cannot be made active again';
  if (row.op === 'action') {
    const inv = row.action !== undefined ? INVERSE[row.action] : undefined;
    if (!inv || !offersAction(rt, inv.by)) return `the ${row.action ?? ''} action cannot be taken back by svc`;
  } else if (row.op === 'enroll') {
    if (!offersAction(rt, 'finish')) return `${rt.command} has no action "finish": svc cannot end the enrolment`;
  } else {
    const by = UNDONE_BY[row.op]!;
    const blocked = lacks(rt, by.op, `svc cannot ${by.does.replace('{type}', rt.type)}`);
    if (blocked) return blocked;
  }
  return lacks(rt, 'list', `svc cannot read the ${rt.type} back to check it before the undo`);
}
