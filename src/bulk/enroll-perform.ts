/**
 * Enrolling one prospect: `POST /sequenceStates` with relationships prospect, sequence and
 * mailbox — unless the prospect is already in the sequence (the states fetched at the start,
 * plus those this run made), or another row of the run has the same prospect.
 *
 * The enrolment is journaled `pending` before it is sent. When its answer is lost, the state is
 * looked up (`filter[prospect][id]` and `filter[sequence][id]`) before it is sent again; a run
 * killed after sending is covered by the states fetched at the start of the next run.
 */
import { encodeQuery } from '../api/query.js';
import { ApiError, NetworkError } from '../errors.js';
import { isFatal, type Outcome } from './engine.js';
import type { EnrollItem } from './enroll-rows.js';
import type { JournalWriter } from './journal.js';
import { AnswerLost, type Requester } from './requester.js';

/** Options of {@link enrollPerformer}. */
export interface EnrollOptions {
  sequenceId: number | string;
  mailboxId: number | string;
  requester: Requester;
  journal: JournalWriter | undefined;
  /** Prospect id → id of its sequence state in the sequence (fetched, then kept up to date). */
  enrolled: Map<number | string, number | string>;
  describe: (err: unknown) => { error: string; field?: string };
}

const MAX_ATTEMPTS = 3;
/** Only the id is needed back: an empty sparse fieldset keeps answers (and memory) small. */
const ID_ONLY = 'fields[sequenceState]=';

/** The request body of one enrolment. */
export function enrolmentBody(prospectId: number | string, sequenceId: number | string, mailboxId: number | string) {
  return {
    data: {
      type: 'sequenceState',
      relationships: {
        prospect: { data: { type: 'prospect', id: prospectId } },
        sequence: { data: { type: 'sequence', id: sequenceId } },
        mailbox: { data: { type: 'mailbox', id: mailboxId } },
      },
    },
  };
}

/** The function the workers call for each enrolment row. */
export function enrollPerformer(o: EnrollOptions): (item: EnrollItem) => Promise<Outcome> {
  /** Prospect → the row of this run that took it (duplicates in the input). */
  const taken = new Map<number | string, number>();

  const lookup = async (prospectId: number | string): Promise<number | string | undefined> => {
    const query = encodeQuery([
      ['filter[prospect][id]', String(prospectId)],
      ['filter[sequence][id]', String(o.sequenceId)],
      ['page[limit]', '1'],
      ['fields[sequenceState]', ''],
    ]);
    const res = await o.requester.send({ method: 'GET', path: 'sequenceStates', query }, 'read');
    const data = Array.isArray(res.doc.data) ? res.doc.data : [];
    return data[0]?.id;
  };

  return async (item) => {
    const pid = item.prospectId!;
    const extra = { prospect: pid, ...(item.email ? { email: item.email } : {}) };
    const existing = o.enrolled.get(pid);
    const first = taken.get(pid);
    if (existing !== undefined) {
      // Sent by a run that was stopped before it could journal the answer: it did create it.
      if (item.pending && first === undefined) return { status: 'created', id: existing, extra: { ...extra, recovered: true } };
      const reason = first !== undefined ? `duplicate of row ${first}` : 'already in the sequence';
      return { status: 'skipped', id: existing, extra: { ...extra, reason } };
    }
    if (first !== undefined) return { status: 'skipped', id: null, extra: { ...extra, reason: `duplicate of row ${first}` } };
    taken.set(pid, item.row);
    // Journaled `pending` as the request leaves (not while it waits for the rate limit).
    const pending = () => o.journal?.write({ key: item.key, row: item.row, status: 'pending' });
    const body = enrolmentBody(pid, o.sequenceId, o.mailboxId);
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await o.requester.send({ method: 'POST', path: 'sequenceStates', query: ID_ONLY, body }, 'create', { beforeSend: pending });
        const data = res.doc.data;
        const id = data && !Array.isArray(data) ? data.id : undefined;
        if (id === null || id === undefined || res.status >= 300) {
          // An answer without the state (an empty 2xx, a redirect) confirms nothing: look.
          const found = await lookup(pid);
          if (found !== undefined) {
            o.enrolled.set(pid, found);
            return { status: 'created', id: found, extra: { ...extra, recovered: true } };
          }
          const error = `the server answered ${res.status} without the created sequence state and none was found; check before sending this row again`;
          return { status: 'unknown', id: null, error, extra };
        }
        o.enrolled.set(pid, id);
        return { status: 'created', id, extra };
      } catch (err) {
        if (!(err instanceof AnswerLost)) {
          if (!isFatal(err) && (err instanceof ApiError || err instanceof NetworkError)) {
            const d = o.describe(err);
            return { status: 'failed', id: null, error: d.error, extra };
          }
          throw err;
        }
        const found = await lookup(pid);
        if (found !== undefined) {
          o.enrolled.set(pid, found);
          return { status: 'created', id: found, extra: { ...extra, recovered: true } };
        }
        if (attempt >= MAX_ATTEMPTS) {
          // The lookup just said the state does not exist: the row is not done, safe to rerun.
          return { status: 'failed', id: null, error: `${err.message} ${attempt} times`, extra };
        }
        // No state for this prospect: the lost request did not enrol it, so sending again is safe.
      }
    }
  };
}
