/**
 * The rows of `svc enroll`: prospect ids (`--by id`, the default) or e-mail addresses
 * (`--by email`), from `--prospect` values or an input file. A CSV file gives them in an `id`
 * (or `prospect`, `prospect.id`) or `email` (or `emails`) column; a file of a single column may
 * leave the header out. NDJSON and JSON rows are records (`prospects list -o ndjson` output:
 * `id`, or the first of `emails`) or bare values.
 */
import { UsageError } from '../../errors.js';
import type { RecordableItem } from './run-recorder.js';
import type { JournalEntry } from '../run/journal.js';
import { readRows, type InputDialect, type InputFormat, type RawRow } from '../input/readers.js';
import { RowKeys } from './row-key.js';
import { inShard, type Shard } from '../run/shard.js';
import { idValue } from '../../lossless-json.js';
import { notAnAddress } from '../../api/validate.js';
import { isEmailAddress } from '../../registry/index.js';
import { resourceByType } from '../../registry/index.js';
import { looseName, matchFieldName } from '../../registry/name-match.js';

/** How input rows name prospects. */
export type EnrollBy = 'id' | 'email';

/** One enrolment row for the workers (its `image` names the prospect, sequence and mailbox for `svc runs`). */
export interface EnrollItem extends RecordableItem {
  prospectId?: number | string;
  email?: string;
  /** A `pending` journal entry: an earlier run sent this enrolment and was stopped. */
  pending?: JournalEntry;
  /** No prospect has `prospectId` (found before anything is sent): `--prospect` refuses the run. */
  unknownId?: boolean;
}

/** A row's value, or why it is unusable. */
type EnrollValue = { id: number | string } | { email: string } | { problem: string };

/** Where the rows come from. */
export interface EnrollSource {
  by: EnrollBy;
  /** `--prospect` values (ids). */
  prospects?: string[];
  file?: string;
  format?: InputFormat;
  /** Encoding and delimiter of the file, found once. */
  dialect?: InputDialect;
  shard?: Shard;
  /** Sequence id: part of the row keys, so journals of different sequences never mix. */
  sequenceId: number | string;
  /** `--column`: the CSV column holding the ids or addresses, named by the user. */
  column?: string;
}

const ID_COLUMNS = ['id', 'prospect', 'prospect.id'];
const EMAIL_COLUMNS = ['email', 'emails'];

function prospectIdValue(v: unknown): EnrollValue {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : undefined;
  if (s === undefined || !/^[1-9]\d*$/.test(s)) return { problem: `${JSON.stringify(v)} is not a prospect id (a positive integer)` };
  // Digits, never a rounded Number: ids may be past 2^53.
  return { id: idValue(s) };
}

function emailValue(v: unknown): EnrollValue {
  const first = Array.isArray(v) ? v[0] : typeof v === 'string' && v.includes(';') ? v.split(';')[0] : v;
  const s = typeof first === 'string' ? first.trim() : undefined;
  // The registry's one rule: what upsert would refuse to write, enroll refuses to look up.
  if (!s || !isEmailAddress(s))
    return { problem: typeof first === 'string' ? notAnAddress(first) : `${JSON.stringify(first ?? null)} is not an e-mail address` };
  return { email: s };
}

/**
 * The CSV column that holds the rows' ids or addresses: an exact name, else a header as people
 * write it, read by the one header resolver of bulk input (registry/name-match.ts): `E-mail`,
 * `Email Address`, `Mail`; `Prospect ID`, `ID`.
 */
export function keyColumn(header: string[], by: EnrollBy): string | undefined {
  const wanted = by === 'id' ? ID_COLUMNS : EMAIL_COLUMNS;
  const exact = wanted.find((c) => header.includes(c));
  if (exact !== undefined) return exact;
  const prospect = resourceByType('prospect')!;
  const field = by === 'id' ? 'id' : 'emails';
  return header.find((h) => {
    if (by === 'id' && looseName(h) === 'prospect') return true;
    const m = matchFieldName(prospect, h, undefined, true);
    return m !== undefined && 'match' in m && m.match.field === field;
  });
}

/** The value of one input row; `column` is the CSV column found by {@link keyColumn}. */
export function enrollValue(raw: RawRow, by: EnrollBy, column?: string): EnrollValue {
  if (raw.error) return { problem: raw.error };
  const v = raw.value;
  const pick = by === 'id' ? prospectIdValue : emailValue;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return pick(v);
  const rec = v as Record<string, unknown>;
  const cols = column !== undefined ? [column] : by === 'id' ? ID_COLUMNS : EMAIL_COLUMNS;
  const col = cols.find((c) => rec[c] !== undefined && rec[c] !== null && rec[c] !== '');
  if (!col) {
    // A CSV row always has the column (it was found in the header): its cell is empty, which
    // --column cannot fix (a trial was sent to --column for a blank cell).
    const name = column !== undefined ? `"${column}"` : by === 'id' ? 'id' : 'email';
    return { problem: cols.some((c) => Object.hasOwn(rec, c)) ? `${name} is empty` : `no ${name} in the row` };
  }
  const value = rec[col];
  // A `prospect` column of sequence-state output may hold an included record.
  if (by === 'id' && typeof value === 'object' && value !== null && 'id' in value) return prospectIdValue((value as { id: unknown }).id);
  return pick(value);
}

/** A header-less single-column CSV: the first record is data when it looks like a value. */
export function headerless(by: EnrollBy) {
  return (rec: string[]): string | undefined => {
    if (rec.length !== 1) return undefined;
    const cell = rec[0]!.trim();
    if (by === 'id' && /^\d+$/.test(cell)) return 'id';
    if (by === 'email' && cell.includes('@')) return 'email';
    return undefined;
  };
}

/** Rows of the source, in this shard, with their keys. @throws UsageError when a CSV lacks the column */
export async function* enrollRows(
  src: EnrollSource,
  onBlank?: (row: number) => void,
): AsyncGenerator<{ row: number; key: string; value: EnrollValue }> {
  const keys = new RowKeys(`enroll ${src.sequenceId}`);
  const rows: AsyncIterable<RawRow> = src.file
    ? readRows(src.file, {
        format: src.format ?? 'csv',
        headerless: headerless(src.by),
        ...(src.dialect ? { dialect: src.dialect } : {}),
        ...(onBlank ? { onBlank: (row: number) => inShard(src.shard, row) && onBlank(row) } : {}),
      })
    : (async function* () {
        let row = 0;
        for (const p of src.prospects ?? []) yield { row: ++row, value: p };
      })();
  let first = true;
  // `--column` names a member of NDJSON and JSON records too (it was read for CSV only, a review).
  let column: string | undefined = src.column;
  // A CSV without the column: the first rows, read for the hint before the error.
  let missing: { cols: string[]; sample: RawRow[] } | undefined;
  for await (const raw of rows) {
    if (missing) {
      missing.sample.push(raw);
      if (missing.sample.length >= HINT_SAMPLE) break;
      continue;
    }
    if (first && raw.csv && raw.header) {
      const cols = raw.header.filter((c) => c !== '');
      const wanted = src.by === 'id' ? ID_COLUMNS : EMAIL_COLUMNS;
      if (src.column !== undefined && !cols.includes(src.column))
        throw new UsageError(`--column ${src.column}: no such column in ${src.file} (columns: ${cols.join(', ')})`);
      const found = src.column ?? keyColumn(cols, src.by);
      // An exact name keeps the fallback between `id`, `prospect` and `prospect.id` per row.
      column = found !== undefined && !wanted.includes(found) ? found : undefined;
      if (found === undefined) {
        missing = { cols, sample: [raw] };
        continue;
      }
    }
    first = false;
    const value = enrollValue(raw, src.by, column);
    // The key is the prospect (id or lower-cased address), not the whole row.
    const key = keys.next('id' in value ? `id:${value.id}` : 'email' in value ? `email:${value.email.toLowerCase()}` : `bad:${raw.row}`);
    if (!inShard(src.shard, raw.row)) continue;
    yield { row: raw.row, key, value };
  }
  if (missing) {
    const wanted = src.by === 'id' ? ID_COLUMNS : EMAIL_COLUMNS;
    // A French sheet's "Adresse e-mail" could not be named at all (a trial).
    throw new UsageError(
      `--input ${src.file}: no ${wanted.map((c) => `"${c}"`).join(' or ')} column (columns: ${missing.cols.join(', ')})`,
    ).hint(columnHint(missing.cols, missing.sample, src.by));
  }
}

/** Rows read to find the columns whose values look like ids or addresses. */
const HINT_SAMPLE = 20;

/**
 * What to type when a CSV has no column for `by`: a column whose values read as `by` reads them
 * (prospect ids, addresses), else `--by` the other way with a column whose values read that way.
 * A column is named only for its values: `Name` was offered as the id column (the first column,
 * failing any better), a trial.
 */
function columnHint(cols: string[], sample: RawRow[], by: EnrollBy): string {
  const holding = (b: EnrollBy): string | undefined => {
    const reads = (c: string) => {
      const cells = sample
        .map((r) => (r.value as Record<string, unknown> | undefined)?.[c])
        .filter((v) => typeof v === 'string' && v.trim() !== '');
      return cells.length > 0 && cells.every((v) => !('problem' in (b === 'id' ? prospectIdValue(v) : emailValue(v))));
    };
    // A column named as numbers of another kind is no column of ids, whatever its digits (a
    // `Phone` column was offered as prospect ids, a review).
    const fits = cols.filter((c) => reads(c) && (b === 'email' || !/phone|mobile|\btel|fax|zip|postal|post code|plz/i.test(c)));
    // Of several, the one whose name says so.
    return fits.find((c) => (b === 'email' ? /mail/i : /\bid\b|prospect/i).test(c)) ?? fits[0];
  };
  const other: EnrollBy = by === 'id' ? 'email' : 'id';
  const what = (b: EnrollBy) => (b === 'id' ? 'prospect ids' : 'e-mail addresses');
  const mine = holding(by);
  if (mine !== undefined) return `name it: --column "${mine}"; --by ${other} for a file of ${what(other)}`;
  const theirs = holding(other);
  if (theirs !== undefined) return `"${theirs}" holds ${what(other)}: --by ${other} --column "${theirs}"`;
  return `name the column of ${what(by)}: --column NAME; --by ${other} for a file of ${what(other)}`;
}
