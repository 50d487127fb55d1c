/**
 * Recording a bulk run for `svc runs` (run-record.ts), done by the skeleton for every run so that
 * no command has to: the rows flowing to the workers are read a page at a time — one batched
 * `GET /<type>?filter[id]=…` per 100 rows that update or delete, never one per row — and each
 * row's before-image is held until its first write leaves, written then (the performer calls
 * {@link HeldImages.leaving} right before the request goes, after any pacing wait), or with its
 * outcome when it gets one without a write; each outcome is written when it comes. A row read
 * ahead but never sent (the run stopped first) is not in the record: it wrote nothing, and a
 * rerun does it. Written as the page was read, a stopped run's record held every row of the page
 * as possibly sent ("755 created, 45 cut short" with --concurrency 1, a trial). A row that
 * carries its image already (an undo read the records for its plan) costs no read. Values of
 * sensitive and write-only fields are never kept.
 */
import { encodeQuery } from '../../api/query.js';
import type { WriteData } from '../../api/write-body.js';
import { findResource, resourceByType, secretAttributeNames, type ResourceType } from '../../registry/index.js';
import type { Outcome, Parked, WorkItem } from '../run/engine.js';
import type { Requester } from '../run/requester.js';
import type { FieldValues, RowLine, RowOp, RunRecord, RunRecordWriter } from '../run/run-record.js';

/** What the recorder reads of a row: its request, or an image made by the command. */
export interface RecordableItem extends WorkItem {
  write?: { method: 'POST' | 'PATCH' | 'DELETE'; path: string; id?: number | string; data?: WriteData };
  /** The fields an update changes with their values as the run's match read them (upsert): no read needed. */
  changes?: readonly { field: string; old: unknown }[];
  /** The row's image, when the command already has it (an undo run's rows). */
  image?: Omit<RowLine, 'k' | 'row' | 'key'>;
}

/** Rows read in one request. */
const IMAGE_BATCH = 100;

/**
 * The before-images of the rows read ahead of the workers, each written to the record only when
 * its row's first write is about to leave (or its outcome comes first): a row the run never sent
 * stays out of the record. One per run.
 */
export class HeldImages {
  private readonly held = new Map<string, RowLine>();

  constructor(private readonly record: RunRecordWriter) {}

  hold(line: RowLine): void {
    this.held.set(line.key, line);
  }

  /**
   * Writes the image of the row `key`, once: called right before its first write leaves (the
   * journal's `pending` comes after it), and before its outcome. Nothing for a row without one.
   */
  readonly leaving = (key: string): void => {
    const line = this.held.get(key);
    if (!line) return;
    this.held.delete(key);
    this.record.write(line);
  };
}

/** A record as the recorder reads it (a page of `filter[id]`). */
type ReadRecord = { attributes?: Record<string, unknown>; relationships?: Record<string, unknown> };

/** Options of {@link recordRows}. */
interface RecorderOptions<T extends RecordableItem = RecordableItem> {
  /** Where each row's before-image waits for its write to leave. */
  images: HeldImages;
  requester: Requester;
  /** What a row without a request does (`enroll`: creates a sequenceState). */
  bare?: { op: RowOp; type: string };
  /**
   * The unfinished run's record this rerun continues: a row it holds keeps that first image (a
   * row in doubt read now would show what its first attempt wrote), and is not read again.
   */
  had?: RunRecord;
  /**
   * Told of each update read for its image, with its record as read (undefined: no such record):
   * a command checks its row against the record with no read of its own (a plain update's consent
   * values, consent.ts). Rows whose image is not read (a continued run's) are not told.
   */
  onRead?: (item: T, record: ReadRecord | undefined) => void;
}

/** The type a write's path names (`prospects/5` → prospect). */
function typeOfPath(p: string): ResourceType | undefined {
  return findResource(p.replace(/^\/+/, '').split(/[/?]/)[0] ?? '');
}

/** Relationship ids as a record carries them. */
function relValue(rel: unknown): string | string[] | null {
  const d = (rel as { data?: unknown } | undefined)?.data;
  if (Array.isArray(d)) return d.map((x) => String((x as { id: unknown }).id));
  if (d && typeof d === 'object') return String((d as { id: unknown }).id);
  return null;
}

/** Fields never kept: sensitive (secrets the service returns) and write-only ones. */
function keepable(rt: ResourceType | undefined): (name: string) => boolean {
  if (!rt) return () => true;
  const drop = secretAttributeNames(rt);
  return (n) => !drop.has(n);
}

/** What a write sets, as field values. */
export function valuesOf(data: WriteData | undefined, rt: ResourceType | undefined): FieldValues {
  const keep = keepable(rt);
  const out: FieldValues = { attributes: {}, relationships: {} };
  if (!data) return out;
  for (const [k, v] of Object.entries(data.attributes)) if (keep(k)) out.attributes[k] = v ?? null;
  for (const [k, rel] of Object.entries(data.relationships)) out.relationships[k] = relValue(rel);
  return out;
}

/** The values a record holds: of `only`'s fields (an update's), or all of them (a delete). */
export function imageOf(
  rec: { attributes?: Record<string, unknown>; relationships?: Record<string, unknown> },
  rt: ResourceType | undefined,
  only?: FieldValues,
): FieldValues {
  const keep = keepable(rt);
  const attrs = rec.attributes ?? {};
  const rels = rec.relationships ?? {};
  const out: FieldValues = { attributes: {}, relationships: {} };
  if (only) {
    for (const k of Object.keys(only.attributes)) if (keep(k)) out.attributes[k] = attrs[k] ?? null;
    for (const k of Object.keys(only.relationships)) out.relationships[k] = k in rels ? relValue(rels[k]) : null;
    return out;
  }
  for (const [k, v] of Object.entries(attrs)) if (keep(k)) out.attributes[k] = v ?? null;
  for (const [k, rel] of Object.entries(rels)) {
    // Relationships shown only as links (no ids) say nothing to restore.
    if (rel && typeof rel === 'object' && 'data' in rel) out.relationships[k] = relValue(rel);
  }
  return out;
}

/** Reads the records of `ids` of one type in pages of {@link IMAGE_BATCH}: id → record. */
export async function readRecords(
  requester: Requester,
  rt: ResourceType,
  ids: string[],
): Promise<Map<string, { attributes?: Record<string, unknown>; relationships?: Record<string, unknown> }>> {
  const out = new Map<string, { attributes?: Record<string, unknown>; relationships?: Record<string, unknown> }>();
  for (let i = 0; i < ids.length; i += IMAGE_BATCH) {
    const part = ids.slice(i, i + IMAGE_BATCH);
    const query = encodeQuery([
      ['filter[id]', part.join(',')],
      ['page[limit]', String(IMAGE_BATCH)],
    ]);
    const res = await requester.send({ method: 'GET', path: rt.path, query }, 'read');
    const data = Array.isArray(res.doc.data) ? res.doc.data : [];
    for (const r of data) out.set(String(r.id), r as never);
  }
  return out;
}

/** The rows with their images read (a page at a time) and held for the record until each row's write leaves. */
export async function* recordRows<T extends RecordableItem>(items: AsyncIterable<T>, o: RecorderOptions<T>): AsyncGenerator<T> {
  let batch: T[] = [];
  const flush = async function* (): AsyncGenerator<T> {
    const want = toRead(batch, o.had);
    const found = new Map<string, ReadRecord>();
    for (const [rt, ids] of want) for (const [id, rec] of await readRecords(o.requester, rt, [...ids])) found.set(`${rt.type}:${id}`, rec);
    for (const item of batch) {
      const line = o.had?.rows.has(item.key) ? undefined : rowLine(item, found, o.bare);
      if (line) o.images.hold(line);
      if (o.onRead && item.write?.method === 'PATCH' && isRead(item, o.had)) o.onRead(item, found.get(recordKey(item.write)));
    }
    yield* batch;
    batch = [];
  };
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= IMAGE_BATCH) yield* flush();
  }
  yield* flush();
}

/**
 * The records a batch's updates and deletes change, by type (one read per type): not those of
 * rows carrying their image, nor of rows the continued record holds (their first image stands).
 */
function toRead(batch: readonly RecordableItem[], had: RunRecord | undefined): Map<ResourceType, Set<string>> {
  const want = new Map<ResourceType, Set<string>>();
  for (const item of batch) {
    if (!isRead(item, had)) continue;
    const rt = typeOfPath(item.write!.path)!;
    if (!want.has(rt)) want.set(rt, new Set());
    want.get(rt)!.add(String(item.write!.id));
  }
  return want;
}

/** The row's record is read for its image: an update or delete by id, not carrying its image, not held by the continued record. */
function isRead(item: RecordableItem, had: RunRecord | undefined): boolean {
  const w = item.write;
  if (item.outcome || item.image || item.changes || !w || w.method === 'POST' || w.id === undefined) return false;
  return !had?.rows.has(item.key) && typeOfPath(w.path) !== undefined;
}

/** The key of a write's record among those read: `prospect:5`. */
function recordKey(w: NonNullable<RecordableItem['write']>): string {
  const rt = (w.data && resourceByType(w.data.type)) || typeOfPath(w.path);
  return `${rt?.type ?? w.data?.type ?? ''}:${w.id === undefined ? null : String(w.id)}`;
}

/** The before-image line of one row; undefined for rows decided without a write. */
function rowLine(item: RecordableItem, found: Map<string, ReadRecord>, bare: RecorderOptions['bare']): RowLine | undefined {
  if (item.outcome) return undefined;
  const base = { k: 'row' as const, row: item.row, key: item.key };
  if (item.image) return { ...base, ...item.image };
  const w = item.write;
  if (!w) return bare ? { ...base, op: bare.op, type: bare.type } : undefined;
  const rt = (w.data && resourceByType(w.data.type)) || typeOfPath(w.path);
  const type = rt?.type ?? w.data?.type ?? '';
  if (w.method === 'POST') return { ...base, op: 'create', type, after: valuesOf(w.data, rt) };
  const id = w.id === undefined ? null : String(w.id);
  const rec = found.get(recordKey(w));
  if (w.method === 'PATCH') {
    const after = valuesOf(w.data, rt);
    if (item.changes) return { ...base, op: 'update', type, id, after, before: priorFrom(item.changes, after) };
    return { ...base, op: 'update', type, id, after, ...(rec ? { before: imageOf(rec, rt, after) } : {}) };
  }
  return { ...base, op: 'delete', type, id, ...(rec ? { before: imageOf(rec, rt) } : {}) };
}

/** The before-image of an update from the old values its match read (`changes` of record-diff.ts). */
function priorFrom(changes: readonly { field: string; old: unknown }[], after: FieldValues): FieldValues {
  const old = new Map(changes.map((c) => [c.field, c.old]));
  const out: FieldValues = { attributes: {}, relationships: {} };
  for (const k of Object.keys(after.attributes)) out.attributes[k] = old.get(k) ?? null;
  for (const k of Object.keys(after.relationships)) {
    const v = old.get(k);
    out.relationships[k] = Array.isArray(v) ? v.map(String) : v === null || v === undefined ? null : String(v);
  }
  return out;
}

/**
 * The status a row's outcome is recorded with. A rerun's failure of an update or delete does not
 * say what its first attempt did — a delete sent again is refused 404 — so it does not take that
 * back: a row the continued record says was done (`deleted`, `updated`: the kill fell between the
 * record's outcome line and the journal's, so the journal did not skip it) keeps that status; one
 * left in doubt (cut short by a kill, or its answer lost) stays in doubt (`unknown`), and an undo
 * decides it by the record as it is then.
 */
function recordedStatus(key: string, status: string, had: RunRecord | undefined): string {
  const first = had?.rows.get(key);
  if (status !== 'failed' || !first || (first.row.op !== 'update' && first.row.op !== 'delete')) return status;
  return !first.done || first.done.status === 'unknown' ? 'unknown' : first.done.status;
}

/**
 * The performer with each outcome written to the record as it comes (`had`: the record a rerun
 * continues), after the row's image when its write never left (a lost create found by a lookup, a
 * row refused before sending): an outcome always follows its row's image.
 */
export function recordOutcomes<T extends WorkItem>(
  perform: (item: T) => Promise<Outcome | Parked>,
  record: RunRecordWriter,
  images: HeldImages,
  had?: RunRecord,
): (item: T) => Promise<Outcome | Parked> {
  const done = (item: T, out: Outcome): Outcome => {
    images.leaving(item.key);
    const status = recordedStatus(item.key, out.status, had);
    // A failure that does not stand (the first attempt's outcome does) is said, not the row's error.
    const stands = status === out.status || status === 'unknown';
    const note = stands
      ? (out.extra?.note ?? out.extra?.restored)
      : `done before the kill; sent again by the rerun: ${out.error ?? out.status}`;
    record.write({
      k: 'done',
      row: item.row,
      key: item.key,
      status,
      id: out.id === undefined || out.id === null ? null : String(out.id),
      ...(out.error && stands ? { error: out.error } : {}),
      ...(typeof note === 'string' ? { note } : {}),
    });
    return out;
  };
  return async (item) => {
    const out = await perform(item);
    if ('parked' in out) return { parked: out.parked.then((o) => done(item, o)) };
    return done(item, out);
  };
}
