/**
 * Enrolling one prospect: `POST /sequenceStates` with relationships prospect, sequence and
 * mailbox — unless the prospect is already in the sequence (the states fetched at the start,
 * plus those this run made), or another row of the run has the same prospect.
 *
 * The enrolment is journaled `pending` before it is sent. When its answer is lost it may still
 * be carried out seconds later, so the row is parked (settle.ts): the state is looked up
 * (`filter[prospect][id]` and `filter[sequence][id]`) over the settle window, and the enrolment
 * is reported `unknown` when it never shows (a backend may commit after any window), or sent
 * again with `resend` (`--resend-unconfirmed`). A run killed after sending is covered by the
 * states fetched at the start of the next run, the rest of the window of its `pending` entry, and
 * one more lookup right before the enrolment would be sent again, however late.
 */
import { encodeQuery } from '../../api/query.js';
import { ApiError, NetworkError } from '../../errors.js';
import { isFatal, type Outcome, type Parked } from '../run/engine.js';
import type { EnrollItem } from './enroll-rows.js';
import type { JournalWriter } from '../run/journal.js';
import { AnswerLost, type Requester } from '../run/requester.js';
import { settle, type SettleClock } from '../run/settle.js';

/** Options of {@link enrollPerformer}. */
interface EnrollOptions {
  sequenceId: number | string;
  mailboxId: number | string;
  requester: Requester;
  journal: JournalWriter | undefined;
  /** Prospect id → id of its sequence state in the sequence (fetched, then kept up to date). */
  enrolled: Map<number | string, number | string>;
  /** The settle window of enrolments without a definite answer. */
  settle: SettleClock;
  /** An enrolment still not found at the end of its window is sent again (`--resend-unconfirmed`), not reported unknown. */
  resend?: boolean;
  describe: (err: unknown) => { error: string; field?: string };
  /** Called right before a row's enrolment leaves: the run's record takes the row then (run-recorder.ts). */
  leaving: (key: string) => void;
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
export function enrollPerformer(o: EnrollOptions): (item: EnrollItem) => Promise<Outcome | Parked> {
  /** Prospect → the row of this run that took it (duplicates in the input). */
  const taken = new Map<number | string, number>();
  const window = `${Math.round(o.settle.windowMs / 100) / 10} s`;

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

  const failed = (err: unknown, extra: Record<string, unknown>, prefix = ''): Outcome => {
    if (isFatal(err) || !(err instanceof ApiError || err instanceof NetworkError)) throw err;
    return { status: 'failed', id: null, error: prefix + o.describe(err).error, extra };
  };

  /** Sends the enrolment; a lost answer parks the row. */
  const send = async (item: EnrollItem, attempt: number, extra: Record<string, unknown>): Promise<Outcome | Parked> => {
    const pid = item.prospectId!;
    // Recorded, then journaled `pending`, as the request leaves (not while it waits for the rate limit).
    const pending = () => {
      o.leaving(item.key);
      o.journal?.write({ key: item.key, row: item.row, status: 'pending' });
    };
    try {
      const body = enrolmentBody(pid, o.sequenceId, o.mailboxId);
      const res = await o.requester.send({ method: 'POST', path: 'sequenceStates', query: ID_ONLY, body }, 'create', {
        beforeSend: pending,
      });
      const data = res.doc.data;
      const id = data && !Array.isArray(data) ? data.id : null;
      if (id === null || id === undefined || res.status >= 300) {
        // An answer without the state (an empty 2xx, a redirect) confirms nothing: watch for it.
        return {
          parked: watch(
            item,
            o.settle.now(),
            `the server answered ${res.status} without the created sequence state`,
            MAX_ATTEMPTS,
            extra,
            true,
          ),
        };
      }
      o.enrolled.set(pid, id);
      return { status: 'created', id, extra };
    } catch (err) {
      if (!(err instanceof AnswerLost)) return failed(err, extra);
      return { parked: watch(item, o.settle.now(), err.message, attempt, extra) };
    }
  };

  /** Looks for the state over the window from `from`; sends the enrolment again when it never shows. */
  const watch = async (
    item: EnrollItem,
    from: number,
    why: string,
    attempt: number,
    extra: Record<string, unknown>,
    answered = false,
  ): Promise<Outcome> => {
    const pid = item.prospectId!;
    const known = await lookedUp(pid, why, extra, () => settle(o.settle, from, () => lookup(pid)));
    if (known) return known;
    // The server said it took the enrolment, yet the state cannot be found: nobody can tell.
    if (answered)
      return { status: 'unknown', id: null, error: `${why}, and no such state was found; check before sending this row again`, extra };
    // Not in the sequence at the end of the window: not proof that it never will be.
    if (!o.resend) return notFound(why, extra, `in the ${window} settle window`);
    if (attempt >= MAX_ATTEMPTS)
      return { status: 'failed', id: null, error: `${why} ${attempt} times (not enrolled: looked up for ${window} each time)`, extra };
    const next = await send(item, attempt + 1, extra);
    return 'parked' in next ? next.parked : next;
  };

  /** The row's outcome when `look` finds the prospect's state or fails; undefined when it is not there. */
  const lookedUp = async (
    pid: number | string,
    why: string,
    extra: Record<string, unknown>,
    look: () => Promise<number | string | undefined>,
  ): Promise<Outcome | undefined> => {
    let found: number | string | undefined;
    try {
      found = await look();
    } catch (err) {
      // The lookup is the only thing that can tell: without it the enrolment may exist.
      const out = failed(err, extra, `${why} and the lookup failed: `);
      return { ...out, status: 'unknown', error: `${out.error}; the prospect may be enrolled: check before sending this row again` };
    }
    if (found === undefined) return undefined;
    o.enrolled.set(pid, found);
    return { status: 'created', id: found, extra: { ...extra, recovered: true } };
  };

  const notFound = (why: string, extra: Record<string, unknown>, when: string): Outcome => ({
    status: 'unknown',
    id: null,
    error: `${why}, and the prospect was not found in the sequence ${when}; not sent again, since the server may still enrol it: a rerun looks it up again, --resend-unconfirmed sends it if still missing`,
    extra,
  });

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
    if (item.pending) {
      // An earlier run sent it and was stopped: not among the states yet, but it may still land.
      const at = Date.parse(item.pending.at) || o.settle.now();
      const why =
        item.pending.status === 'unknown'
          ? 'an earlier run could not confirm this enrolment'
          : 'an earlier run was stopped while enrolling this prospect';
      if (item.pending.status !== 'unknown' && at + o.settle.windowMs > o.settle.now()) return { parked: watch(item, at, why, 1, extra) };
      // However late: one more lookup right before anything is sent again.
      const known = await lookedUp(pid, why, extra, () => lookup(pid));
      if (known) return known;
      if (!o.resend) return notFound(why, extra, 'by a lookup now');
    }
    return send(item, 1, extra);
  };
}
