/**
 * Input rows → requests of `svc <resource> create|update|delete --input`. A row has the record
 * shape of the Output section (flat attributes, relationship names holding ids, `account` or
 * `account.id`), so `list -o ndjson` and `list -o csv` output goes back in as it is: `id` and
 * `type` are envelope, read-only fields are dropped, included records collapse to their ids.
 *
 * CSV cells are text and are coerced by attribute type: numbers, booleans (`true/false`,
 * `yes/no`, `1/0`), JSON for object and array attributes, `;`-separated lists (as our CSV
 * output joins them). An empty cell means "not given" — in CSV there is no telling an empty
 * value from a missing one; clear a field with NDJSON or JSON and `null`.
 */
import { coerceString, type FieldProblem } from '../../api/validate.js';
import { normalizeId, recordToWriteData, toDocument, type WriteData } from '../../api/write-body.js';
import { decimalCommaNumber, findAttribute, findRelationship, type AttributeSpec, type ResourceType } from '../../registry/index.js';
import { splitList, unneutralise } from '../input/csv-parse.js';
import { setField } from '../../own-field.js';
import type { RawRow } from '../input/readers.js';
import { hasNamedValue, parseNamed, substituteNames, type RelNames } from './rel-names.js';
import { holdOptIns, type HeldOptIns } from './consent.js';

/** The bulk operations. */
export type WriteOp = 'create' | 'update' | 'delete';

/** One request a row turns into. */
export interface PreparedWrite {
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: { data: Record<string, unknown> };
  /** Target of an update or delete. */
  id?: number | string;
  /** The write's data (creates: for the lookup after a lost answer). */
  data?: WriteData;
  /** Consent attributes the row set to anything but their opt-out, left out, with the row's values (consent.ts). */
  heldOptIns?: HeldOptIns;
}

/**
 * The organization's names and checks for a type (the org-schema view of `svc schema pull`,
 * src/org-schema/org-schema.ts), given by the command: custom-field labels as column names, custom
 * values checked and normalised as `--attr` does.
 */
export interface RowNames {
  /**
   * The field a column was resolved to before the run (header-map.ts), whatever its name; `named`
   * when its cells name the related record (`Account Name`: `Acme` is sent as `name:Acme`).
   */
  column?(key: string): { name: string; named?: 'name' } | undefined;
  resolve(key: string): { name: string; spec: AttributeSpec } | undefined;
  /** `semicolonFile`: the row is of a `;`-separated CSV file (decimal commas read), false another CSV. */
  apply(attributes: Record<string, unknown>, forUpdate: boolean, semicolonFile?: boolean): FieldProblem[];
  /** A custom field's label in the org (`custom2` → `Lead Score`), for plans that name fields to people. */
  label?(field: string): string | undefined;
}

/** The field a column or key names: as written when the registry knows it, else a label's field. */
function fieldOf(rt: ResourceType, key: string, names: RowNames | undefined): string {
  const mapped = names?.column?.(key);
  if (mapped) return mapped.name;
  if (!names || key === 'id' || key === 'type' || key.includes('.') || findAttribute(rt, key) || findRelationship(rt, key)) return key;
  return names.resolve(key)?.name ?? key;
}

/** A cell of a column that names its related record (`Account Name`) written as `name:<cell>`. */
function namedCell(names: RowNames | undefined, key: string, cell: string): string {
  return names?.column?.(key)?.named === 'name' && !parseNamed(cell) ? `name:${cell.trim()}` : cell;
}

/**
 * A row turned into a request, or the problems that stop it, with the record id the row names
 * when it names a valid one (an update's or delete's): a refused row is reported by it too.
 */
export type PreparedRow = { write: PreparedWrite } | { problems: FieldProblem[]; id?: number | string };

/**
 * CSV columns that cannot be written and are left out (`account.name`: a column of an
 * included record). Returned so that the command can warn once per column.
 */
export function ignoredCsvColumn(rt: ResourceType, column: string): boolean {
  const dot = column.indexOf('.');
  if (dot < 0 || column.endsWith('.id') || findAttribute(rt, column)) return false;
  return findRelationship(rt, column.slice(0, dot)) !== undefined;
}

/**
 * A CSV row (header → text) as a typed record; `skip` names columns left out (`--ignore-columns`);
 * `decimalComma` reads `4,5` in a number column as 4.5 (a `;`-separated file).
 */
export function csvRecord(
  rt: ResourceType,
  cells: Record<string, string>,
  names?: RowNames,
  skip?: ReadonlySet<string>,
  decimalComma?: boolean,
): { record: Record<string, unknown>; problems: FieldProblem[] } {
  const record: Record<string, unknown> = {};
  const problems: FieldProblem[] = [];
  for (const [header, raw] of Object.entries(cells)) {
    if (skip?.has(header)) continue;
    const column = fieldOf(rt, header, names);
    const cell = unneutralise(raw);
    if (cell === '' || ignoredCsvColumn(rt, column)) continue;
    if (column === 'id' || column === 'type') {
      setField(record, column, cell.trim());
      continue;
    }
    const relName = column.endsWith('.id') ? column.slice(0, -3) : column;
    if (findRelationship(rt, relName) && !findAttribute(rt, column)) {
      setField(record, column, namedCell(names, header, cell));
      continue;
    }
    const spec = findAttribute(rt, column);
    if (spec?.type === 'string[]') {
      setField(record, column, splitList(cell));
      continue;
    }
    const text = spec?.type === 'number' ? decimalCommaNumber(cell, !!decimalComma) : cell;
    if (typeof text !== 'string') {
      problems.push({ field: column, reason: text.problem });
      continue;
    }
    const c = coerceString(spec, text);
    if ('problem' in c) problems.push({ field: column, reason: c.problem });
    else setField(record, column, c.value);
  }
  return { record, problems };
}

/** A record id as a row may write it: a positive integer, or its digits. */
export function validId(value: unknown): boolean {
  return (
    (typeof value === 'number' && Number.isInteger(value) && value > 0) || (typeof value === 'string' && /^\s*[1-9]\d*\s*$/.test(value))
  );
}

/**
 * A row as a flat record (CSV cells typed, labels read as their fields, `skip` columns left out),
 * or the problems that stop it. The record is the row's own copy only when names or skips apply.
 */
export function rowRecord(
  rt: ResourceType,
  op: WriteOp,
  raw: RawRow,
  names?: RowNames,
  skip?: ReadonlySet<string>,
): { record: Record<string, unknown>; problems: FieldProblem[] } | { problems: FieldProblem[]; record?: undefined } {
  if (raw.error) return { problems: [{ field: '(row)', reason: raw.error }] };
  if (raw.csv) return csvRecord(rt, raw.value as Record<string, string>, names, skip, raw.decimalComma);
  if (typeof raw.value !== 'object' || raw.value === null || Array.isArray(raw.value)) {
    // A bare id is a whole row for delete (`[1, 2, 3]`, or one id per NDJSON line).
    if (op === 'delete' && validId(raw.value)) return { record: { id: raw.value }, problems: [] };
    return { problems: [{ field: '(row)', reason: 'expected a JSON object (a record)' }] };
  }
  if (names || skip?.size) {
    // A copy: the org checks normalise values in place.
    const record: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw.value as Record<string, unknown>))
      if (!skip?.has(k)) setField(record, fieldOf(rt, k, names), typeof v === 'string' ? namedCell(names, k, v) : v);
    return { record, problems: [] };
  }
  return { record: raw.value as Record<string, unknown>, problems: [] };
}

/**
 * Turns one row into its request, checking it against the registry.
 * @param skip columns (keys) left out of every row (`--ignore-columns`)
 * @param relNames relationship values written as names (`name:Acme`), resolved before the run
 */
export function prepareRow(
  rt: ResourceType,
  op: WriteOp,
  raw: RawRow,
  names?: RowNames,
  skip?: ReadonlySet<string>,
  relNames?: RelNames,
  /** An update leaves out what would take back an opt-out (consent.ts; not with `--allow-opt-in`). */
  keepOptOuts = false,
): PreparedRow {
  const built = rowRecord(rt, op, raw, names, skip);
  if (!built.record) return { problems: built.problems };
  const prepared = prepareRecord(rt, op, raw, built.record, built.problems, names, relNames, keepOptOuts);
  // A script picks the failed rows of a report by id: a row refused before sending keeps its own.
  if ('problems' in prepared && op !== 'create' && validId(built.record.id)) return { ...prepared, id: normalizeId(built.record.id) };
  return prepared;
}

/** {@link prepareRow} once the row is a record: its checks, then its request. */
function prepareRecord(
  rt: ResourceType,
  op: WriteOp,
  raw: RawRow,
  read: Record<string, unknown>,
  readProblems: FieldProblem[],
  names: RowNames | undefined,
  relNames: RelNames | undefined,
  keepOptOuts: boolean,
): PreparedRow {
  let record = read;
  const problems: FieldProblem[] = [...readProblems];
  if (relNames && hasNamedValue(rt, record)) {
    // A copy: the row as written stays as it is (its journal key is taken from it).
    record = { ...record };
    problems.push(...substituteNames(rt, record, relNames));
  }
  if (record.type !== undefined && record.type !== null && record.type !== rt.type) {
    problems.push({ field: 'type', reason: `"${String(record.type)}" is not ${rt.type}` });
  }
  if (op !== 'create') {
    if (record.id === undefined || record.id === null || record.id === '') {
      problems.push({ field: 'id', reason: `missing: ${op} rows carry the record id` });
    } else if (!validId(record.id)) {
      problems.push({ field: 'id', reason: `"${String(record.id)}" is not a record id (a positive integer)` });
    }
  }
  if (problems.length) return { problems };
  const id = op === 'create' ? undefined : normalizeId(record.id);
  if (op === 'delete') return { write: { method: 'DELETE', path: `${rt.path}/${id}`, id } };
  if (names) {
    // Before the registry's checks: custom values are normalised to the strings the API takes
    // (NDJSON `"Lead Score": 5` → "5"), the way `--attr` values are.
    const orgProblems = names.apply(record, op === 'update', raw.csv ? !!raw.decimalComma : undefined);
    if (orgProblems.length) return { problems: orgProblems };
  }
  const r = recordToWriteData(rt, record, { readOnly: 'drop', forUpdate: op === 'update' });
  if (r.problems.length) return { problems: r.problems };
  const data = r.data;
  if (op === 'update') {
    const held = keepOptOuts ? holdOptIns(rt, data) : undefined;
    if (Object.keys(data.attributes).length + Object.keys(data.relationships).length === 0) {
      return {
        problems: [
          {
            field: '(row)',
            reason: held
              ? `nothing to update but ${Object.keys(held).join(', ')}, left out: a file does not take back an opt-out (--allow-opt-in sends it)`
              : 'nothing to update: the row has no writable field besides id',
          },
        ],
      };
    }
    return {
      write: { method: 'PATCH', path: `${rt.path}/${id}`, body: toDocument(data), id, data, ...(held ? { heldOptIns: held } : {}) },
    };
  }
  if (Object.keys(data.attributes).length + Object.keys(data.relationships).length === 0) {
    return { problems: [{ field: '(row)', reason: 'nothing to create: the row has no writable field' }] };
  }
  return { write: { method: 'POST', path: rt.path, body: toDocument(data), data } };
}

/** One line for a row's problems: `field: reason; field: reason`. */
export function describeProblems(problems: FieldProblem[]): string {
  return problems.map((p) => `${p.field}: ${p.reason}`).join('; ');
}
