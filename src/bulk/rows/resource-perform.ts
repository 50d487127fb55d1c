/**
 * Doing one row of `svc <resource> create|update|delete --input`.
 *
 * A write that was sent but got no definite answer (a network failure after sending, a
 * 500/502/504) may still be carried out seconds later, so it is never sent again at once: the
 * row is parked (settle.ts) and watched over the settle window — a create by the lookup of
 * lookup.ts, an update by reading the record back (write-check.ts), a delete by reading the
 * record until it is gone. Found: the row is done (`recovered`). Not found at the end of the
 * window: an update or delete is sent again (harmless twice); a create is reported `unknown` —
 * a backend may commit after any window — unless `resend` (`--resend-unconfirmed`), and then
 * only when the row can be looked up, right after the last lookup. A create is journaled
 * `pending` before it is sent, so that a run killed meanwhile leaves the rerun something to look
 * up; a row an earlier run left `unknown` is looked up again, however late, before anything is
 * sent.
 */
import { ApiError, NetworkError } from '../../errors.js';
import type { ResourceType } from '../../registry/index.js';
import { isFatal, type Outcome, type Parked } from '../run/engine.js';
import type { JournalWriter } from '../run/journal.js';
import { findCreated, lookupQuery, sentAtOf, type IdSet } from './lookup.js';
import { AnswerLost, type Requester } from '../run/requester.js';
import type { ResourceItem } from './resource-plan.js';
import type { WriteOp } from './resource-rows.js';
import { settle, type SettleClock } from '../run/settle.js';
import { readBackQuery, updateApplied } from './write-check.js';

/** Options of {@link resourcePerformer}. */
interface PerformerOptions {
  rt: ResourceType;
  /** The command's operation; what is sent for a row follows its request (an upsert mixes creates and updates). */
  op: WriteOp;
  requester: Requester;
  journal: JournalWriter | undefined;
  /** Ids recorded for other rows (journal and this run). */
  claimed: IdSet;
  /** The settle window of writes without a definite answer. */
  settle: SettleClock;
  /** A create still not found at the end of its window is sent again (`--resend-unconfirmed`), not reported unknown. */
  resend?: boolean;
  /**
   * The run this one continues (a killed run) read this row's record before its write could
   * leave: that write may have been carried out, its answer lost with the process.
   */
  readBefore?: (key: string) => boolean;
  /** Turns an API or network error into the row's error text. */
  describe: (err: unknown) => { error: string; field?: string };
  /**
   * Called right before a row's first write leaves (after any pacing wait): the run's record
   * takes the row's before-image then, so that a row never sent is not recorded as maybe written.
   */
  leaving: (key: string) => void;
}

/** Times a write is sent in all when each answer is lost and the window shows nothing. */
const MAX_ATTEMPTS = 3;

/** The function the workers call for each row. */
export function resourcePerformer(o: PerformerOptions): (item: ResourceItem) => Promise<Outcome | Parked> {
  // Only the id is needed back: an empty sparse fieldset keeps answers (and memory) small.
  const idOnly = `fields[${o.rt.type}]=`;
  const now = () => o.settle.now();
  const window = `${Math.round(o.settle.windowMs / 100) / 10} s`;
  const failed = (err: unknown, id: number | string | null = null): Outcome => {
    if (isFatal(err) || !(err instanceof ApiError || err instanceof NetworkError)) throw err;
    const d = o.describe(err);
    return { status: 'failed', id, error: d.error, ...(d.field ? { extra: { field: d.field } } : {}) };
  };
  const created = (id: number | string, extra?: Record<string, unknown>): Outcome => {
    o.claimed.add(id);
    return { status: 'created', id, ...(extra ? { extra } : {}) };
  };
  const unknown = (why: string): Outcome => ({
    status: 'unknown',
    id: null,
    error: `${why}; the record may exist: check before sending this row again`,
  });
  /** Runs a lookup; a failure that is not fatal becomes the row's outcome. */
  const guarded = async <T>(look: () => Promise<T>, onError: (text: string) => Outcome): Promise<T | { outcome: Outcome }> => {
    try {
      return await look();
    } catch (err) {
      if (isFatal(err) || !(err instanceof ApiError || err instanceof NetworkError)) throw err;
      return { outcome: onError(o.describe(err).error) };
    }
  };

  /** Sends a create; a lost answer parks the row. */
  const sendCreate = async (item: ResourceItem, attempt: number): Promise<Outcome | Parked> => {
    const w = item.write!;
    // Recorded, then journaled `pending`, as the request leaves: a run killed from then on looks it up first.
    const pending = () => {
      o.leaving(item.key);
      o.journal?.write({ key: item.key, row: item.row, status: 'pending' });
    };
    const sentAt = now();
    try {
      const res = await o.requester.send({ method: 'POST', path: w.path, query: idOnly, body: w.body }, 'create', { beforeSend: pending });
      const data = res.doc.data;
      const id = data && !Array.isArray(data) ? data.id : null;
      // An answer without the record (an empty 2xx, a redirect) confirms nothing: watch for it,
      // and never send it again (MAX_ATTEMPTS: the server did take the request).
      if (id === null || id === undefined || res.status >= 300) {
        return {
          parked: settleCreate(item, sentAt, now(), `the server answered ${res.status} without the created record`, MAX_ATTEMPTS, true),
        };
      }
      return created(id);
    } catch (err) {
      if (!(err instanceof AnswerLost)) return failed(err);
      return { parked: settleCreate(item, sentAt, now(), err.message, attempt) };
    }
  };

  /** Watches for a create over the window from `from`; sends it again when it never shows. */
  const settleCreate = async (
    item: ResourceItem,
    sentAt: number,
    from: number,
    why: string,
    attempt: number,
    answered = false,
  ): Promise<Outcome> => {
    const pairs = lookupQuery(o.rt, item.write!.data!, sentAt);
    if (!pairs) return unknown(`${why} and the row has no field to look the record up by`);
    const r = await guarded(
      () =>
        settle(o.settle, from, async () => {
          const r = await findCreated(o.requester, o.rt, pairs, o.claimed);
          return 'none' in r ? undefined : r;
        }),
      (e) => unknown(`${why} and the lookup failed (${e})`),
    );
    if (r && 'outcome' in r) return r.outcome;
    if (r && 'found' in r) return created(r.found, { recovered: true });
    if (r) return unknown(`${why} and several records match the row (${r.ambiguous.join(', ')})`);
    // The server said it took the create, yet it cannot be found: nobody can tell.
    if (answered) return unknown(`${why}, and no record matching the row was found`);
    // Not found yet is not "never": a backend may commit after the window. Sent again only on request.
    if (!o.resend)
      return {
        status: 'unknown',
        id: null,
        error: `${why}, and no record matching the row was found ${item.pending?.status === 'unknown' ? 'by a lookup now' : `in the ${window} settle window`}; not sent again, since the server may still create it: a rerun looks it up again, --resend-unconfirmed sends it if still missing`,
      };
    // Not there at the end of the window: the create did not happen, so sending it again is safe.
    if (attempt >= MAX_ATTEMPTS)
      return { status: 'failed', id: null, error: `${why} ${attempt} times (not created: looked up for ${window} each time)` };
    const next = await sendCreate(item, attempt + 1);
    return 'parked' in next ? next.parked : next;
  };

  const create = async (item: ResourceItem): Promise<Outcome | Parked> => {
    if (item.pending && item.landed !== undefined && !o.claimed.has(item.landed)) {
      // The run's own match found the record this create made (an upsert's): the lookup is done.
      return created(item.landed, { recovered: true });
    }
    if (item.pending) {
      // An earlier run sent this create and was stopped before it heard the answer, or could not
      // confirm it: looked up over what is left of its window, counted from the send (for one left
      // unknown, long past: the watch is one lookup, however late).
      const sentAt = sentAtOf(item.pending, now());
      const why =
        item.pending.status === 'unknown'
          ? 'an earlier run could not confirm this create'
          : 'an earlier run was stopped while creating this row';
      return { parked: settleCreate(item, sentAt, sentAt, why, 1) };
    }
    return sendCreate(item, 1);
  };

  /** Sends an update or delete; a lost answer parks the row. */
  const sendChange = async (item: ResourceItem, attempt: number): Promise<Outcome | Parked> => {
    const w = item.write!;
    const done: Outcome = { status: w.method === 'PATCH' ? 'updated' : 'deleted', id: w.id ?? null };
    try {
      await o.requester.send(
        { method: w.method, path: w.path, ...(w.method === 'PATCH' ? { query: idOnly } : {}), body: w.body },
        'idempotent',
        { beforeSend: () => o.leaving(item.key) },
      );
      return done;
    } catch (err) {
      // A DELETE sent again after a lost answer finds the record gone: the first attempt did it.
      // So does one a killed run may have sent (it read the record, so the record was there):
      // refusing it would leave the run unfinished, each rerun refused again.
      if (w.method === 'DELETE' && err instanceof ApiError && err.status === 404) {
        if (attempt > 1) return { ...done, extra: { note: 'the first attempt deleted it (answer lost)' } };
        if (o.readBefore?.(item.key))
          return { ...done, extra: { note: 'gone since the run this one continues read it (that run was stopped)' } };
      }
      if (!(err instanceof AnswerLost)) return failed(err, w.id ?? null);
      return { parked: settleChange(item, err.message, attempt) };
    }
  };

  /** Reads the record over the window: updated (or gone) means done; else sends it again. */
  const settleChange = async (item: ResourceItem, why: string, attempt: number): Promise<Outcome> => {
    const w = item.write!;
    const query = w.method === 'PATCH' ? readBackQuery(o.rt, w.data!) : idOnly;
    const seen = await guarded(
      () =>
        settle(o.settle, now(), async () => {
          try {
            const res = await o.requester.send({ method: 'GET', path: w.path, query }, 'read');
            const rec = res.doc.data;
            if (w.method === 'DELETE' || !rec || Array.isArray(rec)) return undefined;
            return updateApplied(o.rt, w.data!, rec) ? ('applied' as const) : undefined;
          } catch (err) {
            if (err instanceof ApiError && err.status === 404) return 'gone' as const;
            throw err;
          }
        }),
      // Not known to be done: failed, and a rerun sends it again (it is safe to repeat).
      (e): Outcome => ({ status: 'failed', id: w.id ?? null, error: `${why}, and reading the record back failed (${e})` }),
    );
    if (typeof seen === 'object') return seen.outcome;
    if (seen === 'applied') return { status: 'updated', id: w.id ?? null, extra: { recovered: true } };
    if (seen === 'gone' && w.method === 'DELETE') return { status: 'deleted', id: w.id ?? null, extra: { recovered: true } };
    if (seen === 'gone') return { status: 'failed', id: w.id ?? null, error: `${why}, and the record no longer exists (HTTP 404)` };
    if (attempt >= MAX_ATTEMPTS)
      return { status: 'failed', id: w.id ?? null, error: `${why} ${attempt} times (not done: read back for ${window} each time)` };
    const next = await sendChange(item, attempt + 1);
    return 'parked' in next ? next.parked : next;
  };

  // By the row's request, not the command: an upsert creates some rows and updates others.
  return (item) => (item.write!.method === 'POST' ? create(item) : sendChange(item, 1));
}
