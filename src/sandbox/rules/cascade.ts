/**
 * Deleting a record deletes the records that cannot outlive it, as the API does: a prospect's
 * mailings and enrolments (sequence states) go with it. Each is destroyed as by its own delete
 * (a `destroyed` change, so an event `<type>_destroyed` naming its id), and every other record
 * that pointed at any of them is unlinked and touched once by the store (see `Store.remove`).
 * With the `silentCascade` quirk the dependents vanish without a change, as a server that
 * cascades silently would do.
 */
import type { Ref, Store } from '../data/store.js';

/** Dependents deleted with their owner: `[type, relationship to the owner]`. */
const DEPENDENTS: Record<string, readonly (readonly [string, string])[]> = {
  prospect: [
    ['mailing', 'prospect'],
    ['sequenceState', 'prospect'],
  ],
};

/** The records deleted with `ref`, dependents of dependents included. */
function dependentsOf(store: Store, ref: Ref, out: Ref[] = []): Ref[] {
  for (const [type, rel] of DEPENDENTS[ref.type] ?? [])
    for (const id of [...(store.referrers(type, rel, ref) ?? [])].sort((a, b) => a - b)) {
      const dep = { type, id };
      out.push(dep);
      dependentsOf(store, dep, out);
    }
  return out;
}

/** Deletes a record and its dependents in one cascade; false when it did not exist. */
export function destroyRecord(store: Store, type: string, id: number): boolean {
  if (!store.get(type, id)) return false;
  store.remove(type, id, { dependents: dependentsOf(store, { type, id }) });
  return true;
}
