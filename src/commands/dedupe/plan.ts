/**
 * The merge plan `svc dedupe … --plan FILE` writes and `svc dedupe apply FILE` carries out: one
 * JSON document a person can read and edit (leave a cluster out, pick another survivor, drop a
 * field from `fill`). Each cluster says why its records match, which survives and why, the
 * fields the survivor takes from the others where its own are empty, and what happens to each
 * duplicate: the records that move to the survivor, the enrolments finished, then deleted.
 */
import { apiTime } from '../../api-time.js';
import type { Cluster } from '../../dedupe/cluster.js';
import { normalisePhone, phoneKey } from '../../dedupe/phone.js';
import type { AttributeSpec } from '../../registry/index.js';
import {
  accountProspects,
  activeStates,
  apiValue,
  columnOf,
  fillableAttributes,
  prospectLinks,
  type MirrorCatalog,
  type MirrorRecord,
} from './mirror-records.js';

/** `--keep`: which record of a cluster survives. */
export type KeepRule = 'most-activity' | 'oldest' | 'newest' | 'most-complete';
export const KEEP_RULES: readonly KeepRule[] = ['most-activity', 'oldest', 'newest', 'most-complete'];

/** A record of a cluster as the plan names it. */
interface PlanMember {
  id: number;
  label: string;
  /** As the mirror read it: apply leaves the cluster out when the record has changed since. */
  updatedAt: string | null;
  createdAt: string | null;
  ownerId: number | null;
  activity: number;
}

/** A duplicate and what happens to it. */
interface PlanDuplicate extends PlanMember {
  /** Linked records moved to the survivor, by type (`emailAddress`, `phoneNumber`, `task`, `opportunityProspectRole`; `prospect` for accounts). */
  move: Record<string, number[]>;
  /** Active sequence states finished (as the mirror saw them; apply reads them again). */
  finish: number[];
  action: 'delete';
}

export interface PlanCluster {
  cluster: number;
  score: number;
  reasons: string[];
  /** Why this survivor. */
  why: string;
  survivor: PlanMember;
  /** Attributes the survivor takes: `{ value, from }` (`from` the duplicate's id). Lists are joined. */
  fill: Record<string, { value: unknown; from: number | number[] }>;
  duplicates: PlanDuplicate[];
}

export interface MergePlan {
  plan: 'svc dedupe';
  version: 1;
  type: 'prospect' | 'account';
  madeAt: string;
  mirror: string;
  /**
   * The org the mirror is of (its base URL, a local sandbox by its instance), as `svc sync`
   * identifies it: apply refuses a plan made from another org's mirror, whose ids name other
   * records. Plans made before it was written have none.
   */
  org?: { baseUrl: string; id: string; name: string };
  keep: KeepRule;
  why: string[];
  clusters: PlanCluster[];
}

const HOW_TO_EDIT = [
  'A merge plan of svc dedupe: check it, edit it, then run `svc dedupe apply FILE --plan` to preview and `svc dedupe apply FILE` to carry it out.',
  'Each cluster: the survivor keeps its id; it takes the `fill` values (where its own are empty, and any duplicate\u2019s opt-out); each duplicate\u2019s linked records in `move` go to the survivor, its active enrolments are finished, then it is deleted (with --tag-only: tagged `duplicate-of-<survivor>` and left).',
  'Edit: remove a cluster, or a duplicate from a cluster, to leave it alone; swap the survivor with a duplicate; remove a field from `fill`. Keep `updatedAt`: apply leaves out a cluster whose records changed since the mirror read them.',
  'Apply never merges records of different owners unless given --across-owners.',
  'Calls and mailings cannot move (the API does not update them): deleting a duplicate leaves its calls without a prospect and deletes its mailings and enrolments; --tag-only keeps them.',
];

const member = (r: MirrorRecord): PlanMember => ({
  id: r.id,
  label: r.label,
  updatedAt: r.updatedAt,
  createdAt: r.createdAt,
  ownerId: r.ownerId,
  activity: r.activity,
});

const empty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

/** Records in order of preference by `keep`, and the words for why the first is kept. */
export function rankMembers(
  records: MirrorRecord[],
  keep: KeepRule,
  type: 'prospect' | 'account',
): { ranked: MirrorRecord[]; why: string } {
  // Only `most-complete` counts filled attributes: the list (some 200 with custom fields, matched
  // against the declared ones) is made when it does, not once per cluster for every rule.
  let attrs: AttributeSpec[] | undefined;
  const filled = (r: MirrorRecord) =>
    (attrs ??= fillableAttributes(type)).reduce((n, a) => n + (empty(apiValue(a, r.row[columnOf(a)])) ? 0 : 1), 0);
  const t = (s: string | null) => (s ? apiTime(s) : Number.MAX_SAFE_INTEGER);
  const byAge = (a: MirrorRecord, b: MirrorRecord) => t(a.createdAt) - t(b.createdAt) || a.id - b.id;
  const cmp: Record<KeepRule, (a: MirrorRecord, b: MirrorRecord) => number> = {
    'most-activity': (a, b) => b.activity - a.activity || byAge(a, b),
    oldest: byAge,
    newest: (a, b) => -byAge(a, b),
    'most-complete': (a, b) => filled(b) - filled(a) || b.activity - a.activity || byAge(a, b),
  };
  const ranked = [...records].sort(cmp[keep]);
  const s = ranked[0]!;
  // Functions, so that only the rule's own words are made: `most-complete`'s count of filled
  // fields, made for every cluster under every rule, was most of printing 1,000 clusters.
  const why = {
    'most-activity': () =>
      `most activity (${s.activity}${type === 'prospect' ? ' calls, mailings, tasks and enrolments' : ' prospects, tasks and opportunities'}), then oldest`,
    oldest: () => `oldest (created ${s.createdAt ?? 'unknown'})`,
    newest: () => `newest (created ${s.createdAt ?? 'unknown'})`,
    'most-complete': () => `most fields filled (${filled(s)}), then most activity`,
  }[keep]();
  return { ranked, why: `survivor ${s.id}: ${why} (--keep ${keep})` };
}

/** The region national numbers are read in (`--region`). */
type Home = Parameters<typeof normalisePhone>[1];

/**
 * A list value's key for joining: addresses ignoring case, numbers normalised in `--region` (the
 * width of their digits too: `０３-７７７７-１１１１` is `03-7777-1111`), other values as
 * they are. Not the clustering's folded address (`+tags` and gmail's dots dropped): that made
 * `ben+import@x.test` the same as `ben@x.test`, so a merge dropped the duplicate's address from
 * the survivor and the next import of the same sheet matched no one and created it again.
 */
function listKey(attr: string, v: unknown, home: Home): string {
  if (attr === 'emails') return String(v).trim().toLowerCase();
  if (/Phones$/.test(attr)) {
    const p = normalisePhone(v, home);
    return p ? phoneKey(p) : String(v);
  }
  return JSON.stringify(v);
}

/** A list attribute joined: the survivor's values, then each duplicate's not already there (addresses and numbers compared normalised). */
function joinedList(
  a: AttributeSpec,
  survivor: MirrorRecord,
  dups: MirrorRecord[],
  home: Home,
): { value: unknown[]; from: number[] } | undefined {
  const col = columnOf(a);
  const mine = apiValue(a, survivor.row[col]);
  const list = Array.isArray(mine) ? [...(mine as unknown[])] : [];
  const keys = new Set(list.map((v) => listKey(a.name, v, home)));
  const from: number[] = [];
  for (const d of dups) {
    const theirs = apiValue(a, d.row[col]);
    for (const v of Array.isArray(theirs) ? theirs : []) {
      const k = listKey(a.name, v, home);
      if (keys.has(k)) continue;
      keys.add(k);
      list.push(v);
      if (!from.includes(d.id)) from.push(d.id);
    }
  }
  return from.length ? { value: list, from } : undefined;
}

/** What the survivor takes: empty scalars from the first duplicate (in rank order) that has one; lists joined; any member's opt-out. */
function fillOf(type: 'prospect' | 'account', survivor: MirrorRecord, dups: MirrorRecord[], home: Home): PlanCluster['fill'] {
  const fill: PlanCluster['fill'] = {};
  for (const a of fillableAttributes(type)) {
    if (a.type === 'string[]') {
      const joined = joinedList(a, survivor, dups, home);
      if (joined) fill[a.name] = joined;
      continue;
    }
    // An opt-out of any member is the person's: deleting the duplicate that holds it would mail
    // them again through the survivor.
    if (a.optOut !== undefined) {
      const out =
        apiValue(a, survivor.row[columnOf(a)]) === a.optOut ? undefined : dups.find((d) => apiValue(a, d.row[columnOf(a)]) === a.optOut);
      if (out) fill[a.name] = { value: a.optOut, from: out.id };
      if (out || a.type === 'boolean') continue;
    }
    // A boolean is never empty: false is a value.
    if (a.type === 'boolean' || !empty(apiValue(a, survivor.row[columnOf(a)]))) continue;
    const donor = dups.find((d) => !empty(apiValue(a, d.row[columnOf(a)])));
    if (donor) fill[a.name] = { value: apiValue(a, donor.row[columnOf(a)]), from: donor.id };
  }
  return fill;
}

/** Builds the merge plan of `clusters`. */
export async function buildPlan(
  m: MirrorCatalog,
  type: 'prospect' | 'account',
  clusters: Cluster[],
  records: Map<number, MirrorRecord>,
  o: { keep: KeepRule; mirror: string; org: NonNullable<MergePlan['org']>; now: number; region?: Home },
): Promise<MergePlan> {
  const all = clusters.flatMap((c) => c.ids);
  const links = type === 'prospect' ? await prospectLinks(m, all) : undefined;
  const states = type === 'prospect' ? await activeStates(m, all) : undefined;
  const prospects = type === 'account' ? await accountProspects(m, all) : undefined;
  const out: PlanCluster[] = clusters.map((c, i) => {
    const { ranked, why } = rankMembers(
      c.ids.map((id) => records.get(id)!),
      o.keep,
      type,
    );
    const [survivor, ...dups] = ranked as [MirrorRecord, ...MirrorRecord[]];
    return {
      cluster: i + 1,
      score: c.score,
      reasons: c.reasons,
      why,
      survivor: member(survivor),
      fill: fillOf(type, survivor, dups, o.region),
      duplicates: dups.map((d) => ({
        ...member(d),
        move: type === 'prospect' ? (links!.get(d.id) ?? {}) : { prospect: prospects!.get(d.id) ?? [] },
        finish: states?.get(d.id) ?? [],
        action: 'delete' as const,
      })),
    };
  });
  return {
    plan: 'svc dedupe',
    version: 1,
    type,
    madeAt: new Date(o.now).toISOString(),
    mirror: o.mirror,
    org: o.org,
    keep: o.keep,
    why: HOW_TO_EDIT,
    clusters: out,
  };
}
