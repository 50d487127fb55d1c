/**
 * What `svc runs undo` does with each row of a recorded run, decided from the record and the
 * records as they are now (read a page of 100 at a time): an update is set back to its prior
 * values, a create deleted, a delete re-created (a new id; its own relationships reconnected), an
 * enrolment finished. A record changed since the run — a field the run changed no longer holds
 * what it wrote, or a record it created was changed at all — is a conflict, skipped unless
 * `--force`, and said by what the record shows (updatedAt, its updater, a state moved on, an
 * e-mail delivered), never blamed on "someone else": the change is often the user's own (a later
 * enrolment) or the service's (a delivery); a record deleted since is reported, not re-created. Each row carries the image of what its undo changes, so that the undo
 * run is recorded (and can itself be undone) without reading anything again.
 */
import { normalizeId, toDocument, type WriteData } from '../../api/write-body.js';
import { apiTime, utcMarked } from '../../api-time.js';
import type { Outcome } from '../../bulk/run/engine.js';
import type { JournalEntry, JournalState } from '../../bulk/run/journal.js';
import type { FieldValues, RecordedRow, RowLine, RunRecord } from '../../bulk/run/run-record.js';
import { diffRecord, type FieldChange } from '../../bulk/rows/record-diff.js';
import { takesBackOptOut } from '../../bulk/rows/consent.js';
import type { PreparedWrite } from '../../bulk/rows/resource-rows.js';
import { imageOf, valuesOf } from '../../bulk/rows/run-recorder.js';
import { INVERSE, undoBlocker } from '../../bulk/rows/undo-reach.js';
import { findAttribute, findRelationship, resourceByType, type ResourceType } from '../../registry/index.js';

/** A record as read now. */
export type CurrentRecord = { attributes?: Record<string, unknown>; relationships?: Record<string, unknown> };

/** What an undo does with a row (for the plan). */
type UndoAction = 'set back' | 'delete' | 're-create' | 'finish' | 'pause' | 'resume' | 'conflict' | 'nothing to do' | 'gone' | 'cannot';

/** One row of an undo run. */
export interface UndoItem {
  row: number;
  key: string;
  outcome?: Outcome;
  write?: PreparedWrite;
  pending?: JournalEntry;
  image?: Omit<RowLine, 'k' | 'row' | 'key'>;
  /** An item action to send: `POST <type path>/{id}/actions/{name}` (an enrolment finished, a pause resumed). */
  act?: { id: string; name: string };
  action: UndoAction;
  type: string;
  id: string | null;
  /** Fields set back (old = now, new = before the run), or in conflict (old = what the run wrote, new = now). */
  diff?: FieldChange[];
  /** Opt-outs the set-back would take back, kept (bulk/rows/consent.ts; not with `--allow-opt-in`). */
  keptOptOuts?: string[];
  /** An enrolment the undo finishes, or a finished one it cannot make active again: whose it is. */
  finished?: FinishedState;
}

/** A sequence state's id with its prospect, sequence and mailbox (`ID` where neither the record now nor the run's says). */
interface FinishedState {
  state: string | null;
  prospect: string;
  sequence: string;
  mailbox: string;
  /** The state is gone (deleted with its prospect by the run: a merge's duplicate); the ids are the run's record's. */
  gone?: true;
}

/**
 * A sequence state as read now, by its relationships; one that is gone (`now` undefined), by
 * what the run recorded of it (`was`: a merge records whose each enrolment it finished).
 */
function finishedState(id: string | null, now: CurrentRecord | undefined, was?: FieldValues): FinishedState {
  const idOf = (name: string) => {
    if (!now) {
      const v = was?.relationships[name];
      return typeof v === 'string' ? v : 'ID';
    }
    const d = (now.relationships?.[name] as { data?: { id?: unknown } | null } | undefined)?.data;
    return d && d.id !== undefined ? String(d.id) : 'ID';
  };
  return {
    state: id,
    prospect: idOf('prospect'),
    sequence: idOf('sequence'),
    mailbox: idOf('mailbox'),
    ...(id !== null && !now ? { gone: true as const } : {}),
  };
}

/**
 * The way to enrol again prospects whose enrolment is finished, said once for all of them: the
 * finished state goes first, then `svc enroll`. Enroll skips a prospect the sequence holds in any
 * state, and the API refuses a second state where the ruleset disallows duplicates (the
 * default), so `sequence-states create` alone was refused (a trial, and 174 times over). Names the
 * ids all the states share (all of them for one state).
 */
export function enrolAgainHint(svc: string, states: readonly FinishedState[]): string {
  const shared = (k: 'sequence' | 'mailbox', none: string) => {
    const v = new Set(states.map((s) => s[k]));
    return v.size === 1 && !v.has('ID') ? [...v][0]! : none;
  };
  const one = states.length === 1 ? states[0] : undefined;
  const state = one?.state ?? 'STATE-ID';
  const prospect = one && one.prospect !== 'ID' ? one.prospect : 'PROSPECT-ID';
  return `To enrol one again, delete its state, then enroll: ${svc} sequence-states delete ${state} --yes, then ${svc} enroll --sequence ${shared('sequence', 'SEQUENCE-ID')} --mailbox ${shared('mailbox', 'MAILBOX-ID')} --prospect ${prospect}`;
}

/** `101, 102, … (3 more)`: the first ten of `ids`. */
function firstIds(ids: readonly string[]): string {
  return `${ids.slice(0, 10).join(', ')}${ids.length > 10 ? `, … (${ids.length - 10} more)` : ''}`;
}

/** `svc enroll` of `prospects` (ids, new or as recorded) for each sequence and mailbox they share, placeholders where unknown. */
function enrollCommands(svc: string, states: readonly FinishedState[], prospectOf: (s: FinishedState) => string): string[] {
  const groups = new Map<string, Set<string>>();
  for (const s of states) {
    const key = `--sequence ${s.sequence === 'ID' ? 'SEQUENCE-ID' : s.sequence} --mailbox ${s.mailbox === 'ID' ? 'MAILBOX-ID' : s.mailbox}`;
    if (!groups.has(key)) groups.set(key, new Set());
    groups.get(key)!.add(prospectOf(s));
  }
  return [...groups].map(([key, ids]) => `${svc} enroll ${key} --prospect ${[...ids].join(',')}`);
}

/**
 * What is said before the undo of finished enrolments whose state is gone — deleted with its
 * prospect by the run (a merge's duplicate) — in place of {@link enrolAgainHint}: there is no
 * state to delete, and the prospect the undo re-creates has a new id, known once it is made (said
 * then: {@link enrolRecreatedLines}). A trial's hint named `sequence-states delete STATE-ID` for
 * states that answered 404 and `--prospect PROSPECT-ID` for a prospect re-created as 882.
 * `recreates(id)`: whether this undo re-creates that prospect.
 */
export function goneStatesText(svc: string, gone: readonly FinishedState[], recreates: (prospect: string) => boolean): string {
  const waiting = gone.filter((s) => s.prospect !== 'ID' && recreates(s.prospect));
  const rest = gone.filter((s) => !waiting.includes(s));
  const states = (l: readonly FinishedState[]) => `${l.length === 1 ? 'State' : 'States'} ${firstIds(l.map((s) => s.state ?? '?'))}`;
  const parts: string[] = [];
  if (waiting.length) {
    const one = new Set(waiting.map((s) => s.prospect)).size === 1;
    parts.push(
      `${states(waiting)} went with ${one ? 'its prospect' : 'their prospects'} ${firstIds([...new Set(waiting.map((s) => s.prospect))])}, which this undo re-creates under ${one ? 'a new id' : 'new ids'}: once it has, it says the enroll that enrols ${one ? 'it' : 'them'} again.`,
    );
  }
  if (rest.length)
    parts.push(
      `${states(rest)} ${rest.length === 1 ? 'is' : 'are'} gone: to enrol ${rest.length === 1 ? 'its prospect' : 'their prospects'} again, ${enrollCommands(
        svc,
        rest,
        (s) => (s.prospect === 'ID' ? 'PROSPECT-ID' : s.prospect),
      ).join('; ')}`,
    );
  return parts.join(' ');
}

/**
 * After the undo: the `svc enroll` that enrols again each prospect it re-created whose finished
 * enrolment went with it, by its new id, one a sequence and mailbox (`newIdOf`: the id this undo
 * re-created a prospect under, undefined when it did not).
 */
export function enrolRecreatedLines(
  svc: string,
  gone: readonly FinishedState[],
  newIdOf: (prospect: string) => string | undefined,
): string[] {
  const made = gone.filter((s) => s.prospect !== 'ID' && newIdOf(s.prospect) !== undefined);
  const groups = new Map<string, FinishedState[]>();
  for (const s of made) {
    const key = `${s.sequence} ${s.mailbox}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(s);
  }
  return [...groups.values()].map((l) => {
    const olds = [...new Set(l.map((s) => s.prospect))];
    const one = olds.length === 1;
    const [command] = enrollCommands(svc, l, (s) => newIdOf(s.prospect)!);
    return `to enrol again ${one ? 'prospect' : 'prospects'} ${firstIds(olds)}, re-created as ${firstIds(olds.map((o) => newIdOf(o)!))} (${one ? 'its finished enrolment went with it' : 'their finished enrolments went with them'}): ${command}`;
  });
}

/** Statuses of the journal that mean the row's undo is done. */
export const DONE: ReadonlySet<string> = new Set(['created', 'updated', 'deleted']);

/**
 * A create or enrolment that may have been done with no id to show for it: its request left, and
 * the run was stopped or killed before the answer (no outcome), or the answer was lost and its
 * settle window ended without the record (`unknown`). The undo looks it up (undo-lookup.ts).
 */
export function inDoubt({ row, done }: RecordedRow): boolean {
  return (row.op === 'create' || row.op === 'enroll') && (!done || (done.status === 'unknown' && (done.id ?? null) === null));
}

/**
 * What the lookup of a create in doubt found, by the fields it named (`by`): its record, none, or
 * several (not guessed at); `noKey` when the row gives nothing to look it up by.
 */
export type LookedUp =
  | { found: string; by: string[] }
  | { none: true; by: string[] }
  | { ambiguous: string[]; by: string[] }
  | { noKey: true };

/**
 * The rows an undo takes back: done by the run, left without an outcome by a run cut short, or
 * in doubt (`unknown`: the answer was lost) where the record now says whether it happened — an
 * update set back only if its values are there, a delete re-created only if the record is gone,
 * a create deleted only if a lookup finds its record.
 */
export function rowsToUndo(rec: RunRecord, only?: ReadonlySet<number>): RecordedRow[] {
  const out: RecordedRow[] = [];
  for (const r of rec.rows.values()) {
    if (only && !only.has(r.row.row)) continue;
    const unknown = r.done?.status === 'unknown' && (r.row.op === 'update' || r.row.op === 'delete' || inDoubt(r));
    if (r.done && !DONE.has(r.done.status) && !unknown) continue;
    out.push(r);
  }
  return out;
}

/** The records an undo must read now: type → ids (`found`: the records the lookups found for creates in doubt, by key). */
export function idsToRead(rows: RecordedRow[], found?: ReadonlyMap<string, LookedUp>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { row, done } of rows) {
    const looked = found?.get(row.key);
    const id =
      row.op === 'create' || row.op === 'enroll' ? (done?.id ?? (looked && 'found' in looked ? looked.found : null)) : (row.id ?? null);
    // A finish is not taken back, but read too: the way on it names is the state's own prospect,
    // sequence and mailbox. Any other row the type gives no way back for is not: its type may not
    // even offer the read (custom duties have no list).
    if (id === null || (row.op !== 'finish' && undoBlocker(row))) continue;
    if (!out.has(row.type)) out.set(row.type, []);
    out.get(row.type)!.push(id);
  }
  return out;
}

/** Field values as the data of a write (relationships as identifiers of their target type). */
export function writeData(rt: ResourceType, v: FieldValues, id?: string): WriteData {
  const data: WriteData = {
    type: rt.type,
    ...(id !== undefined ? { id: normalizeId(id) } : {}),
    attributes: { ...v.attributes },
    relationships: {},
  };
  for (const [k, ids] of Object.entries(v.relationships)) {
    const target = findRelationship(rt, k)?.target ?? k;
    const ident = (x: string) => ({ type: target, id: normalizeId(x) });
    data.relationships[k] = { data: ids === null ? null : Array.isArray(ids) ? ids.map(ident) : ident(ids) };
  }
  return data;
}

/** The fields of `want` that `rec` does not hold, old (now) → new (wanted). */
function differing(rt: ResourceType, want: FieldValues, rec: CurrentRecord, id: string): FieldChange[] {
  return diffRecord(writeData(rt, want), { id, attributes: rec.attributes ?? {}, relationships: rec.relationships ?? {} }).changes;
}

/** The fields whose value an update changed: those where what it sent differs from its before-image. */
export function changedByRun(rt: ResourceType, before: FieldValues, after: FieldValues, id: string): string[] {
  return differing(rt, after, writeData(rt, before), id).map((c) => c.field);
}

/** The part of `v` named by `fields`. */
export function subset(v: FieldValues, fields: Iterable<string>): FieldValues {
  const out: FieldValues = { attributes: {}, relationships: {} };
  for (const f of fields) {
    if (f in v.attributes) out.attributes[f] = v.attributes[f];
    else if (f in v.relationships) out.relationships[f] = v.relationships[f]!;
  }
  return out;
}

/** The writable fields of a deleted record (for its re-creation), and what cannot be restored. */
function recreation(rt: ResourceType, before: FieldValues): { values: FieldValues; lost: string[] } {
  const values: FieldValues = { attributes: {}, relationships: {} };
  const lost: string[] = [];
  const empty = (v: unknown) => v === null || v === undefined || (Array.isArray(v) && v.length === 0);
  for (const [k, v] of Object.entries(before.attributes)) {
    const spec = findAttribute(rt, k);
    // An empty list is a value (the record showed `[]`, not null): sent as it was.
    if (!spec || spec.readOnly || spec.writeOnly || spec.sensitive || v === null || v === undefined) continue;
    values.attributes[k] = v;
  }
  for (const [k, v] of Object.entries(before.relationships)) {
    if (empty(v)) continue;
    const spec = findRelationship(rt, k);
    if (!spec || spec.readOnly) lost.push(k);
    else values.relationships[k] = v;
  }
  return { values, lost };
}

/** Decides one row of the undo. */
export function undoItem(
  r: RecordedRow,
  current: Map<string, CurrentRecord>,
  journal: JournalState,
  force: boolean,
  /** `--allow-opt-in`: an opt-out the run set may be taken back. */
  allowOptIn = false,
  /** The token's user id, to say "you" where a record names its updater. */
  me?: string,
  /** What the lookup of a create in doubt found (undo-lookup.ts). */
  looked?: LookedUp,
): UndoItem {
  const { row, done } = r;
  const rt = resourceByType(row.type);
  const base = { row: row.row, key: row.key, type: row.type };
  const decided = (action: UndoAction, id: string | null, reason: string, status: Outcome['status'] = 'skipped'): UndoItem => ({
    ...base,
    id,
    action,
    outcome: status === 'failed' ? { status, id, error: reason } : { status, id, extra: { reason, action } },
  });
  const e = journal.entries.get(row.key);
  // A create in doubt whose record a lookup found is taken back like one the run confirmed.
  const doneId = done?.id ?? (looked && 'found' in looked ? looked.found : null);
  if (e && DONE.has(e.status))
    return decided(
      'nothing to do',
      e.id === undefined || e.id === null ? null : String(e.id),
      `${e.status} by an earlier attempt of this undo (journal)`,
    );
  if (!rt) return decided('cannot', row.id ?? null, `unknown type ${row.type}`, 'failed');
  // What the type offers no write (or read) for is said and skipped, never sent: a rerun could do
  // no more. A finish is said below, with the way to enrol the prospect again.
  const blocked = row.op === 'finish' ? undefined : undoBlocker(row);
  if (blocked) return decided('cannot', row.op === 'create' || row.op === 'enroll' ? doneId : (row.id ?? null), blocked);

  if (row.op === 'update') {
    const id = row.id ?? null;
    if (id === null || !row.before || !row.after)
      return decided(
        'cannot',
        id,
        'the run recorded no before-image for this row (the record could not be read before the write)',
        'failed',
      );
    // A row sent whole (a list edited and sent back) also sends every field it leaves as it was:
    // only the fields whose value it changed are the run's, to set back or find in conflict. One
    // it did not change, changed by someone since, was a conflict — the row's real change stayed
    // — or with --force set back over that later edit (a trial).
    const changed = changedByRun(rt, row.before, row.after, id);
    if (changed.length === 0) return decided('nothing to do', id, 'the run changed none of its fields');
    const now = current.get(`${row.type}:${id}`);
    if (!now) return decided('gone', id, 'deleted since the run: not re-created');
    const back = differing(rt, subset(row.before, changed), now, id);
    if (back.length === 0)
      return decided(
        'nothing to do',
        id,
        done ? 'already holds the values it had before the run' : 'the run was cut short before this row: nothing to undo',
      );
    const moved = differing(rt, subset(row.after, changed), now, id);
    if (moved.length > 0 && !force)
      return {
        ...decided('conflict', id, conflictText(moved, now, me)),
        diff: moved.map((c) => ({ field: c.field, old: c.new, new: c.old })),
      };
    // An opt-out is not taken back as a side effect, an undo's either: the person may have asked
    // again since, which the value alone cannot tell (a review).
    // The whole row waits, so that the undo stays unfinished and `--allow-opt-in` later finishes
    // it (a row set back in part would read as done).
    const kept = allowOptIn ? [] : back.filter((c) => takesBackOptOut(rt, c)).map((c) => c.field);
    if (kept.length)
      return {
        ...decided('nothing to do', id, `it would take back an opt-out (${kept.join(', ')}): left as it is (--allow-opt-in takes it back)`),
        keptOptOuts: kept,
      };
    const fields = back.map((c) => c.field);
    const want = subset(row.before, fields);
    const data = writeData(rt, want, id);
    return {
      ...base,
      id,
      action: 'set back',
      diff: back,
      write: { method: 'PATCH', path: `${rt.path}/${id}`, id: normalizeId(id), body: toDocument(data), data },
      image: { op: 'update', type: rt.type, id, before: imageOf(now, rt, want), after: want },
    };
  }

  if (row.op === 'create' || row.op === 'enroll') {
    if (doneId === null) return unconfirmed(decided, done !== undefined, looked);
    const now = current.get(`${row.type}:${doneId}`);
    if (!now) return decided('gone', doneId, 'already deleted since the run');
    if (row.op === 'enroll') {
      if (now.attributes?.['state'] === 'finished') return decided('nothing to do', doneId, 'the sequence state is already finished');
      return {
        ...base,
        id: doneId,
        action: 'finish',
        finished: finishedState(doneId, now),
        act: { id: doneId, name: 'finish' },
        image: { op: 'finish', type: rt.type, id: doneId },
      };
    }
    const moved = row.after
      ? differing(rt, subset(row.after, [...Object.keys(row.after.attributes), ...Object.keys(row.after.relationships)]), now, doneId)
      : [];
    if (moved.length > 0 && !force)
      return {
        ...decided('conflict', doneId, conflictText(moved, now, me)),
        diff: moved.map((c) => ({ field: c.field, old: c.new, new: c.old })),
      };
    // Worked on since (a title set, a note written): deleting it would take that too, and an
    // undo of the undo could not bring it back (a trial's import, deleted with a week's notes).
    const worked = updatedSinceCreated(now);
    // Whoever changed it: svc's own later runs, even undone, leave no mark that tells them from a
    // person's edit made before them (an exemption for them deleted a person's edits, a review).
    // `--rows N --force` takes back one such record once checked.
    if (worked && !force)
      return decided(
        'conflict',
        doneId,
        `changed since the run created it: createdAt ${utcMarked(worked.created)}${sinceText(now, me)}${movedOn(row.type, now)}; skipped (--force deletes it anyway; with --rows, only the rows you checked)`,
      );
    return {
      ...base,
      id: doneId,
      action: 'delete',
      write: { method: 'DELETE', path: `${rt.path}/${doneId}`, id: normalizeId(doneId) },
      image: { op: 'delete', type: rt.type, id: doneId, before: imageOf(now, rt) },
    };
  }

  if (row.op === 'delete') {
    const id = row.id ?? null;
    const now = id !== null ? current.get(`${row.type}:${id}`) : undefined;
    if (now)
      return decided(
        'nothing to do',
        id,
        !done
          ? 'the run was cut short before this row: not deleted'
          : done.status === 'unknown'
            ? 'its answer was lost and the record exists: it was not deleted'
            : 'the record exists again: not re-created',
      );
    if (!row.before)
      return decided(
        'cannot',
        id,
        'the run recorded no before-image for this row (the record could not be read before the delete)',
        'failed',
      );
    const { values, lost } = recreation(rt, row.before);
    const data = writeData(rt, values);
    return {
      ...base,
      id,
      action: 're-create',
      ...(e?.status === 'pending' || e?.status === 'unknown' ? { pending: e } : {}),
      write: { method: 'POST', path: rt.path, body: toDocument(data), data },
      image: { op: 'create', type: rt.type, ...(id !== null ? { was: id } : {}), after: valuesOf(data, rt) },
      ...(lost.length ? { diff: lost.map((f) => ({ field: f, old: row.before!.relationships[f], new: null })) } : {}),
    };
  }

  if (row.op === 'action' && row.action && row.id) {
    const inv = INVERSE[row.action]!;
    const now = current.get(`${row.type}:${row.id}`);
    if (!now) return decided('gone', row.id, 'deleted since the run');
    const state = now.attributes?.['state'];
    if (state === INVERSE[inv.by]!.left) return decided('nothing to do', row.id, `already ${String(state)}`);
    if (state !== inv.left && !force)
      return decided(
        'conflict',
        row.id,
        `changed since the run: its state is now ${JSON.stringify(state)}, the ${row.action} left it ${inv.left}${sinceText(now, me, '; ')}; skipped (--force takes it back anyway)`,
      );
    return {
      ...base,
      id: row.id,
      action: inv.by,
      act: { id: row.id, name: inv.by },
      image: { op: 'action', type: rt.type, id: row.id, action: inv.by },
    };
  }
  if (row.op === 'action') return decided('cannot', row.id ?? null, 'the run recorded no id for this action', 'failed');

  // A finished enrolment (a merge's, or an undone enroll's) cannot be made active again: the API
  // has no write for it. Skipped, not failed: the undo does the rest and exits 0 (issue 32: it
  // restores what the API allows and says which it cannot); a rerun could do no more. The way on
  // (enrolAgainHint) is said once for all such rows, by the undo and its plan.
  const finished = finishedState(row.id ?? null, row.id ? current.get(`${row.type}:${row.id}`) : undefined, row.before);
  return {
    ...decided(
      'cannot',
      row.id ?? null,
      `a finished sequence state cannot be made active again (prospect ${finished.prospect}, sequence ${finished.sequence})`,
    ),
    finished,
  };
}

/**
 * A create in doubt that no lookup found one record for: none found, it was not done (nothing to
 * undo, skipped); several, or nothing to look it up by, and which record is the run's, if any, is
 * not known (left, exit 5: never guessed).
 */
function unconfirmed(
  decided: (action: UndoAction, id: string | null, reason: string, status?: Outcome['status']) => UndoItem,
  answered: boolean,
  looked: LookedUp | undefined,
): UndoItem {
  const lead = answered
    ? 'its answer was lost and no record was found then'
    : 'the run was stopped or killed after this create was sent, before its answer';
  const by = looked && 'by' in looked ? ` (${looked.by.join(', ')})` : '';
  if (looked && 'none' in looked)
    return decided('nothing to do', null, `${lead}; a lookup by its fields${by} finds no such record: it was not created`);
  if (looked && 'ambiguous' in looked)
    return decided(
      'cannot',
      null,
      `${lead}; several records match its fields${by}${looked.ambiguous.length ? ` (${looked.ambiguous.join(', ')})` : ''}: which one the run made, if any, is not known; check by hand`,
      'failed',
    );
  return decided(
    'cannot',
    null,
    `${lead}, and the row has no field to look the record up by: whether it exists is not known; check by hand`,
    'failed',
  );
}

/**
 * A record's `updatedAt` past its `createdAt` (by more than a server's own follow-up writes take):
 * someone changed it after it was made. Undefined for types without both.
 */
function updatedSinceCreated(now: CurrentRecord): { created: string; updated: string } | undefined {
  const created = now.attributes?.['createdAt'];
  const updated = now.attributes?.['updatedAt'];
  if (typeof created !== 'string' || typeof updated !== 'string') return undefined;
  return apiTime(updated) - apiTime(created) > CREATE_SLACK_MS ? { created, updated } : undefined;
}

/** How long after a create the service's own writes to the record may come (derived fields, rules). */
const CREATE_SLACK_MS = 1_000;

function conflictText(moved: FieldChange[], now: CurrentRecord, me: string | undefined): string {
  const show = (v: unknown) => (v === null || v === undefined ? '(empty)' : JSON.stringify(v));
  return `changed since the run: ${moved.map((c) => `${c.field} is ${show(c.old)}, the run wrote ${show(c.new)}`).join('; ')}${sinceText(now, me, '; ')}; skipped (--force takes it back anyway)`;
}

/**
 * What a record shows of its last change, after `lead`: `updatedAt …` and, where the API names
 * one, its updater (`user 1 (you)` when it is the token's user: a later write of one's own is a
 * change too). Nothing more is claimed of who changed it: the service's own writes (a delivery
 * touching a prospect) move updatedAt and leave the updater as it was.
 */
function sinceText(now: CurrentRecord, me: string | undefined, lead = ', '): string {
  const updated = now.attributes?.['updatedAt'];
  const updater = (now.relationships?.['updater'] as { data?: { id?: unknown } | null } | undefined)?.data?.id;
  const facts = [
    typeof updated === 'string' ? `updatedAt ${utcMarked(updated)}` : '',
    updater === undefined || updater === null ? '' : `updater user ${String(updater)}${String(updater) === me ? ' (you)' : ''}`,
  ].filter(Boolean);
  return facts.length ? `${lead}${facts.join(', ')}` : '';
}

/**
 * What moved on in a record the run created, where the record says it: an enrolment's state now
 * and the e-mails it delivered (which no delete unsends); a prospect or account whose last change
 * is its touchedAt (an activity reached it: an e-mail delivered, a call).
 */
function movedOn(type: string, now: CurrentRecord): string {
  const a = now.attributes ?? {};
  const out: string[] = [];
  if (type === 'sequenceState' && typeof a['state'] === 'string') {
    out.push(
      `its state is now ${a['state']}${typeof a['stateChangedAt'] === 'string' ? ` (since ${utcMarked(a['stateChangedAt'])})` : ''}`,
    );
    const sent = a['deliverCount'];
    if (typeof sent === 'number' && sent > 0)
      out.push(`${sent} e-mail${sent === 1 ? '' : 's'} of it delivered: an e-mail sent cannot be unsent`);
  }
  if (typeof a['touchedAt'] === 'string' && a['touchedAt'] === a['updatedAt'])
    out.push('touchedAt is that instant too: an activity reached it, such as an e-mail delivered');
  return out.map((t) => `; ${t}`).join('');
}
