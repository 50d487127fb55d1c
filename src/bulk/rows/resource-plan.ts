/**
 * The rows of `svc <resource> create|update|delete --input`, read twice: a first pass that
 * checks every row (and counts them, for the progress bar) before anything is sent — so that
 * `--strict` can stop the run before its first request — and a second pass that hands the rows
 * to the workers. Both passes stream the file, so memory does not grow with its length.
 */
import type { ResourceType } from '../../registry/index.js';
import type { Outcome, WorkItem } from '../run/engine.js';
import { skippedFailed, type JournalEntry, type JournalState } from '../run/journal.js';
import { maskWrite, type InputMask } from './input-mask.js';
import { IdSet, lookupQuery } from './lookup.js';
import { readRows, type InputDialect, type InputFormat, type RawRow } from '../input/readers.js';
import { namedValues, type RelNames } from './rel-names.js';
import {
  describeProblems,
  ignoredCsvColumn,
  prepareRow,
  rowRecord,
  type PreparedRow,
  type PreparedWrite,
  type RowNames,
  type WriteOp,
} from './resource-rows.js';
import { RowKeys } from './row-key.js';
import { tallyHeld, type HeldTally } from './consent.js';
import { inShard, type Shard } from '../run/shard.js';
import { grouped } from '../../grouped.js';

/** What a run reads. */
export interface ResourceInput {
  rt: ResourceType;
  op: WriteOp;
  file: string;
  format: InputFormat;
  shard: Shard | undefined;
  journal: JournalState;
  /** Rows the journal records `failed` are skipped (`--skip-failed`) instead of tried again. */
  skipFailed?: boolean;
  /** The org schema's labels and custom-field checks (`svc schema pull`), when cached. */
  names?: RowNames;
  /** Encoding and delimiter, found once before the first pass. */
  dialect?: InputDialect;
  /** Columns left out of every row (`--ignore-columns`, a failed-rows file's error column). */
  skipColumns?: ReadonlySet<string>;
  /** Relationship values written as names (`name:Acme`), resolved before the first pass. */
  relNames?: RelNames;
  /** On an anonymised rehearsal copy: the fakes it holds in place of the rows' values (input-mask.ts). */
  mask?: InputMask;
  /** `--allow-opt-in`: an update may take back an opt-out (consent.ts). */
  allowOptIn?: boolean;
}

/** A row for a worker: its request, and a `pending` journal entry from a run that was killed. */
export interface ResourceItem extends WorkItem {
  write?: PreparedWrite;
  pending?: JournalEntry;
  /**
   * The record the `pending` create made, found by the run's own match (an upsert's): done
   * (`created`, recovered) without a lookup.
   */
  landed?: number | string;
}

/** `, 2 blank (skipped)`: the blank rows of a summary line, when there are any. */
export function blankNote(blank: number): string {
  return blank > 0 ? `, ${grouped(blank)} blank (skipped)` : '';
}

/** Counts of the first pass. */
export interface ScanResult {
  /** Rows of this shard. */
  total: number;
  invalid: number;
  /** Blank CSV rows (every cell empty), skipped: neither to do nor failed. */
  blank: number;
  /** Done by earlier runs (journal). */
  done: number;
  todo: number;
  /** `row N: field: reason` for the first invalid rows. */
  problems: string[];
  /** CSV columns that are left out (`account.name`). */
  ignoredColumns: string[];
  /** Rows to do whose consent values are left out unread (consent.ts), and those attributes. */
  heldOptIns: HeldTally;
  /** CSV rows shorter than the header, read with their last cells empty: how many, and the first few. */
  padded: { rows: number; first: number[] };
}

/** A row of the input with its journal key and its request (or problems). */
interface PreparedInputRow {
  raw: RawRow;
  key: string;
  prepared: PreparedRow;
}

/** A single column of bare ids (no header) is accepted for deletes. */
export function headerlessIds(op: WriteOp) {
  return op === 'delete' ? (rec: string[]) => (rec.length === 1 && /^\s*\d+\s*$/.test(rec[0]!) ? 'id' : undefined) : undefined;
}

/** What a row becomes, and the scope of its journal key, when a command does its own writes (upsert). */
export interface RowPreparer {
  scope: string;
  prepare(raw: RawRow): PreparedRow;
}

/** The rows of the shard, keyed and checked (also used by upsert and update by key). */
export async function* preparedRows(
  input: ResourceInput,
  preparer?: RowPreparer,
  onBlank?: (row: number) => void,
): AsyncGenerator<PreparedInputRow> {
  const keys = new RowKeys(preparer?.scope ?? `${input.op} ${input.rt.type}`);
  for await (const raw of readRows(input.file, {
    format: input.format,
    headerless: headerlessIds(input.op),
    ...(input.dialect ? { dialect: input.dialect } : {}),
    ...(onBlank ? { onBlank: (row: number) => inShard(input.shard, row) && onBlank(row) } : {}),
  })) {
    // Every row gets its key, also rows of other shards, so that keys of identical rows agree.
    const key = keys.next(raw.error !== undefined ? `\0error ${raw.error}` : raw.value);
    if (!inShard(input.shard, raw.row)) continue;
    yield {
      raw,
      key,
      prepared: preparer
        ? preparer.prepare(raw)
        : prepareRow(input.rt, input.op, raw, input.names, input.skipColumns, input.relNames, !input.allowOptIn),
    };
  }
}

/** A relationship value written as a name, as the rows of a file hold it. */
export interface NamedValue {
  rel: string;
  kind: 'name' | 'email';
  value: string;
}

/**
 * Every distinct named relationship value of the shard's rows (`account` = `name:Acme`), read
 * before the first pass so that all of them are looked up together. Same relationship, kind and
 * name (ignoring case and outer spaces) count once. Rows an earlier run did are read too: every
 * row is checked before its journal entry is, so each needs its names.
 */
export async function namedRelValues(input: ResourceInput): Promise<NamedValue[]> {
  const seen = new Map<string, NamedValue>();
  if (input.op === 'delete') return [];
  for await (const raw of readRows(input.file, { format: input.format, ...(input.dialect ? { dialect: input.dialect } : {}) })) {
    if (!inShard(input.shard, raw.row)) continue;
    const built = rowRecord(input.rt, input.op, raw, input.names, input.skipColumns);
    if (!built.record) continue;
    for (const n of namedValues(input.rt, built.record)) {
      const k = `${n.rel}\0${n.kind}\0${n.value.toLowerCase()}`;
      if (!seen.has(k)) seen.set(k, n);
    }
  }
  return [...seen.values()];
}

const DONE = new Set(['created', 'updated', 'deleted']);

/** The first pass: checks and counts every row of the shard. */
export async function scanInput(input: ResourceInput, keepProblems = 20, preparer?: RowPreparer): Promise<ScanResult> {
  const r: ScanResult = {
    total: 0,
    invalid: 0,
    blank: 0,
    done: 0,
    todo: 0,
    problems: [],
    ignoredColumns: [],
    heldOptIns: { rows: 0, fields: new Set() },
    padded: { rows: 0, first: [] },
  };
  let first = true;
  for await (const { raw, key, prepared } of preparedRows(input, preparer, () => r.blank++)) {
    if (first && raw.csv && raw.value) {
      r.ignoredColumns = Object.keys(raw.value).filter((c) => ignoredCsvColumn(input.rt, c));
    }
    first = false;
    r.total++;
    if (raw.padded && r.padded.rows++ < 5) r.padded.first.push(raw.row);
    if ('problems' in prepared) {
      r.invalid++;
      if (r.problems.length < keepProblems) r.problems.push(`row ${raw.row}: ${describeProblems(prepared.problems)}`);
      continue;
    }
    const e = input.journal.entries.get(key);
    // An unconfirmed create is looked up again (to do), unless nothing in the row can find it.
    const relook = e?.status === 'unknown' && (preparer !== undefined || relookable(input.rt, e, prepared.write));
    if (e && !relook && (DONE.has(e.status) || e.status === 'unknown' || (e.status === 'failed' && input.skipFailed))) r.done++;
    else {
      r.todo++;
      tallyHeld(
        r.heldOptIns,
        Object.keys(prepared.write.heldOptIns ?? {}).map((field) => ({ field })),
      );
    }
  }
  return r;
}

/** The second pass: rows for the workers, with what the journal and the checks decided. */
export async function* resourceItems(input: ResourceInput): AsyncGenerator<ResourceItem> {
  for await (const { raw, key, prepared } of preparedRows(input)) {
    const item: ResourceItem = { row: raw.row, key };
    if ('problems' in prepared) {
      item.outcome = invalidOutcome(prepared.problems, prepared.id);
      yield item;
      continue;
    }
    const e = input.journal.entries.get(key);
    const decided = relookable(input.rt, e, prepared.write) ? undefined : journalOutcome(e, input.skipFailed);
    if (decided) item.outcome = decided;
    else {
      // A row recorded `failed` was refused (or never sent): nothing was done, so it is sent again.
      item.write = input.mask ? maskWrite(prepared.write, input.mask) : prepared.write;
      if (e?.status === 'pending' || e?.status === 'unknown') item.pending = e;
    }
    yield item;
  }
}

/**
 * A create an earlier run left `unknown` that can be looked up by the row's own values: looked up
 * again (however late: a backend may have committed it since) rather than reported unknown unseen.
 */
function relookable(rt: ResourceType, e: JournalEntry | undefined, write: PreparedWrite): boolean {
  return e?.status === 'unknown' && write.method === 'POST' && write.data !== undefined && lookupQuery(rt, write.data, 0) !== undefined;
}

/**
 * What the journal decided of a row: done by an earlier run (skipped), unconfirmed (unknown,
 * never sent blindly), refused before and `--skip-failed`; undefined when the row is to be done.
 */
export function journalOutcome(e: JournalEntry | undefined, skipFailed?: boolean): Outcome | undefined {
  if (e && DONE.has(e.status)) return { status: 'skipped', id: e.id ?? null, extra: { reason: `${e.status} by an earlier run (journal)` } };
  if (e?.status === 'unknown')
    return {
      status: 'unknown',
      id: null,
      error: 'an earlier run could not confirm whether this row was created; check, then remove its journal line to send it again',
    };
  if (e?.status === 'failed' && skipFailed) return skippedFailed(e);
  return undefined;
}

function invalidOutcome(problems: { field: string; reason: string }[], id: number | string | undefined): Outcome {
  return {
    status: 'failed',
    id: id ?? null,
    error: `invalid: ${describeProblems(problems)}`,
    extra: { field: problems[0]!.field },
    shown: true,
  };
}

/** Ids of records that earlier runs recorded, so that a lookup does not take them for a new row's. */
export function claimedIds(journal: JournalState): IdSet {
  const out = new IdSet();
  for (const e of journal.entries.values()) if (e.id !== undefined && e.id !== null) out.add(e.id);
  return out;
}
