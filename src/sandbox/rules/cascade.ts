/**
 * Deleting a record deletes the records that cannot outlive it, as the API does: a prospect's
 * mailings and enrolments (sequence states) go with it. Each is destroyed as by its own delete
 * (a `destroyed` change, so an event `<type>_destroyed` naming its id), and every other record
 * that pointed at one of them is unlinked and touched by the store (see `Store.remove`). With the
 * `silentCascade` quirk the dependents vanish without a change, as a server that cascades
 * silently would do.
 */
import type { Store } from '../data/store.js';

/** Dependents deleted with their owner, in this order: `[type, relationship to the owner]`. */
const DEPENDENTS: Record<string, readonly (readonly [string, string])[]> = {
  // Mailings before enrolments: a mailing points at its enrolment, and deleting the enrolment
  // first would touch each mailing (an `updated` change) just before deleting it.
  prospect: [
    ['mailing', 'prospect'],
    ['sequenceState', 'prospect'],
  ],
};

/** Deletes a record and its dependents; false when it did not exist. */
export function destroyRecord(store: Store, type: string, id: number): boolean {
  if (!store.get(type, id)) return false;
  for (const [depType, rel] of DEPENDENTS[type] ?? [])
    for (const depId of [...(store.referrers(depType, rel, { type, id }) ?? [])]) {
      if (store.quirks.silentCascade) store.remove(depType, depId, { silent: true });
      else destroyRecord(store, depType, depId);
    }
  store.remove(type, id);
  return true;
}
