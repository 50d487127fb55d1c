/**
 * The steps of `svc dedupe apply` as rows of the run's record (bulk/run/run-record.ts), so that
 * `svc runs undo <apply-run>` takes a merge back with the machinery of every other run: each
 * step (`<cluster>/<step>`) gets its before-image, read just before it leaves — the survivor's
 * filled fields, a moved record's link, a duplicate's whole record (re-created by the undo), a
 * tag's previous tags — and its outcome once done. A finished enrolment is recorded as such: the
 * undo says it cannot be made active again.
 */
import type { WriteData } from '../../api/write-body.js';
import { imageOf, valuesOf } from '../../bulk/rows/run-recorder.js';
import type { RecordedRow, RowLine, RunRecordWriter } from '../../bulk/run/run-record.js';
import type { Requester } from '../../bulk/run/requester.js';
import { ApiError } from '../../errors.js';
import { findResource } from '../../registry/index.js';

/** A step's row as recorded, without its place. */
export type StepImage = Omit<RowLine, 'k' | 'row' | 'key'>;

/** What {@link recordStep} needs of a step. */
interface RecordedStep {
  method: 'PATCH' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  image?: StepImage;
}

type Rec = { attributes?: Record<string, unknown>; relationships?: Record<string, unknown> };

/** The record a step writes, as it is now; undefined when it is gone (the step is then done without a change). */
async function current(r: Requester, path: string): Promise<Rec | undefined> {
  try {
    const res = await r.send({ method: 'GET', path }, 'read');
    const d = res.doc.data;
    return d && !Array.isArray(d) ? (d as Rec) : undefined;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/**
 * Writes a step's before-image to the record (reading the record it changes first, unless the
 * step carries its image); @returns the function that writes its outcome.
 */
export async function recordStep(
  record: RunRecordWriter,
  r: Requester,
  at: { row: number; key: string },
  x: RecordedStep,
  had?: RecordedRow,
): Promise<(status: string, error?: string) => void> {
  // Recorded by the unfinished run this one continues: its image is the record before the step's
  // first attempt (read now, it would be what that attempt wrote, and the undo would set nothing back).
  if (had) return (status, error) => record.write({ k: 'done', ...at, status, id: had.row.id ?? null, ...(error ? { error } : {}) });
  const [head = '', id = null] = x.path.replace(/^\/+/, '').split('/');
  const rt = findResource(head);
  let image: StepImage | undefined = x.image;
  if (!image && x.method === 'POST') image = { op: 'finish', type: 'sequenceState', id };
  if (!image && rt && id !== null) {
    const now = await current(r, x.path);
    if (now) {
      if (x.method === 'DELETE') image = { op: 'delete', type: rt.type, id, before: imageOf(now, rt) };
      else {
        const d = (x.body as { data?: Partial<WriteData> } | undefined)?.data;
        const after = valuesOf({ type: rt.type, attributes: d?.attributes ?? {}, relationships: d?.relationships ?? {} }, rt);
        image = { op: 'update', type: rt.type, id, before: imageOf(now, rt, after), after };
      }
    }
  }
  if (!image) return () => {};
  record.write({ k: 'row', ...at, ...image });
  return (status, error) => record.write({ k: 'done', ...at, status, id: image.id ?? null, ...(error ? { error } : {}) });
}
