/**
 * Doing one row of `svc <resource> create|update|delete --input`.
 *
 * Updates and deletes are idempotent and simply repeated after a network failure. A create is
 * journaled `pending` before it is sent; when its answer is lost (or a killed run left it
 * pending) the record is looked up before anything is sent again (lookup.ts), so that nothing
 * is created twice.
 */
import { ApiError, NetworkError } from '../errors.js';
import type { ResourceType } from '../registry/index.js';
import { isFatal, type Outcome } from './engine.js';
import type { JournalWriter } from './journal.js';
import { findCreated, lookupQuery, type IdSet, type LookupResult } from './lookup.js';
import { AnswerLost, type Requester } from './requester.js';
import type { ResourceItem } from './resource-plan.js';
import type { WriteOp } from './resource-rows.js';

/** Options of {@link resourcePerformer}. */
export interface PerformerOptions {
  rt: ResourceType;
  op: WriteOp;
  requester: Requester;
  journal: JournalWriter | undefined;
  /** Ids recorded for other rows (journal and this run). */
  claimed: IdSet;
  now: () => number;
  /** Turns an API or network error into the row's error text. */
  describe: (err: unknown) => { error: string; field?: string };
}

/** Times a create is sent again after lookups found nothing. */
const MAX_CREATE_ATTEMPTS = 3;

/** The function the workers call for each row. */
export function resourcePerformer(o: PerformerOptions): (item: ResourceItem) => Promise<Outcome> {
  // Only the id is needed back: an empty sparse fieldset keeps answers (and memory) small.
  const idOnly = `fields[${o.rt.type}]=`;
  const failed = (err: unknown): Outcome => {
    const d = o.describe(err);
    return { status: 'failed', id: null, error: d.error, ...(d.field ? { extra: { field: d.field } } : {}) };
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
  const lookup = async (item: ResourceItem, since: number): Promise<LookupResult | undefined> => {
    const pairs = lookupQuery(o.rt, item.write!.data!, since);
    return pairs ? findCreated(o.requester, o.rt, pairs, o.claimed) : undefined;
  };

  const create = async (item: ResourceItem): Promise<Outcome> => {
    const w = item.write!;
    if (item.pending) {
      // An earlier run sent this create and was stopped before it heard the answer.
      const r = await lookup(item, Date.parse(item.pending.at) || o.now());
      if (!r) return unknown('an earlier run was stopped while creating this row and the row has no field to look it up by');
      if ('found' in r) return created(r.found, { recovered: true });
      if ('ambiguous' in r) return unknown(`an earlier run was stopped while creating this row and several records match it (${r.ambiguous.join(', ')})`);
    }
    // Journaled `pending` as the request leaves: a run killed from then on looks it up first.
    const pending = () => o.journal?.write({ key: item.key, row: item.row, status: 'pending' });
    for (let attempt = 1; ; attempt++) {
      const sentAt = o.now();
      try {
        const res = await o.requester.send({ method: 'POST', path: w.path, query: idOnly, body: w.body }, 'create', { beforeSend: pending });
        const data = res.doc.data;
        const id = data && !Array.isArray(data) ? data.id : null;
        if (id === null || id === undefined || res.status >= 300) {
          // An answer without the record (an empty 2xx, a redirect) confirms nothing: look.
          const r = await lookup(item, sentAt);
          if (r && 'found' in r) return created(r.found, { recovered: true });
          return unknown(`the server answered ${res.status} without the created record`);
        }
        return created(id);
      } catch (err) {
        if (!(err instanceof AnswerLost)) {
          if (!isFatal(err) && (err instanceof ApiError || err instanceof NetworkError)) return failed(err);
          throw err;
        }
        const r = await lookup(item, sentAt);
        if (!r) return unknown(`${err.message} and the row has no field to look the record up by`);
        if ('found' in r) return created(r.found, { recovered: true });
        if ('ambiguous' in r) return unknown(`${err.message} and several records match the row (${r.ambiguous.join(', ')})`);
        // The lookup just found nothing, so the row is known not to be done: failed, safe to rerun.
        if (attempt >= MAX_CREATE_ATTEMPTS) return { status: 'failed', id: null, error: `${err.message} ${attempt} times` };
        // The lookup found nothing: the create did not happen, so sending it again is safe.
      }
    }
  };

  const change = async (item: ResourceItem): Promise<Outcome> => {
    const w = item.write!;
    const track = { sent: 0 };
    try {
      await o.requester.send({ method: w.method, path: w.path, ...(w.method === 'PATCH' ? { query: idOnly } : {}), body: w.body }, 'idempotent', { track });
      return { status: o.op === 'update' ? 'updated' : 'deleted', id: w.id ?? null };
    } catch (err) {
      // A DELETE repeated after a lost answer finds the record gone: the first attempt did it.
      if (o.op === 'delete' && err instanceof ApiError && err.status === 404 && track.sent > 1) {
        return { status: 'deleted', id: w.id ?? null, extra: { note: 'the first attempt deleted it (answer lost)' } };
      }
      if (!isFatal(err) && (err instanceof ApiError || err instanceof NetworkError)) return { ...failed(err), id: w.id ?? null };
      throw err;
    }
  };

  return (item) => (o.op === 'create' ? create(item) : change(item));
}
