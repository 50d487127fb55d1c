/**
 * Links to records an undo re-creates. A run that moved records off a record and then deleted it
 * (`svc dedupe apply`: a duplicate's e-mail addresses moved to the survivor, then the duplicate
 * deleted) is taken back by re-creating the record — under a new id — and pointing the moved
 * records back at it: a row whose set-back names a re-created record's old id waits for the
 * re-create and sends the new id. The re-creates go to the workers first, so no row waits on one
 * not yet taken; a re-create done by an earlier attempt of the undo gives its new id from the
 * journal.
 */
import { normalizeId, toDocument } from '../../api/write-body.js';
import type { JournalState } from '../../bulk/run/journal.js';
import type { RecordedRow, RunRecord } from '../../bulk/run/run-record.js';
import { findRelationship, resourceByType } from '../../registry/index.js';
import type { UndoItem } from './undo-rows.js';

type Waiter = { done: Promise<string | undefined>; resolve: (id: string | undefined) => void };

/** The re-created records of one undo: old id → new id, known or awaited. */
export class Relinks {
  private readonly known = new Map<string, string>();
  private readonly waiting = new Map<string, Waiter>();

  constructor(items: UndoItem[], rec: RunRecord, journal: JournalState) {
    for (const it of items) {
      const row = rec.rows.get(it.key)?.row;
      if (row?.op !== 'delete' || row.id === undefined || row.id === null) continue;
      const e = journal.entries.get(it.key);
      // Re-created by an earlier attempt of this undo: the journal holds the new id.
      if (e?.status === 'created' && e.id !== undefined && e.id !== null) this.known.set(`${row.type}:${row.id}`, String(e.id));
      else if (it.action === 're-create' && !it.outcome) {
        let resolve!: (id: string | undefined) => void;
        const done = new Promise<string | undefined>((r) => (resolve = r));
        this.waiting.set(`${row.type}:${row.id}`, { done, resolve });
      }
    }
  }

  /** The items in the order the workers take them: re-creates first. */
  order(items: UndoItem[]): UndoItem[] {
    return [...items.filter((i) => i.action === 're-create'), ...items.filter((i) => i.action !== 're-create')];
  }

  /** A re-create's outcome: its new id, or undefined when it was not made. */
  settled(item: UndoItem, newId: string | undefined): void {
    const w = this.waiting.get(`${item.type}:${item.id}`);
    if (!w) return;
    if (newId !== undefined) this.known.set(`${item.type}:${item.id}`, newId);
    w.resolve(newId);
  }

  /** Whether this undo re-creates the record (`type` `id` its old id), or an earlier attempt of it did. */
  recreates(type: string, id: string): boolean {
    return this.known.has(`${type}:${id}`) || this.waiting.has(`${type}:${id}`);
  }

  /** The new id of a record this undo (or an earlier attempt of it) re-created; undefined while not made. */
  newIdOf(type: string, id: string): string | undefined {
    return this.known.get(`${type}:${id}`);
  }

  /** Whether any row may need {@link relink} (a run that re-creates nothing never waits). */
  get any(): boolean {
    return this.known.size + this.waiting.size > 0;
  }

  /** The item with its links to re-created records set to their new ids; a text when one was not re-created. */
  async relink(item: UndoItem): Promise<UndoItem | string> {
    const data = item.write?.data;
    if (!data || item.write?.method !== 'PATCH' || !item.image?.after) return item;
    const relationships = { ...data.relationships };
    const after = { ...item.image.after, relationships: { ...item.image.after.relationships } };
    let changed = false;
    for (const [k, rel] of Object.entries(data.relationships)) {
      const ident = (rel as { data?: unknown }).data;
      if (!ident || Array.isArray(ident) || typeof ident !== 'object') continue;
      const { type, id } = ident as { type: string; id: unknown };
      const old = `${type}:${String(id)}`;
      let now = this.known.get(old);
      if (now === undefined && this.waiting.has(old)) now = await this.waiting.get(old)!.done;
      if (now === undefined) {
        if (this.waiting.has(old)) return `its ${k} ${type} ${String(id)} was not re-created: the link is left as it is`;
        continue;
      }
      relationships[k] = { data: { type, id: normalizeId(now) } };
      after.relationships[k] = now;
      changed = true;
    }
    if (!changed) return item;
    const moved = { ...data, relationships };
    return { ...item, write: { ...item.write, body: toDocument(moved), data: moved }, image: { ...item.image, after } };
  }
}

/**
 * The rows with the links of their before-images to records an earlier attempt of this undo
 * re-created given as the new ids: a row whose set-back was sent by an attempt killed before its
 * answer then reads as done (the record holds the new id), not as a conflict.
 */
export function withKnownIds(rows: RecordedRow[], rec: RunRecord, journal: JournalState): RecordedRow[] {
  const known = new Map<string, string>();
  for (const r of rec.rows.values()) {
    const e = journal.entries.get(r.row.key);
    if (r.row.op === 'delete' && r.row.id && e?.status === 'created' && e.id !== undefined && e.id !== null)
      known.set(`${r.row.type}:${r.row.id}`, String(e.id));
  }
  if (known.size === 0) return rows;
  return rows.map((r) => {
    const rt = resourceByType(r.row.type);
    if (r.row.op !== 'update' || !r.row.before || !rt) return r;
    const rels = { ...r.row.before.relationships };
    let changed = false;
    for (const [k, v] of Object.entries(rels)) {
      const target = findRelationship(rt, k)?.target ?? k;
      const now = typeof v === 'string' ? known.get(`${target}:${v}`) : undefined;
      if (now !== undefined) {
        rels[k] = now;
        changed = true;
      }
    }
    return changed ? { ...r, row: { ...r.row, before: { ...r.row.before, relationships: rels } } } : r;
  });
}
