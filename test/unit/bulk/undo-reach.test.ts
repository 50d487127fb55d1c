/**
 * What `svc runs undo` sends for a row, checked against the registry's operations table for every
 * type: never a write or an action the type does not offer (an event's DELETE was sent and refused
 * with 405), and a row is planned as `cannot` exactly when undo-reach.ts says so — the same rule the
 * line that records a run uses for its promise.
 */
import { describe, expect, it } from 'vitest';
import { undoBlocker } from '../../../src/bulk/rows/undo-reach.js';
import { emptyJournal } from '../../../src/bulk/run/journal.js';
import type { RecordedRow, RowLine } from '../../../src/bulk/run/run-record.js';
import { idsToRead, undoItem } from '../../../src/commands/runs/undo-rows.js';
import { RESOURCES, type Operation } from '../../../src/registry/index.js';

const JOURNAL = emptyJournal();
const BY_METHOD: Record<string, Operation> = { DELETE: 'delete', PATCH: 'update', POST: 'create' };

/** Every kind of row a run can record of each type, as done. */
function rowsOf(): RecordedRow[] {
  const out: RecordedRow[] = [];
  for (const rt of RESOURCES) {
    const values = { attributes: { name: 'was' }, relationships: {} };
    const lines: Omit<RowLine, 'k' | 'row' | 'key'>[] = [
      { op: 'create', type: rt.type, after: { attributes: { name: 'now' }, relationships: {} } },
      { op: 'update', type: rt.type, id: '7', before: values, after: { attributes: { name: 'now' }, relationships: {} } },
      { op: 'delete', type: rt.type, id: '7', before: values },
      ...rt.actions.map((a) => ({ op: 'action' as const, type: rt.type, id: '7', action: a.name })),
    ];
    if (rt.type === 'sequenceState') lines.push({ op: 'enroll', type: rt.type });
    for (const [i, l] of lines.entries()) {
      const status = l.op === 'create' || l.op === 'enroll' ? 'created' : l.op === 'delete' ? 'deleted' : 'updated';
      out.push({
        row: { k: 'row', row: i + 1, key: String(i + 1), ...l },
        done: { k: 'done', row: i + 1, key: String(i + 1), status, id: '7' },
      });
    }
  }
  return out;
}

describe('runs undo keeps to the operations each type offers', () => {
  it('no row of any type is sent as a write, an action or a read its type does not offer; the others are `cannot`', () => {
    const rows = rowsOf();
    let sent = 0;
    for (const r of rows) {
      const rt = RESOURCES.find((t) => t.type === r.row.type)!;
      const deleted = r.row.op === 'delete';
      // The record as read now: there (a deleted one gone), its state what a pause or resume left.
      const state = r.row.action === 'pause' ? 'paused' : 'active';
      const current = new Map(deleted ? [] : [[`${rt.type}:7`, { attributes: { name: 'now', state }, relationships: {} }]]);
      const item = undoItem(r, current, JOURNAL, true);
      const what = `${r.row.op} ${rt.type} ${r.row.action ?? ''}`;
      const blocked = undoBlocker(r.row);
      if (item.write) expect(rt.operations, what).toContain(BY_METHOD[item.write.method]);
      if (item.act)
        expect(
          rt.actions.map((a) => a.name),
          what,
        ).toContain(item.act.name);
      if (item.write || item.act) {
        sent++;
        expect(blocked, what).toBeUndefined();
        expect(rt.operations, what).toContain('list');
      } else expect([what, item.action]).toEqual([what, 'cannot']);
      // Read first only when it is taken back: a custom duty's GET /customDuties was sent and refused.
      if (blocked) expect(idsToRead([r]).size, what).toBe(0);
    }
    expect(sent).toBeGreaterThan(100);
  });

  it('says why in one clause, from the registry', () => {
    expect(undoBlocker({ op: 'create', type: 'event' })).toBe(
      'events has no operation "delete": svc cannot delete the event the run created',
    );
    expect(undoBlocker({ op: 'create', type: 'customDuty' })).toMatch(/^custom-duties has no operation "delete"/);
    expect(undoBlocker({ op: 'action', type: 'task', action: 'markComplete' })).toBe('the markComplete action cannot be taken back by svc');
    expect(undoBlocker({ op: 'action', type: 'sequenceState', action: 'pause' })).toBeUndefined();
    expect(undoBlocker({ op: 'enroll', type: 'sequenceState' })).toBeUndefined();
    expect(undoBlocker({ op: 'create', type: 'prospect' })).toBeUndefined();
  });
});
