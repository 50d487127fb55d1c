/**
 * The rows of `svc <resource> upsert --input F --match ATTR` and `update --input F --match ATTR`.
 *
 * Each row is matched by the value of one filterable attribute — for a list attribute such as a
 * prospect's `emails`, by every item, e-mail addresses ignoring case (key-match.ts) — in
 * batches: no record → created (upsert) or `failed: not found` (update); exactly one → updated
 * with the fields that differ, or left alone when none does (no request); several → `failed:
 * ambiguous`, left alone. A row that contradicts itself is refused, never guessed at: its `id`
 * names another record than its match value, or its addresses belong to different records (the
 * second address would otherwise be taken from another prospect). A matched list attribute keeps
 * the record's items and gains the row's new ones: matching by `emails` never drops an address.
 * Two rows of a file with the same value would race to create one record twice, so only the first
 * is done and the others fail as duplicates. Rows that earlier runs did (journal) are not looked
 * up again; a create an earlier run sent without hearing the answer (killed, or left unknown) is
 * found by the match itself — a record holding the row's values, made since: `created`,
 * recovered, as a plain create's lookup finds it — or else looked up over the settle window
 * before it is sent again.
 */
import { normalizeId, toDocument, type WriteData } from '../../api/write-body.js';
import type { RawRow } from '../input/readers.js';
import { findAttribute, type ResourceType } from '../../registry/index.js';
import { maskData } from './input-mask.js';
import type { PageClient } from '../../api/paginate.js';
import {
  foldedLookup,
  isEmailAttribute,
  isFoldedAttribute,
  keyLookup,
  maskedLookup,
  normKey,
  resolveInBatches,
  type KeyLookup,
  type MatchedRecord,
} from './key-match.js';
import { diffRecord, type FieldChange } from './record-diff.js';
import { heldChanges, takesBackOptOut, type HeldOptIns } from './consent.js';
import { createdSince, sentAtOf } from './lookup.js';
import { journalOutcome, preparedRows, type ResourceInput, type ResourceItem, type RowPreparer } from './resource-plan.js';
import { prepareRow, validId } from './resource-rows.js';

/** Upsert creates rows that match nothing; update by key fails them. */
export type KeyMode = 'upsert' | 'update';

/** What a keyed run reads. */
export interface KeyedInput extends ResourceInput {
  mode: KeyMode;
  /** The attribute rows are matched by. */
  match: string;
  /**
   * The plan of a plain `update --input` (by id, no `--match`): that run sends every row as the
   * file gives it, so a row that changes nothing is an update too, not "unchanged (not sent)".
   */
  whole?: boolean;
}

/** A row for a worker, with what a plan shows of it. */
export interface KeyedItem extends ResourceItem {
  /** The row's value of the match attribute (its first item, for a list). */
  value?: string;
  /** Every value the row is matched by: the items of a list attribute, else the one value. */
  values?: string[];
  /** The row's own `id`, when it carries one: it must name the matched record. */
  rowId?: number | string;
  /** How the row matched its record (for a plan): `exact`, or the stored value matched ignoring case. */
  matched?: string;
  /** Its write data before matching (all fields the row sets). */
  data?: WriteData;
  /**
   * What the match decided (for a plan); `landed`: a create an earlier run left in doubt, found
   * made (done, not sent again).
   */
  plan?: 'create' | 'update' | 'unchanged' | 'landed';
  /** A failing row the run sends all the same (a plain update's, by an id no record has: its 404). */
  sentAnyway?: boolean;
  changes?: FieldChange[];
  /** Changes that would take back an opt-out, left out (consent.ts; not with `--allow-opt-in`). */
  keptOptOuts?: FieldChange[];
  /** A plain update's plan: the consent values its row leaves out (held at the row, as its run does). */
  held?: HeldOptIns;
  /** …and those of them that change the record without taking an opt-out back, left out all the same. */
  heldChanges?: FieldChange[];
}

/** How rows are read: every row in the shape of a create (an update by key needs no id column). */
export function keyedPreparer(input: KeyedInput): RowPreparer {
  // By id, the row must carry one (the checks of a bulk update); otherwise no id column is needed.
  const op = input.match === 'id' ? 'update' : 'create';
  return {
    scope: `${input.mode} ${input.rt.type} by ${input.match}`,
    prepare: (raw) => {
      // Consent values are held at the row only for a plain update's plan, which (like its run)
      // reads nothing to compare: a keyed run compares with the record (decide).
      const prepared = prepareRow(
        input.rt,
        op,
        raw,
        input.names,
        input.skipColumns,
        input.relNames,
        !input.allowOptIn && input.whole === true,
      );
      // A row without the value it is matched by is invalid from the start: the plan's count of
      // invalid rows said 0 while listing it (a trial).
      if ('write' in prepared && matchValues(prepared.write.data!, input.match).length === 0)
        return { problems: [{ field: input.match, reason: `missing: the row is matched by it (--match ${input.match})` }] };
      return prepared;
    },
  };
}

/** The value a row is matched by, or undefined when it has none. */
export function matchValue(data: WriteData, attr: string): string | undefined {
  return matchValues(data, attr)[0];
}

/** Every value a row is matched by (a list attribute's items, trimmed, each once ignoring case). */
function matchValues(data: WriteData, attr: string): string[] {
  const v = attr === 'id' ? data.id : data.attributes[attr];
  const out = new Map<string, string>();
  for (const one of Array.isArray(v) ? v : [v]) {
    if (typeof one !== 'string' && typeof one !== 'number' && typeof one !== 'boolean') continue;
    const s = String(one).trim();
    if (s !== '' && !out.has(normKey(s))) out.set(normKey(s), s);
  }
  return [...out.values()];
}

/** The `id` a row carries besides its match value (a CSV column or a JSON member), if any. */
function carriedId(raw: RawRow): number | string | undefined {
  const v =
    raw.value && typeof raw.value === 'object' && !Array.isArray(raw.value) ? (raw.value as Record<string, unknown>)['id'] : undefined;
  if (v === undefined || v === null || String(v).trim() === '') return undefined;
  return normalizeId(v);
}

/** The id a refused row is reported by: the one it names, when it is a record id (`--ignore-columns id` drops it). */
function refusedRowId(input: KeyedInput, raw: RawRow, checked: number | string | undefined): number | string | null {
  // An update by id checked its id already (prepareRow); a keyed row's is only carried.
  if (checked !== undefined) return checked;
  const id = input.skipColumns?.has('id') ? undefined : carriedId(raw);
  return id !== undefined && validId(id) ? id : null;
}

/** Every value the rows of a keyed run are matched by, normalised: what a folded lookup keeps. */
async function keyedValues(input: KeyedInput, mask?: (v: string) => string): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const { prepared } of preparedRows(input, keyedPreparer(input))) {
    if ('problems' in prepared) continue;
    for (const v of matchValues(prepared.write.data!, input.match)) out.add(normKey(mask ? mask(v) : v));
  }
  return out;
}

/** The rows with their journal decisions and match values, before matching. */
async function* keyedRows(input: KeyedInput): AsyncGenerator<KeyedItem> {
  const firstRow = new Map<string, number>();
  for await (const { raw, key, prepared } of preparedRows(input, keyedPreparer(input))) {
    const item: KeyedItem = { row: raw.row, key };
    if ('problems' in prepared) {
      const p = prepared.problems.map((x) => `${x.field}: ${x.reason}`).join('; ');
      item.outcome = {
        status: 'failed',
        id: refusedRowId(input, raw, prepared.id),
        error: `invalid: ${p}`,
        extra: { field: prepared.problems[0]!.field },
        shown: true,
      };
      yield item;
      continue;
    }
    const data = prepared.write.data!;
    const values = matchValues(data, input.match);
    // Never empty: a row without its match value is refused when it is prepared (keyedPreparer).
    const value = values[0]!;
    const dup = values.find((v) => firstRow.has(normKey(v)));
    if (dup !== undefined) {
      item.outcome = {
        status: 'failed',
        id: null,
        error: `duplicate: row ${firstRow.get(normKey(dup))} has the same ${input.match} (${dup}); only the first is done`,
        extra: { [input.match]: dup },
      };
      yield item;
      continue;
    }
    for (const v of values) firstRow.set(normKey(v), raw.row);
    const e = input.journal.entries.get(key);
    // A create an earlier run could not confirm is matched again: found now, it was made late.
    const decided = e?.status === 'unknown' ? undefined : journalOutcome(e, input.skipFailed);
    if (decided) item.outcome = decided;
    else {
      item.value = value;
      item.values = values;
      item.data = data;
      if (prepared.write.heldOptIns) item.held = prepared.write.heldOptIns;
      // `--ignore-columns id` leaves the ids out (a file exported from another org).
      const rowId = input.match === 'id' || input.skipColumns?.has('id') ? undefined : carriedId(raw);
      if (rowId !== undefined) item.rowId = rowId;
      if (e?.status === 'pending' || e?.status === 'unknown') item.pending = e;
    }
    yield item;
  }
}

/** Refuses a row that contradicts itself (left alone, nothing sent). */
function refuse(item: KeyedItem, error: string, extra: Record<string, unknown> = {}): void {
  item.outcome = { status: 'failed', id: null, error: `contradiction: ${error}; left alone`, extra: { reason: 'contradiction', ...extra } };
}

/** How a record matched the row's value: `exact`, or `ignoring case (stored X)`. */
function howMatched(input: KeyedInput, item: KeyedItem, rec: MatchedRecord): string {
  if (input.match === 'id') return 'exact';
  const asked = (item.values ?? []).map((v) => (input.mask ? input.mask.value(input.rt.type, input.match, v) : v));
  const stored = storedValues(rec.attributes[input.match]);
  if (asked.some((v) => stored.includes(v))) return 'exact';
  const hit = stored.find((s) => asked.some((v) => normKey(v) === normKey(s)));
  return hit === undefined ? 'exact' : `ignoring case (stored ${input.mask ? 'as a fake' : JSON.stringify(hit)})`;
}

/**
 * A matched attribute as the record keeps it: a list, its items, then the row's items it lacks
 * (ignoring case), so that matching by `emails` adds addresses and never drops one; a value the
 * row matched ignoring case, as stored (`blue foods ` does not rename Blue Foods).
 */
function keptValue(held: unknown, given: unknown): unknown {
  if (!Array.isArray(given))
    return typeof given === 'string' && typeof held === 'string' && normKey(given) === normKey(held) ? held : given;
  const had = Array.isArray(held) ? held : [];
  const seen = new Set(had.map((x) => normKey(String(x))));
  return [...had, ...given.filter((x) => !seen.has(normKey(String(x))))];
}

/** The stored value (or one of a list's items) is one of the row's values as written, outer spaces aside. */
function holdsExactly(held: unknown, values: readonly string[]): boolean {
  const stored = storedValues(held);
  return values.some((v) => stored.includes(v.trim()));
}

/** A record's value of the match attribute as text, each item of a list, outer spaces aside. */
function storedValues(held: unknown): string[] {
  return (Array.isArray(held) ? held : [held]).filter((x): x is string => typeof x === 'string').map((x) => x.trim());
}

/** Decides a row from the records its values matched (`byValue`: the records of each value, in order). */
export function decide(input: KeyedInput, item: KeyedItem, records: MatchedRecord[], byValue: MatchedRecord[][] = [records]): void {
  const rt: ResourceType = input.rt;
  // On a rehearsal copy the record holds fakes: the row's values are compared and written as fakes too.
  const data = input.mask ? maskData(item.data!, input.mask) : item.data!;
  const what = `${input.match} ${item.value}`;
  const values = item.values ?? [item.value!];
  // Addresses of one row held by different records: matching by one would take the others from
  // them. The row's own id, naming one of the records, picks it (an export read back after a merge
  // was undone, a trial) when that record holds every value some record holds; a value another
  // record alone holds still refuses the row (a review).
  const owners = byValue.map((list, i) => ({ value: values[i]!, ids: list.map((r) => String(r.id)) })).filter((o) => o.ids.length);
  const named = item.rowId !== undefined && records.length > 1 ? records.filter((r) => String(r.id) === String(item.rowId)) : [];
  const split =
    named.length === 1
      ? owners.some((o) => !o.ids.includes(String(named[0]!.id)))
      : records.length > 1 && owners.length > 1 && owners.some((o) => o.ids.join() !== owners[0]!.ids.join());
  if (split) {
    refuse(
      item,
      `the row's ${input.match} belong to different ${rt.command}: ${owners.map((o) => `${o.value} (id ${o.ids.join(', ')})`).join('; ')}`,
      {
        ids: records.map((r) => r.id),
      },
    );
    return;
  }
  if (named.length === 1) records = named;
  else if (records.length > 1 && item.rowId === undefined && !isEmailAttribute(input.match) && !input.mask) {
    // A name held, ignoring case, by several records: the one holding it as written is meant
    // (`Atlas Systems` beside an `ATLAS SYSTEMS` an older import made, a review). Not an address,
    // whose case means nothing (a second review), nor on a rehearsal copy, which holds fakes.
    const exact = records.filter((r) => holdsExactly(r.attributes[input.match], values));
    if (exact.length === 1) records = exact;
  }
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
  if (item.rowId !== undefined && (records.length === 0 || String(records[0]!.id) !== String(item.rowId))) {
    refuse(
      item,
      records.length === 0
        ? `the row's id ${item.rowId} but no ${rt.type} has ${what} (update by id with --match id, or leave the id out: --ignore-columns id)`
        : `the row's id ${item.rowId} is not the ${rt.type} that has ${what} (id ${records[0]!.id}; ids of another org? --ignore-columns id matches by ${input.match} alone)`,
      { id: item.rowId },
    );
    return;
  }
  if (records.length === 0) {
    if (input.mode === 'update') {
      item.outcome = { status: 'failed', id: null, error: `not found: no ${rt.type} has ${what}` };
      if (input.whole) item.sentAnyway = true;
      return;
    }
    item.plan = 'create';
    const { id: _id, ...fields } = data;
    item.write = { method: 'POST', path: rt.path, body: toDocument(fields), data: fields };
    return;
  }
  const rec = records[0]!;
  // A create an earlier run sent and never heard back from is this record: nothing to look up.
  const pending = item.pending;
  delete item.pending;
  item.matched = howMatched(input, item, rec);
  const kept =
    input.match in data.attributes
      ? { ...data, attributes: { ...data.attributes, [input.match]: keptValue(rec.attributes[input.match], data.attributes[input.match]) } }
      : data;
  const d = diffRecord(kept, rec);
  // (An entry without its time says nothing against the record.)
  const sentAt = pending ? sentAtOf(pending, Number.NEGATIVE_INFINITY) : 0;
  if (pending && input.mode === 'upsert' && d.changes.length === 0 && createdSince(rec.attributes, sentAt)) {
    // Holding the row's values, made since: that create landed. It stays the row's create, done
    // as a plain create's rerun does it (resource-perform.ts: `created`, recovered; journaled and
    // in the run's record), the match standing for the lookup. It read "unchanged", skipped, and
    // the run's record kept it cut short (a trial).
    item.plan = 'landed';
    item.pending = pending;
    item.landed = rec.id;
    const { id: _id, ...fields } = data;
    item.write = { method: 'POST', path: rt.path, body: toDocument(fields), data: fields };
    return;
  }
  if (!input.allowOptIn && !input.whole) {
    const back = d.changes.filter((c) => takesBackOptOut(rt, c));
    if (back.length) {
      item.keptOptOuts = back;
      d.changes = d.changes.filter((c) => !back.includes(c));
      for (const c of back) delete d.data.attributes[c.field];
    }
  }
  item.changes = d.changes;
  if (input.whole && item.held) {
    // The plain update's run compares the values its rows leave out with the records it reads; its plan says the same.
    const c = heldChanges(rt, item.held, rec);
    if (c.back.length) item.keptOptOuts = c.back;
    if (c.other.length) item.heldChanges = c.other;
  }
  if (input.whole) {
    item.plan = 'update';
    const { id: _id, ...fields } = data;
    item.write = { method: 'PATCH', path: `${rt.path}/${rec.id}`, body: toDocument(fields), id: rec.id, data: fields };
    return;
  }
  if (d.changes.length === 0) {
    item.plan = 'unchanged';
    item.outcome = { status: 'skipped', id: rec.id, extra: { reason: 'unchanged' } };
    return;
  }
  item.plan = 'update';
  item.write = { method: 'PATCH', path: `${rt.path}/${rec.id}`, body: toDocument(d.data), id: rec.id, data: d.data };
}

/**
 * The lookup of a keyed run (and of its plan): e-mail addresses ignoring case, by one read of the
 * type's addresses (key-match.ts); other attributes by batched filters. On a rehearsal copy it
 * looks for the fakes the copy holds.
 */
export async function keyedLookup(
  client: PageClient,
  input: KeyedInput,
  o: { signal?: AbortSignal; onRequest?: () => void } = {},
): Promise<KeyLookup> {
  const { rt, match, mask } = input;
  const fake = mask ? (v: string) => mask.value(rt.type, match, v) : undefined;
  const base = { path: rt.path, type: rt.type, attr: match, ...o };
  const plain = isFoldedAttribute(match)
    ? foldedLookup(client, { ...base, wanted: await keyedValues(input, fake) })
    : keyLookup(client, base);
  return fake ? maskedLookup(plain, fake) : plain;
}

/** The rows for the workers (or a plan): matched in batches, each decided. */
export function keyedItems(input: KeyedInput, lookup: KeyLookup): AsyncGenerator<KeyedItem> {
  return resolveInBatches(keyedRows(input), lookup, {
    keyOf: (item) => (item.outcome || item.write ? undefined : item.values),
    apply: (item, records, byValue) => decide(input, item, records, byValue),
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
