/**
 * The hook by which every write run is recorded for `svc runs` (bulk/run/run-record.ts): the
 * skeleton (run.ts) opens a record when its session opens, hands the rows and the performer
 * through the recorder (bulk/rows/run-recorder.ts), and ends the record with the counts; single
 * writes call {@link recordSingleWrite}. The record lives in `runs/` of the data directory.
 */
import os from 'node:os';
import { svcAgain } from '../../runtime/svc-again.js';
import { dataDir } from '../../auth/config-dir.js';
import type { PoolResult } from '../../bulk/run/engine.js';
import { newRunId, RunRecordWriter, runsDir, type RowLine, type RunMeta } from '../../bulk/run/run-record.js';

/** A record as the API shows it. */
export type CurrentRecord = { attributes?: Record<string, unknown>; relationships?: Record<string, unknown> };
import type { SideOwner } from '../../bulk/run/side-owner.js';
import type { Context } from '../../runtime/context.js';
import type { WriteData } from '../../api/write-body.js';
import { imageOf, valuesOf } from '../../bulk/rows/run-recorder.js';
import { undoBlocker, type UndoableRow } from '../../bulk/rows/undo-reach.js';
import { grouped } from '../../grouped.js';
import { ApiError } from '../../errors.js';
import { RESOURCES, secretAttributeNames, type ResourceType } from '../../registry/index.js';
import { quoteWord } from '../../shell-words.js';

/** The runs directory of this profile's data directory. */
export function runsDirOf(ctx: Context): string {
  return runsDir(dataDir(ctx.env));
}

/**
 * The command line as recorded: the arguments as given, secrets redacted — the tokens the
 * Context knows, and the values given to a sensitive or write-only attribute (`--attr
 * secret=…` of a webhook, or the same name in a JSON body).
 */
function argvText(ctx: Context, label: string): string {
  const words = ctx.argv?.length ? ctx.argv : label.split(' ');
  const hidden = secretNamesOfAnyType();
  const masked = words.map((w) => {
    const pair = /^(--attr=)?([\w.-]+)=/.exec(w);
    if (pair && hidden.has(pair[2]!)) return `${pair[0]}***`;
    return w.replace(/"([\w.-]+)"(\s*:\s*)"(?:[^"\\]|\\.)*"/g, (m, name: string, colon: string) =>
      hidden.has(name) ? `"${name}"${colon}"***"` : m,
    );
  });
  // Written as a shell reads it back: the line can be pasted to run the command again.
  return ctx.redact(['svc', ...masked].map(quoteWord).join(' '));
}

/** Names of attributes whose values are never kept: sensitive or write-only on any type. */
function secretNamesOfAnyType(): Set<string> {
  const names = new Set<string>();
  for (const rt of RESOURCES) for (const n of secretAttributeNames(rt)) names.add(n);
  return names;
}

/** The local user's name, for "who" (the API's user is in the owner). */
function localUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * Opens the record of a run; `owner` is the run's (asked of the API once per run). `untilRow`:
 * the file is made with the first row (a run that writes nothing leaves no record, see
 * RunRecordWriter.create).
 */
export async function openRunRecord(
  ctx: Context,
  label: string,
  owner: SideOwner,
  extra: Pick<RunMeta, 'undoes' | 'journal' | 'shard' | 'rows'> = {},
  untilRow = false,
): Promise<RunRecordWriter> {
  const conn = await ctx.connection();
  // One reading of the clock: the id's second is the second of `at` (runs sort by `at`).
  const now = ctx.clock.now();
  const meta: RunMeta = {
    k: 'meta',
    id: newRunId(now),
    label,
    argv: argvText(ctx, label),
    profile: conn.profileName,
    owner: { ...owner, command: label },
    who: localUser(),
    at: new Date(now).toISOString(),
    ...extra,
  };
  return RunRecordWriter.create(runsDirOf(ctx), meta, () => ctx.clock.now(), untilRow);
}

/** The run's id, from its record file name. */
export function recordId(w: RunRecordWriter): string {
  return w.file.replace(/^.*[\\/]/, '').replace(/\.run\.ndjson$/, '');
}

/** Ends a record with the run's counts, and says how to take it back (or that nothing was recorded). */
export function endRunRecord(ctx: Context, w: RunRecordWriter, result: PoolResult): void {
  const changed = result.counts.created + result.counts.updated + result.counts.deleted;
  // Rows recorded before their writes, then all skipped or refused (a rerun of an enrolment whose
  // prospects are in the sequence by now, every row refused by the API): nothing to undo, so no
  // record either, and `[0]` of `svc runs list` stays the last run that changed something (an
  // enrol of "skipped 1, failed 4" came first, a trial). A run stopped early, or with a row in
  // doubt, keeps it (its rerun continues it). A failed row may have written before it failed (a
  // dedupe cluster is several writes): the record says so (its steps done are rows of their own).
  const wroteNothing =
    changed === 0 && result.counts.unknown === 0 && !w.mayHaveWritten && !result.interrupted && result.tripped === undefined;
  if (!(wroteNothing && w.discard()))
    w.write({
      k: 'end',
      at: new Date(ctx.clock.now()).toISOString(),
      counts: result.counts,
      ...(result.interrupted ? { interrupted: true } : {}),
    });
  const svc = svcAgain(ctx);
  // No row was written (each one done by an earlier run, unchanged, or none to do): no record,
  // so that the run before stays the newest in `svc runs list` and the one `runs undo` is meant for.
  if (!w.made) ctx.info(`nothing was written: no run recorded, nothing to undo (${svc} runs list shows the runs before)`);
  else if (changed > 0) ctx.info(recordedLine(svc, recordId(w), [...w.kinds.values()]));
}

/**
 * `recorded as run ID: …`, with what an undo of it can do: a promise of an undo only for rows one
 * can take back (bulk/rows/undo-reach.ts): an event created, a task marked complete cannot be.
 */
function recordedLine(svc: string, id: string, kinds: (UndoableRow & { rows: number })[], single = false): string {
  const blocked = kinds.flatMap((k) => {
    const why = undoBlocker(k);
    return why ? [{ rows: k.rows, why }] : [];
  });
  const why = [...new Set(blocked.map((b) => b.why))].join('; ');
  const cannot = blocked.reduce((n, b) => n + b.rows, 0);
  const all = kinds.reduce((n, k) => n + k.rows, 0);
  const undo =
    cannot === 0
      ? `${svc} runs undo ${id} takes it back`
      : cannot === all
        ? `svc cannot take it back: ${why}`
        : `${svc} runs undo ${id} takes it back but for ${grouped(cannot)} of its ${grouped(all)} rows: ${why}`;
  // A single write's record holds one row: `runs show` is for what cannot be undone.
  return `recorded as run ${id}: ${single && cannot === 0 ? '' : `${svc} runs show ${id} · `}${undo}`;
}

/** A record as read before a single write changes it (undefined when it cannot be read: recorded without an image). */
export async function priorRecord(ctx: Context, path: string): Promise<CurrentRecord | undefined> {
  try {
    const res = await (await ctx.api()).request({ method: 'GET', path, signal: ctx.signal });
    const d = res.doc.data;
    return d && !Array.isArray(d) ? (d as CurrentRecord) : undefined;
  } catch (err) {
    // The write that follows says what is wrong with the record (gone, refused).
    if (err instanceof ApiError) return undefined;
    throw err;
  }
}

/**
 * Records a single write (`<type> create|update|delete`) once it is done: one row with its
 * before-image (read by {@link priorRecord} before the write) or the new id. Whose it is comes
 * from the connection alone — no request of its own — so a single write costs one read more
 * (update and delete), and nothing more for a create.
 */
export async function recordSingleWrite(
  ctx: Context,
  rt: ResourceType,
  op: 'create' | 'update' | 'delete' | 'action',
  id: string,
  data: WriteData | undefined,
  prior: CurrentRecord | undefined,
  /** The item action's name (`op: 'action'`). */
  action?: string,
): Promise<void> {
  const label = `${rt.command} ${action ?? op}`;
  const after = valuesOf(data, rt);
  const row: Omit<RowLine, 'k' | 'row' | 'key'> =
    op === 'action'
      ? { op, type: rt.type, id, action: action ?? '' }
      : op === 'create'
        ? { op, type: rt.type, after }
        : op === 'update'
          ? { op, type: rt.type, id, after, ...(prior ? { before: imageOf(prior, rt, after) } : {}) }
          : { op, type: rt.type, id, ...(prior ? { before: imageOf(prior, rt) } : {}) };
  const status = op === 'create' ? 'created' : op === 'delete' ? 'deleted' : 'updated';
  let w: RunRecordWriter | undefined;
  try {
    const conn = await ctx.connection();
    w = await openRunRecord(ctx, label, { api: conn.baseUrl, command: label });
    w.write({ k: 'row', row: 1, key: '1', ...row });
    w.write({ k: 'done', row: 1, key: '1', status, id });
    w.write({ k: 'end', at: new Date(ctx.clock.now()).toISOString(), counts: { [status]: 1 } });
    ctx.info(recordedLine(svcAgain(ctx), recordId(w), [{ op, type: rt.type, action, rows: 1 }], true));
  } catch (err) {
    // The write is done: a record that cannot be written is said, not an error of the write.
    ctx.warn(`the write was not recorded for svc runs: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    w?.close();
  }
}
