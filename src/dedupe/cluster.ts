/**
 * Finding duplicates: records are put in blocks by normalised keys (an e-mail address, a phone
 * number, a company with a last or a first name), only records of one block are compared — never
 * all pairs — and the pairs that score at least the minimum are joined into clusters (union-find),
 * each with the reasons its pairs matched and its score (the lowest of the pairs that joined it:
 * a cluster is as sure as its weakest link).
 *
 * Prospects: the same e-mail address (normalised, role addresses like `info@` left out) is
 * enough; the same phone number counts only when the names agree (a switchboard is shared by
 * everyone at a company); the same name (similarity ≥ {@link NAME_SIMILARITY}) counts only at the
 * same company or domain, never alone. Two records whose work addresses (not free mail, not role)
 * are all different are two people, whatever else they share: a colleague with the same name, a
 * shared line; they never end up in one cluster, not even through a third record that resembles
 * both (that record joins the closer of the two, or neither when both are as close).
 *
 * Accounts: the same registrable domain (of `domain` or `websiteUrl`), or the same name without
 * its legal form.
 */
import { emailDomain, FREE_MAIL, isRoleAddress, normaliseEmail } from './email.js';
import { registrableDomain } from './domain.js';
import { normaliseCompany, normaliseName, similarity } from './name.js';
import { normalisePhone, phoneKey, type Phone } from './phone.js';
import { UnionFind } from './union-find.js';

/** What a duplicate may be matched by (`--by`). */
export type MatchBy = 'email' | 'phone' | 'name';

/** A prospect as the matcher reads it (from the mirror). */
export interface ProspectIn {
  id: number;
  firstName?: string | null;
  lastName?: string | null;
  emails?: readonly string[];
  phones?: readonly string[];
  /** The `company` attribute, when the mirror has it. */
  company?: string | null;
  accountId?: number | null;
  /** The name and domain of the prospect's account. */
  accountName?: string | null;
  accountDomain?: string | null;
}

/** An account as the matcher reads it. */
export interface AccountIn {
  id: number;
  name?: string | null;
  domain?: string | null;
  websiteUrl?: string | null;
}

/** A cluster of likely duplicates. */
export interface Cluster {
  /** Record ids, ascending. */
  ids: number[];
  /** 0–1: the lowest score of the pairs that joined the cluster. */
  score: number;
  /** `12 ~ 40: e-mail ada.petrov@acme.com`, one per pair that joined the cluster. */
  reasons: string[];
}

/** Least Jaro-Winkler similarity of two full names for a name match at one company. */
const NAME_SIMILARITY = 0.9;
/** Least similarity of two names for them to agree (a phone match needs it). */
const NAMES_AGREE = 0.85;
/** Default `--min-score`. */
export const DEFAULT_MIN_SCORE = 0.8;
/** Blocks larger than this are not compared pair by pair (a shared number, a common name at a big company). */
const MAX_BLOCK = 50;

/** A prospect's normalised keys. */
interface Prepared {
  id: number;
  first: string;
  last: string;
  full: string;
  emails: string[];
  /** Work addresses: neither free mail nor role. */
  work: string[];
  phones: string[];
  companies: string[];
}

/** Companies and domains repeat across records (one per account): normalised once each. */
interface Memo {
  /** Raw company name → its key `co:<normalised>` ('' for none). */
  company: Map<string, string>;
  /** Raw domain or address domain → its key `dom:<registrable>` ('' for none). */
  domain: Map<string, string>;
  /** Account id → its key `acct:<id>`. */
  account: Map<number, string>;
}

function memoised<K, V>(map: Map<K, V>, key: K, make: (k: K) => V): V {
  const known = map.get(key);
  if (known !== undefined) return known;
  const v = make(key);
  map.set(key, v);
  return v;
}

function prepareProspect(p: ProspectIn, home: Parameters<typeof normalisePhone>[1], memo: Memo): Prepared {
  const emails: string[] = [];
  for (const e of p.emails ?? []) {
    const n = normaliseEmail(e);
    if (n && !isRoleAddress(n) && !emails.includes(n)) emails.push(n);
  }
  const phones: string[] = [];
  for (const raw of p.phones ?? []) {
    const ph: Phone | undefined = normalisePhone(raw, home);
    if (ph) {
      const k = phoneKey(ph);
      if (!phones.includes(k)) phones.push(k);
    }
  }
  const work = emails.filter((e) => !FREE_MAIL.has(emailDomain(e)));
  const companies = new Set<string>();
  const company = (v: string | null | undefined) =>
    v ? memoised(memo.company, v, (k) => (normaliseCompany(k) ? `co:${normaliseCompany(k)}` : '')) : '';
  const domain = (v: string | null | undefined) =>
    v ? memoised(memo.domain, v, (k) => (registrableDomain(k) ? `dom:${registrableDomain(k)}` : `dom:${k}`)) : '';
  for (const k of [company(p.company), company(p.accountName), domain(p.accountDomain), ...work.map((e) => domain(emailDomain(e)))])
    if (k && k !== 'dom:') companies.add(k);
  if (p.accountId != null) companies.add(memoised(memo.account, p.accountId, (id) => `acct:${id}`));
  const first = normaliseName(p.firstName);
  const last = normaliseName(p.lastName);
  return { id: p.id, first, last, full: `${first} ${last}`.trim(), emails, work, phones, companies: [...companies] };
}

/**
 * Blocks of record indexes by key, in two levels (a company, then a name; `''` for one level):
 * the company keys are the same string objects record after record (memoised), so their hash is
 * computed once, not once per record as a joined `company|name` key's would be.
 */
class Blocks {
  /** A block of one record is its index (most blocks: no array for them). */
  readonly map = new Map<string, Map<string, number | number[]>>();
  add(outer: string, inner: string, i: number): void {
    let m = this.map.get(outer);
    if (m === undefined) this.map.set(outer, (m = new Map()));
    const list = m.get(inner);
    if (list === undefined) m.set(inner, i);
    else if (typeof list === 'number') {
      if (list !== i) m.set(inner, [list, i]);
    } else if (list[list.length - 1] !== i) list.push(i);
  }
  /** The blocks of two records or more. */
  *lists(): Generator<number[]> {
    for (const m of this.map.values()) for (const list of m.values()) if (typeof list !== 'number') yield list;
  }
}

/**
 * Joins scored pairs into clusters. Pairs are gathered first, then joined strongest first, and a
 * pair is not joined when it would put two records that `apart` says are two people in one
 * cluster (a chain of likely matches through a record that resembles two colleagues). A record
 * that matches two such records equally well is ambiguous: it joins neither.
 */
class Joiner {
  /** Pairs scored, by the lower index (small integers: a flat key a·n+b would not fit V8's fast ones). */
  private readonly seen = new Map<number, Set<number>>();
  readonly edges: { a: number; b: number; score: number; why: string }[] = [];

  constructor(
    private readonly n: number,
    private readonly minScore: number,
    private readonly apart: (a: number, b: number) => boolean,
  ) {}

  /** Scores a pair once. */
  pair(a: number, b: number, score: (a: number, b: number) => { score: number; why: string } | undefined): void {
    if (a === b) return;
    if (a > b) [a, b] = [b, a];
    let set = this.seen.get(a);
    if (set === undefined) this.seen.set(a, (set = new Set()));
    if (set.has(b)) return;
    set.add(b);
    const s = score(a, b);
    if (s && s.score >= this.minScore) this.edges.push({ a, b, ...s });
  }

  /** Pairs of a record with two records that are two people, at the same score: neither is joined. */
  private ambiguous(): Set<(typeof this.edges)[number]> {
    const byNode = new Map<number, (typeof this.edges)[number][]>();
    for (const e of this.edges) for (const x of [e.a, e.b]) byNode.set(x, [...(byNode.get(x) ?? []), e]);
    const out = new Set<(typeof this.edges)[number]>();
    for (const [x, list] of byNode) {
      if (list.length < 2) continue;
      for (let i = 0; i < list.length; i++)
        for (let j = i + 1; j < list.length; j++) {
          const p = list[i]!;
          const q = list[j]!;
          const u = p.a === x ? p.b : p.a;
          const v = q.a === x ? q.b : q.a;
          if (p.score === q.score && this.apart(u, v)) out.add(p).add(q);
        }
    }
    return out;
  }

  clusters(ids: readonly number[]): Cluster[] {
    const uf = new UnionFind(this.n);
    const members = new Map<number, number[]>();
    const skip = this.ambiguous();
    const joined: typeof this.edges = [];
    for (const e of [...this.edges].sort((x, y) => y.score - x.score || x.a - y.a || x.b - y.b)) {
      if (skip.has(e)) continue;
      const ra = uf.find(e.a);
      const rb = uf.find(e.b);
      if (ra === rb) {
        joined.push(e);
        continue;
      }
      const ma = members.get(ra) ?? [e.a];
      const mb = members.get(rb) ?? [e.b];
      if (ma.some((x) => mb.some((y) => this.apart(x, y)))) continue;
      uf.union(ra, rb);
      members.delete(ra);
      members.delete(rb);
      members.set(uf.find(ra), [...ma, ...mb]);
      joined.push(e);
    }
    const byRoot = new Map<number, Cluster>();
    for (const e of joined) {
      const root = uf.find(e.a);
      let c = byRoot.get(root);
      if (!c) byRoot.set(root, (c = { ids: [], score: 1, reasons: [] }));
      c.score = Math.min(c.score, e.score);
      c.reasons.push(`${ids[e.a]} ~ ${ids[e.b]}: ${e.why}`);
    }
    for (const [root, m] of members) {
      const c = byRoot.get(root);
      if (c) c.ids = m.map((i) => ids[i]!);
    }
    const out = [...byRoot.values()];
    for (const c of out) {
      c.ids.sort((x, y) => x - y);
      c.score = Math.round(c.score * 1000) / 1000;
    }
    return out.sort((x, y) => y.score - x.score || x.ids[0]! - y.ids[0]!);
  }
}

/** Options of {@link clusterProspects}. */
interface ProspectMatchOptions {
  by?: readonly MatchBy[];
  minScore?: number;
  region?: Parameters<typeof normalisePhone>[1];
}

/** Clusters of likely duplicate prospects. */
export function clusterProspects(records: readonly ProspectIn[], o: ProspectMatchOptions = {}): Cluster[] {
  const by = new Set<MatchBy>(o.by ?? ['email', 'phone', 'name']);
  const memo: Memo = { company: new Map(), domain: new Map(), account: new Map() };
  const p = records.map((r) => prepareProspect(r, o.region, memo));
  const emails = new Blocks();
  const phones = new Blocks();
  const names = new Blocks();
  p.forEach((r, i) => {
    if (by.has('email')) for (const e of r.emails) emails.add('', e, i);
    if (by.has('phone')) for (const ph of r.phones) phones.add('', ph, i);
    if (by.has('name') && r.full)
      for (const c of r.companies) {
        // Two blocks per company, so that a typo in either name still meets the other.
        if (r.last) names.add(c, r.last, i);
        if (r.first) names.add(c, ` ${r.first}`, i);
      }
  });
  const j = new Joiner(p.length, o.minScore ?? DEFAULT_MIN_SCORE, (a, b) => twoPeople(p[a]!, p[b]!));
  const score = (a: number, b: number) => scoreProspects(p[a]!, p[b]!, by);
  // The same address: every record of the block is one person; chained, not every pair.
  for (const list of emails.lists()) for (let k = 1; k < list.length; k++) j.pair(list[0]!, list[k]!, score);
  for (const blocks of [phones, names])
    for (const list of blocks.lists()) {
      if (list.length < 2 || list.length > MAX_BLOCK) continue;
      for (let x = 0; x < list.length; x++) for (let y = x + 1; y < list.length; y++) j.pair(list[x]!, list[y]!, score);
    }
  return j.clusters(p.map((r) => r.id));
}

/**
 * How alike two people's names are: the first names and the last names compared apart, the
 * lesser of the two (`Uma Lindqvist` and `Uma Lindgren` share a long start, yet are two names);
 * the full names when either lacks a part.
 */
function nameSimilarity(a: { first: string; last: string; full: string }, b: { first: string; last: string; full: string }): number {
  if (a.first && a.last && b.first && b.last) return Math.min(similarity(a.first, b.first), similarity(a.last, b.last));
  return similarity(a.full, b.full);
}

/** Two names agree: equal, one missing, or alike. */
function namesAgree(a: Prepared, b: Prepared): boolean {
  if (!a.full || !b.full) return true;
  return nameSimilarity(a, b) >= NAMES_AGREE;
}

/** Work addresses on both sides, none shared: two people. */
function twoPeople(a: Prepared, b: Prepared): boolean {
  return a.work.length > 0 && b.work.length > 0 && !a.work.some((e) => b.work.includes(e));
}

function scoreProspects(a: Prepared, b: Prepared, by: ReadonlySet<MatchBy>): { score: number; why: string } | undefined {
  if (by.has('email')) {
    const e = a.emails.find((x) => b.emails.includes(x));
    if (e) return { score: 1, why: `e-mail ${e}` };
  }
  if (twoPeople(a, b)) return undefined;
  if (by.has('phone')) {
    const ph = a.phones.find((x) => b.phones.includes(x));
    if (ph && namesAgree(a, b)) return { score: 0.9, why: `phone ${ph}${a.full && b.full ? ` and name ${a.full}` : ''}` };
  }
  if (by.has('name') && a.full && b.full) {
    const co = a.companies.find((c) => b.companies.includes(c));
    if (co) {
      const sim = nameSimilarity(a, b);
      if (sim >= NAME_SIMILARITY)
        return {
          score: Math.round(sim * 0.95 * 1000) / 1000,
          why: `name ${a.full === b.full ? a.full : `${a.full} ≈ ${b.full} (${sim.toFixed(2)})`} at ${co.slice(co.indexOf(':') + 1)}`,
        };
    }
  }
  return undefined;
}

/** Clusters of likely duplicate accounts: by domain and by name (`--by email` and `phone` do not apply). */
export function clusterAccounts(records: readonly AccountIn[], o: { by?: readonly MatchBy[]; minScore?: number } = {}): Cluster[] {
  const useName = (o.by ?? ['name']).includes('name');
  const keys = records.map((r) => {
    const domains = new Set<string>();
    for (const d of [r.domain, r.websiteUrl]) {
      const rd = registrableDomain(d);
      if (rd && !FREE_MAIL.has(rd)) domains.add(rd);
    }
    return { domains: [...domains], name: normaliseCompany(r.name) };
  });
  const blocks = new Blocks();
  keys.forEach((k, i) => {
    for (const d of k.domains) blocks.add('d', d, i);
    if (useName && k.name) blocks.add('n', k.name, i);
  });
  // Two accounts whose domains all differ are two companies.
  const apart = (a: number, b: number) =>
    keys[a]!.domains.length > 0 && keys[b]!.domains.length > 0 && !keys[a]!.domains.some((d) => keys[b]!.domains.includes(d));
  const j = new Joiner(records.length, o.minScore ?? DEFAULT_MIN_SCORE, apart);
  const score = (a: number, b: number) => {
    const ka = keys[a]!;
    const kb = keys[b]!;
    const d = ka.domains.find((x) => kb.domains.includes(x));
    const n = useName && ka.name && ka.name === kb.name ? ka.name : undefined;
    if (d && n) return { score: 1, why: `domain ${d} and name ${n}` };
    if (d) return { score: 0.95, why: `domain ${d}` };
    // Two domains, both different: two companies of one name (Acme the bakery, Acme the rockets).
    if (n && !(ka.domains.length && kb.domains.length)) return { score: 0.9, why: `name ${n}` };
    if (n) return { score: 0.6, why: `name ${n}, domains differ` };
    return undefined;
  };
  for (const list of blocks.lists()) {
    if (list.length <= MAX_BLOCK)
      for (let x = 0; x < list.length; x++) for (let y = x + 1; y < list.length; y++) j.pair(list[x]!, list[y]!, score);
    else for (let k = 1; k < list.length; k++) j.pair(list[0]!, list[k]!, score);
  }
  return j.clusters(records.map((r) => r.id));
}
