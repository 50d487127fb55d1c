/**
 * The rows of `svc <resource> upsert --input F --match ATTR` and `update --input F --match ATTR`.
 *
 * Each row is matched by the value of one filterable attribute (for a list attribute such as a
 * prospect's `emails`, its first item), in batches (key-match.ts): no record → created (upsert)
 * or `failed: not found` (update); exactly one → updated with the fields that differ, or left
 * alone when none does (no request); several → `failed: ambiguous`, left alone. Two rows of a file
 * with the same value would race to create one record twice, so only the first is done and the
 * others fail as duplicates. Rows that earlier runs did (journal) are not looked up again; a
 * create an earlier run was killed while sending is found by the match itself (it then reads as
 * unchanged), or else looked up over the settle window before it is sent again.
 */
import { toDocument, type WriteData } from '../api/write-body.js';
import { findAttribute, type ResourceType } from '../registry/index.js';
import { maskData } from './input-mask.js';
import { normKey, resolveInBatches, type KeyLookup, type MatchedRecord } from './key-match.js';
import { diffRecord, type FieldChange } from './record-diff.js';
import { journalOutcome, preparedRows, type ResourceInput, type ResourceItem, type RowPreparer } from './resource-plan.js';
import { prepareRow } from './resource-rows.js';

/** Upsert creates rows that match nothing; update by key fails them. */
export type KeyMode = 'upsert' | 'update';

/** What a keyed run reads. */
export interface KeyedInput extends ResourceInput {
  mode: KeyMode;
  /** The attribute rows are matched by. */
  match: string;
}

/** A row for a worker, with what a plan shows of it. */
export interface KeyedItem extends ResourceItem {
  /** The row's value of the match attribute. */
  value?: string;
  /** Its write data before matching (all fields the row sets). */
  data?: WriteData;
  /** What the match decided (for a plan). */
  plan?: 'create' | 'update' | 'unchanged';
  changes?: FieldChange[];
}

/** How rows are read: every row in the shape of a create (an update by key needs no id column). */
export function keyedPreparer(input: KeyedInput): RowPreparer {
  // By id, the row must carry one (the checks of a bulk update); otherwise no id column is needed.
  const op = input.match === 'id' ? 'update' : 'create';
  return {
    scope: `${input.mode} ${input.rt.type} by ${input.match}`,
    prepare: (raw) => prepareRow(input.rt, op, raw, input.names, input.skipColumns, input.relNames),
  };
}

/** The value a row is matched by, or undefined when it has none. */
export function matchValue(data: WriteData, attr: string): string | undefined {
  const v = attr === 'id' ? data.id : data.attributes[attr];
  const one = Array.isArray(v) ? v[0] : v;
  if (typeof one !== 'string' && typeof one !== 'number' && typeof one !== 'boolean') return undefined;
  const s = String(one).trim();
  return s === '' ? undefined : s;
}

/** The rows with their journal decisions and match values, before matching. */
async function* keyedRows(input: KeyedInput): AsyncGenerator<KeyedItem> {
  const firstRow = new Map<string, number>();
  for await (const { raw, key, prepared } of preparedRows(input, keyedPreparer(input))) {
    const item: KeyedItem = { row: raw.row, key };
    if ('problems' in prepared) {
      const p = prepared.problems.map((x) => `${x.field}: ${x.reason}`).join('; ');
      item.outcome = { status: 'failed', id: null, error: `invalid: ${p}`, extra: { field: prepared.problems[0]!.field }, shown: true };
      yield item;
      continue;
    }
    const data = prepared.write.data!;
    const value = matchValue(data, input.match);
    if (value === undefined) {
      item.outcome = {
        status: 'failed',
        id: null,
        error: `invalid: ${input.match}: missing: the row is matched by it (--match ${input.match})`,
      };
      yield item;
      continue;
    }
    const first = firstRow.get(normKey(value));
    if (first !== undefined) {
      item.outcome = {
        status: 'failed',
        id: null,
        error: `duplicate: row ${first} has the same ${input.match} (${value}); only the first is done`,
        extra: { [input.match]: value },
      };
      yield item;
      continue;
    }
    firstRow.set(normKey(value), raw.row);
    const e = input.journal.entries.get(key);
    // A create an earlier run could not confirm is matched again: found now, it was made late.
    const decided = e?.status === 'unknown' ? undefined : journalOutcome(e, input.skipFailed);
    if (decided) item.outcome = decided;
    else {
      item.value = value;
      item.data = data;
      if (e?.status === 'pending' || e?.status === 'unknown') item.pending = e;
    }
    yield item;
  }
}

/** Decides a row from the records its value matched. */
export function decide(input: KeyedInput, item: KeyedItem, records: MatchedRecord[]): void {
  const rt: ResourceType = input.rt;
  // On a rehearsal copy the record holds fakes: the row's values are compared and written as fakes too.
  const data = input.mask ? maskData(item.data!, input.mask) : item.data!;
  const what = `${input.match} ${item.value}`;
  if (records.length > 1) {
    const ids = records.map((r) => r.id);
    item.outcome = {
      status: 'failed',
      id: null,
      error: `ambiguous: ${records.length} ${rt.command} have ${what} (ids ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''}); left alone`,
      extra: { reason: 'ambiguous', ids },
    };
    return;
  }
  if (records.length === 0) {
    if (input.mode === 'update') {
      item.outcome = { status: 'failed', id: null, error: `not found: no ${rt.type} has ${what}` };
      return;
    }
    item.plan = 'create';
    const { id: _id, ...fields } = data;
    item.write = { method: 'POST', path: rt.path, body: toDocument(fields), data: fields };
    return;
  }
  const rec = records[0]!;
  // A create an earlier run was killed while sending is this record: nothing to look up.
  delete item.pending;
  const d = diffRecord(data, rec);
  item.changes = d.changes;
  if (d.changes.length === 0) {
    item.plan = 'unchanged';
    item.outcome = { status: 'skipped', id: rec.id, extra: { reason: 'unchanged' } };
    return;
  }
  item.plan = 'update';
  item.write = { method: 'PATCH', path: `${rt.path}/${rec.id}`, body: toDocument(d.data), id: rec.id, data: d.data };
}

/** The rows for the workers (or a plan): matched in batches, each decided. */
export function keyedItems(input: KeyedInput, lookup: KeyLookup): AsyncGenerator<KeyedItem> {
  return resolveInBatches(keyedRows(input), lookup, {
    keyOf: (item) => (item.outcome || item.write ? undefined : item.value),
    apply: (item, records) => decide(input, item, records),
  });
}

/** The attribute `--match` names: a filterable attribute, or `id`; `email` stands for `emails`. */
export function matchAttribute(rt: ResourceType, name: string): string | { error: string } {
  if (name === 'id') return 'id';
  const spec = findAttribute(rt, name) ?? findAttribute(rt, `${name}s`);
  const filterable = rt.attributes.filter((a) => a.filterable && !a.readOnly && a.name !== 'id').map((a) => a.name);
  if (!spec?.filterable || spec.readOnly) {
    const list = filterable.length ? filterable.join(', ') : 'none';
    return { error: `--match ${name}: not a filterable attribute of ${rt.type} that rows can set (one of: ${list})` };
  }
  return spec.name;
}
