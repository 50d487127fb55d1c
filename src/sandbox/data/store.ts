/**
 * The in-memory store: one Map per type keyed by integer id (insertion order = id order, which
 * is the default sort), plus reverse indexes of stored relationships so that relationship
 * filters, derived to-many relationships and includes are lookups instead of scans.
 */
import { resourceByType, type ResourceType } from '../../registry/index.js';
import { hasAttribute, relModels } from './model.js';
import { isoSeconds } from './time.js';

/** A resource identifier. */
export interface Ref {
  type: string;
  id: number;
}

/** Value of a stored relationship. */
export type RelValue = Ref | null | Ref[];

/** One stored record. Attributes hold only non-null values; absent means null. */
export interface Rec {
  id: number;
  attributes: Record<string, unknown>;
  rels: Record<string, RelValue>;
}

/** A change seen by webhooks and the event recorder. */
export interface Change {
  type: string;
  id: number;
  /** `created`, `updated`, `destroyed`, or a type-specific action (`finished`, `opened`, ...). */
  action: string;
  /** Names of the attributes that were set (created) or changed (updated). */
  changed: string[];
  /** Values of the changed attributes before the change. */
  before: Record<string, unknown>;
  /** The record after the change (before deletion for `destroyed`). */
  record: Rec;
}

type Listener = (c: Change) => void;

/** See `SandboxOptions.quirks`; the control endpoint `/_sandbox/quirks` changes them while running. */
interface StoreQuirks {
  /** A delete unlinks its referrers without moving their `updatedAt` or announcing a change. */
  silentCascade: boolean;
  /** An update stamps `updatedAt` this far ahead of the clock (a server whose clock runs fast). */
  futureUpdatedAtMs: number;
}

/** Minutes ahead of the clock of `futureUpdatedAt: true`. */
const FUTURE_UPDATED_AT_MINUTES = 5;

/**
 * Sets quirks from their option form (`futureUpdatedAt`: true for {@link FUTURE_UPDATED_AT_MINUTES}
 * minutes, or a number of minutes; false or 0 for none). Returns the error text of a bad value.
 */
export function applyQuirks(q: StoreQuirks, opts: { silentCascade?: unknown; futureUpdatedAt?: unknown }): string | undefined {
  const { silentCascade, futureUpdatedAt } = opts;
  if (silentCascade !== undefined && typeof silentCascade !== 'boolean') return 'silentCascade must be true or false.';
  const minutes = futureUpdatedAt === true ? FUTURE_UPDATED_AT_MINUTES : futureUpdatedAt === false ? 0 : futureUpdatedAt;
  if (minutes !== undefined && !(typeof minutes === 'number' && Number.isInteger(minutes) && minutes >= 0 && minutes <= 10_080))
    return 'futureUpdatedAt must be true, false or a whole number of minutes (0 to 10080).';
  if (typeof silentCascade === 'boolean') q.silentCascade = silentCascade;
  if (typeof minutes === 'number') q.futureUpdatedAtMs = minutes * 60_000;
  return undefined;
}

/** Serializable image of the store, written to the data file. */
export interface StoreSnapshot {
  meta?: Record<string, unknown>;
  nextIds: Record<string, number>;
  tables: Record<string, Rec[]>;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a == null || b == null) return a == null && b == null;
  return typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b);
}

/** The sandbox's records and indexes. */
export class Store {
  private tables = new Map<string, Map<number, Rec>>();
  private nextIds = new Map<string, number>();
  /** `type\0rel\0targetType` → target id → ids of records pointing at it. */
  private index = new Map<string, Map<number, Set<number>>>();
  /** The maps of {@link index} by type, relationship and target type (see indexOf). */
  private indexMaps = new Map<string, Map<string, Map<string, Map<number, Set<number>>>>>();
  private listeners: Listener[] = [];
  /** Small persisted facts that are not records (retired webhook cleanup tokens). */
  meta: Record<string, unknown> = {};
  /** Bumped on every mutation; persistence uses it to know when to write. */
  version = 0;
  private typeVersions = new Map<string, number>();
  private caches = new Map<string, { version: number; value: unknown }>();
  /** Clock, replaceable in tests. */
  now: () => number = Date.now;
  /** Departures from the API that tests of a mirror switch on (`SandboxOptions.quirks`); none by default. */
  quirks: StoreQuirks = { silentCascade: false, futureUpdatedAtMs: 0 };
  /**
   * Told each id a new record takes, before the record exists: persistence reserves ids
   * durably ahead of use, so that an id handed out is never handed out again after a crash.
   */
  onNewId: ((type: string, id: number) => void) | undefined;

  /**
   * What changed since {@link takeChanges} (records by type and id, types whose next id moved,
   * meta keys); tracked once {@link trackChanges} is called, for the change log.
   */
  private changes: { recs: Map<string, Set<number>>; next: Set<string>; meta: Set<string> } | undefined;

  private touch(type: string, id?: number): void {
    this.version++;
    this.typeVersions.set(type, (this.typeVersions.get(type) ?? 0) + 1);
    if (this.changes && id !== undefined) {
      let ids = this.changes.recs.get(type);
      if (!ids) this.changes.recs.set(type, (ids = new Set()));
      ids.add(id);
    }
  }

  /** Starts tracking changes for {@link takeChanges} (after the org is seeded or loaded). */
  trackChanges(): void {
    this.changes = { recs: new Map(), next: new Set(), meta: new Set() };
  }

  /**
   * The changes since the last call, as whole values (records as they now are, ids of removed
   * ones, next ids, meta keys); undefined when nothing changed. They stay tracked until
   * {@link clearChanges} (a caller that could not record them is offered them again).
   */
  takeChanges():
    | { put: [string, Rec][]; del: [string, number][]; next: Record<string, number>; meta: Record<string, unknown> }
    | undefined {
    const c = this.changes;
    if (!c || (!c.recs.size && !c.meta.size)) return undefined;
    const put: [string, Rec][] = [];
    const del: [string, number][] = [];
    for (const [type, ids] of c.recs)
      for (const id of ids) {
        const rec = this.get(type, id);
        if (rec) put.push([type, rec]);
        else del.push([type, id]);
      }
    const next: Record<string, number> = {};
    for (const type of c.next) next[type] = this.nextIds.get(type)!;
    const meta: Record<string, unknown> = {};
    for (const k of c.meta) meta[k] = this.meta[k];
    return { put, del, next, meta };
  }

  /** The changes taken last are recorded: tracking starts afresh. */
  clearChanges(): void {
    if (this.changes) this.changes = { recs: new Map(), next: new Set(), meta: new Set() };
  }

  /** Sets a {@link meta} value (a change like a record's). */
  setMeta(key: string, value: unknown): void {
    this.meta[key] = value;
    this.version++;
    this.changes?.meta.add(key);
  }

  /**
   * A value derived from one type's records (an attribute index), rebuilt only after that
   * type changed.
   */
  cached<T>(key: string, type: string, build: () => T): T {
    const v = this.typeVersions.get(type) ?? 0;
    const hit = this.caches.get(key);
    if (hit && hit.version === v) return hit.value as T;
    const value = build();
    this.caches.set(key, { version: v, value });
    return value;
  }

  /** Records of a type (empty map for a type with none). */
  table(type: string): Map<number, Rec> {
    let t = this.tables.get(type);
    if (!t) this.tables.set(type, (t = new Map()));
    return t;
  }

  get(type: string, id: number): Rec | undefined {
    return this.tables.get(type)?.get(id);
  }

  /** Subscribes to changes; returns an unsubscribe function. */
  onChange(fn: Listener): () => void {
    this.listeners.push(fn);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== fn);
    };
  }

  /** Announces a change (also used by rules for actions such as `finished`). */
  emit(c: Change): void {
    for (const l of this.listeners) l(c);
  }

  /** Ids of `type` records whose relationship `rel` points at `target`. */
  referrers(type: string, rel: string, target: Ref): Set<number> | undefined {
    return this.index.get(Store.indexKey(type, rel, target.type))?.get(target.id);
  }

  /** Key of a reverse index, for {@link referrersByKey} (renderers compute it once). */
  static indexKey(type: string, rel: string, targetType: string): string {
    return `${type}\0${rel}\0${targetType}`;
  }

  /** {@link referrers} with a precomputed {@link Store.indexKey}. */
  referrersByKey(key: string, targetId: number): Set<number> | undefined {
    return this.index.get(key)?.get(targetId);
  }

  /**
   * The reverse index of one type, relationship and target type, created on first use. Found
   * through {@link indexMaps} by the three names rather than by their joined key: a seed indexes
   * some 100,000 references, and joining and hashing a new key string each time cost more than
   * three lookups of names whose hashes V8 keeps.
   */
  private indexOf(type: string, rel: string, targetType: string): Map<number, Set<number>> {
    let byRel = this.indexMaps.get(type);
    if (!byRel) this.indexMaps.set(type, (byRel = new Map()));
    let byTarget = byRel.get(rel);
    if (!byTarget) byRel.set(rel, (byTarget = new Map()));
    let m = byTarget.get(targetType);
    if (!m) {
      const key = Store.indexKey(type, rel, targetType);
      m = this.index.get(key);
      if (!m) this.index.set(key, (m = new Map()));
      byTarget.set(targetType, m);
    }
    return m;
  }

  private indexRef(type: string, rel: string, ref: Ref, id: number, add: boolean): void {
    const m = this.indexOf(type, rel, ref.type);
    let s = m.get(ref.id);
    if (add) {
      if (!s) m.set(ref.id, (s = new Set()));
      s.add(id);
    } else if (s) {
      s.delete(id);
      if (s.size === 0) m.delete(ref.id);
    }
  }

  private indexRel(type: string, rel: string, v: RelValue | undefined, id: number, add: boolean): void {
    if (!v) return;
    if (Array.isArray(v)) for (const r of v) this.indexRef(type, rel, r, id, add);
    else this.indexRef(type, rel, v, id, add);
  }

  private stamp(rt: ResourceType | undefined, attrs: Record<string, unknown>, created: boolean): void {
    if (!rt) return;
    const setCreated = created && attrs['createdAt'] == null && hasAttribute(rt, 'createdAt');
    const setUpdated = !(created && attrs['updatedAt'] != null) && hasAttribute(rt, 'updatedAt');
    // The clock is read and written out only for a date to stamp: the seed dates every record
    // itself, and formatting an unused date per insert was a tenth of seeding.
    if (!setCreated && !setUpdated) return;
    const now = this.now() + (created ? 0 : this.quirks.futureUpdatedAtMs);
    // The webhook record uses fractional seconds and `Z` (spec, Conventions).
    const v = rt.type === 'webhook' ? new Date(now).toISOString() : isoSeconds(now);
    if (setCreated) attrs['createdAt'] = v;
    if (setUpdated) attrs['updatedAt'] = v;
  }

  /** Adds a record with the next id (or `id` when restoring); emits `created` unless `silent`. */
  insert(
    type: string,
    attributes: Record<string, unknown>,
    rels: Record<string, RelValue> = {},
    opts: { silent?: boolean; id?: number } = {},
  ): Rec {
    const rt = resourceByType(type);
    const id = opts.id ?? this.nextIds.get(type) ?? 1;
    this.onNewId?.(type, id);
    this.nextIds.set(type, Math.max(id + 1, this.nextIds.get(type) ?? 1));
    this.changes?.next.add(type);
    const attrs: Record<string, unknown> = {};
    for (const k in attributes) {
      const v = attributes[k];
      if (v != null) attrs[k] = v;
    }
    this.stamp(rt, attrs, true);
    // A copy by spread is a fast-properties object sharing its hidden class with the records
    // of the same shape; `attrs`, filled by keyed stores, turns into a hash table past 16
    // properties (a prospect's would cost about 1 KB more, and slower reads).
    const rec: Rec = { id, attributes: { ...attrs }, rels: {} };
    for (const k in rels) {
      const v = rels[k]!;
      rec.rels[k] = v;
      this.indexRel(type, k, v, id, true);
    }
    this.table(type).set(id, rec);
    this.touch(type, id);
    if (!opts.silent) this.emit({ type, id, action: 'created', changed: Object.keys(attrs), before: {}, record: rec });
    return rec;
  }

  /**
   * Applies changed attributes (null clears) and relationships; stamps `updatedAt` when anything
   * changed and emits `updated` with the changed names and their previous values.
   */
  update(
    type: string,
    id: number,
    attributes: Record<string, unknown>,
    rels: Record<string, RelValue> = {},
    opts: { silent?: boolean } = {},
  ): Change | undefined {
    const rec = this.get(type, id);
    if (!rec) return undefined;
    const changed: string[] = [];
    const before: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(attributes)) {
      const old = rec.attributes[k] ?? null;
      if (sameValue(old, v ?? null)) continue;
      changed.push(k);
      before[k] = old;
      if (v == null) delete rec.attributes[k];
      else rec.attributes[k] = v;
    }
    let relChanged = false;
    for (const [k, v] of Object.entries(rels)) {
      if (sameValue(rec.rels[k] ?? null, v ?? null)) continue;
      relChanged = true;
      this.indexRel(type, k, rec.rels[k], id, false);
      rec.rels[k] = v;
      this.indexRel(type, k, v, id, true);
    }
    if (!changed.length && !relChanged) return undefined;
    this.touch(type, id);
    const rt = resourceByType(type);
    if (rt && hasAttribute(rt, 'updatedAt') && !changed.includes('updatedAt')) {
      before['updatedAt'] = rec.attributes['updatedAt'] ?? null;
      this.stamp(rt, rec.attributes, false);
      changed.push('updatedAt');
    }
    const c: Change = { type, id, action: 'updated', changed, before, record: rec };
    if (!opts.silent) this.emit(c);
    return c;
  }

  /**
   * Deletes a record, with `dependents` that go with it (see `rules/cascade.ts`), and unlinks
   * every stored relationship that pointed at any of them. Each referrer so changed is updated
   * once, as by a write: its `updatedAt` moves and an `updated` change follows the `destroyed`
   * ones, so that events, webhooks and an incremental reader by `updatedAt` see it. `silent`
   * announces nothing; the `silentCascade` quirk announces only the record's own `destroyed`
   * (dependents vanish, referrers are unlinked without a change).
   */
  remove(type: string, id: number, opts: { silent?: boolean; dependents?: Ref[] } = {}): Rec | undefined {
    const rec = this.get(type, id);
    if (!rec) return undefined;
    const gone: { type: string; rec: Rec }[] = [];
    for (const r of [{ type, id }, ...(opts.dependents ?? [])]) {
      const d = this.get(r.type, r.id);
      if (!d || gone.some((g) => g.rec === d)) continue;
      for (const [k, v] of Object.entries(d.rels)) this.indexRel(r.type, k, v, r.id, false);
      this.table(r.type).delete(r.id);
      this.touch(r.type, r.id);
      gone.push({ type: r.type, rec: d });
    }
    // Dangling references would make includes and derived lists lie: unlink them, one update per
    // referrer whatever the number of its relationships that pointed at deleted records
    // (collected first: the updates change the indexes being read).
    const patches = new Map<string, { type: string; id: number; rels: Record<string, RelValue> }>();
    for (const g of gone)
      for (const [key, m] of this.index) {
        const [srcType, rel, tgtType] = key.split('\0') as [string, string, string];
        if (tgtType !== g.type) continue;
        const ids = m.get(g.rec.id);
        if (!ids) continue;
        for (const srcId of ids) {
          const src = this.get(srcType, srcId);
          if (!src) continue;
          const k = `${srcType}\0${srcId}`;
          let patch = patches.get(k);
          if (!patch) patches.set(k, (patch = { type: srcType, id: srcId, rels: {} }));
          const v = rel in patch.rels ? patch.rels[rel] : src.rels[rel];
          patch.rels[rel] = Array.isArray(v) ? v.filter((r) => !(r.type === g.type && r.id === g.rec.id)) : null;
        }
      }
    const silentCascade = opts.silent || this.quirks.silentCascade;
    const cascaded: Change[] = [];
    for (const patch of patches.values()) {
      if (silentCascade) {
        const src = this.get(patch.type, patch.id)!;
        for (const [rel, next] of Object.entries(patch.rels)) {
          this.indexRel(patch.type, rel, src.rels[rel], patch.id, false);
          src.rels[rel] = next;
          this.indexRel(patch.type, rel, next, patch.id, true);
        }
        this.touch(patch.type, patch.id);
      } else {
        const c = this.update(patch.type, patch.id, {}, patch.rels, { silent: true });
        if (c) cascaded.push(c);
      }
    }
    if (!opts.silent) {
      for (const g of silentCascade ? gone.slice(0, 1) : gone)
        this.emit({ type: g.type, id: g.rec.id, action: 'destroyed', changed: [], before: {}, record: g.rec });
      for (const c of cascaded) this.emit(c);
    }
    return rec;
  }

  /** Members of a relationship, stored or derived, as identifiers. */
  related(rt: ResourceType, rec: Rec, name: string): RelValue {
    const model = relModels(rt).get(name);
    if (!model) return null;
    if (model.source.kind !== 'many-derived') return rec.rels[name] ?? (model.spec.kind === 'one' ? null : []);
    const ids = this.referrers(model.source.type, model.source.via, { type: rt.type, id: rec.id });
    const type = model.source.type;
    return ids ? [...ids].sort((a, b) => a - b).map((id) => ({ type, id })) : [];
  }

  /** Count of records per type. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [t, m] of this.tables) out[t] = m.size;
    return out;
  }

  snapshot(): StoreSnapshot {
    const tables: Record<string, Rec[]> = {};
    for (const [t, m] of this.tables) tables[t] = [...m.values()];
    return { meta: this.meta, nextIds: Object.fromEntries(this.nextIds), tables };
  }

  /** Raises the next id of each type to at least `floor`'s (ids reserved by an earlier run). */
  raiseNextIds(floor: Record<string, number>): void {
    for (const [type, n] of Object.entries(floor))
      if (Number.isSafeInteger(n) && n > (this.nextIds.get(type) ?? 1)) this.nextIds.set(type, n);
  }

  /** Replaces the content with a snapshot (rebuilding indexes). */
  restore(s: StoreSnapshot): void {
    this.tables.clear();
    this.index.clear();
    this.indexMaps.clear();
    this.nextIds = new Map(Object.entries(s.nextIds));
    this.meta = s.meta ?? {};
    for (const [type, recs] of Object.entries(s.tables)) {
      const t = this.table(type);
      for (const rec of recs) {
        t.set(rec.id, rec);
        for (const [k, v] of Object.entries(rec.rels)) this.indexRel(type, k, v, rec.id, true);
      }
      this.touch(type);
    }
  }
}
