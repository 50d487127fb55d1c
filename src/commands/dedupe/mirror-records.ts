/**
 * What `svc dedupe` reads of the mirror, in plain SQL through `openReadMirror` (read-only; a
 * SQLite file or a PostgreSQL schema, the same statements): the records to match, what each one
 * has (activity, linked records to move, active enrolments), and every column the survivor may be
 * filled from. Tables `svc sync` may have left out (a sync of some types only) are read as empty.
 */
import type { MirrorDb } from '../../mirror/dialect/types.js';
import type { SqlRow } from '../../mirror/sqlite.js';
import { snake } from '../../mirror/naming.js';
import { allAttributes, resourceByType, type AttributeSpec } from '../../registry/index.js';
import type { AccountIn, ProspectIn } from '../../dedupe/cluster.js';

/** The phone attributes of a prospect, all read for matching. */
const PHONE_COLUMNS = ['work_phones', 'mobile_phones', 'home_phones', 'other_phones', 'voip_phones'];

/** Records linked to a prospect that can move to the survivor: the type, its path and how the mirror links them. */
const PROSPECT_LINKS = [
  { type: 'emailAddress', path: 'emailAddresses', link: ['prospects_email_addresses', 'email_address_id'], table: 'email_addresses' },
  { type: 'phoneNumber', path: 'phoneNumbers', link: ['prospects_phone_numbers', 'phone_number_id'], table: 'phone_numbers' },
  { type: 'task', path: 'tasks', link: undefined, table: 'tasks' },
  {
    type: 'opportunityProspectRole',
    path: 'opportunityProspectRoles',
    link: ['prospects_opportunity_prospect_roles', 'opportunity_prospect_role_id'],
    table: 'opportunity_prospect_roles',
  },
] as const;

/** A record of the mirror with what the plan needs besides its match keys. */
export interface MirrorRecord {
  id: number;
  createdAt: string | null;
  updatedAt: string | null;
  ownerId: number | null;
  /** A readable label: the name (and first address) of a prospect, the name and domain of an account. */
  label: string;
  /** Calls, mailings, tasks, enrolments (prospects) or prospects (accounts) in the mirror. */
  activity: number;
  /** The whole row as the mirror has it (snake_case columns): read for the records of clusters only ({@link loadRows}). */
  row: SqlRow;
}

/** The mirror as dedupe reads it: its database, which tables it has, and their columns once asked for. */
export interface MirrorCatalog {
  db: MirrorDb;
  relations: Set<string>;
  /** Read on first use: a mirror of every type has ~150 relations, a question here reaches ~10. */
  columns: Map<string, Promise<Set<string>>>;
}

/** Reads which tables and views the mirror has (one catalog query). */
export async function mirrorCatalog(db: MirrorDb): Promise<MirrorCatalog> {
  return { db, relations: new Set((await db.relations()).map((r) => r.name)), columns: new Map() };
}

/** The columns of `table`, read once. */
function columnsOf(m: MirrorCatalog, table: string): Promise<Set<string>> {
  let cols = m.columns.get(table);
  if (!cols) {
    cols = m.db.columnsOf(table).then((list) => new Set(list.map((c) => c.name)));
    m.columns.set(table, cols);
  }
  return cols;
}

/** Whether the mirror has `table` (with `column`). */
async function has(m: MirrorCatalog, table: string, column?: string): Promise<boolean> {
  return m.relations.has(table) && (column === undefined || (await columnsOf(m, table)).has(column));
}

/** A list column's JSON text as strings. */
function listValue(v: unknown): string[] {
  if (typeof v !== 'string' || !v.startsWith('[')) return [];
  try {
    const a = JSON.parse(v) as unknown;
    return Array.isArray(a) ? a.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Counts per owner id of `table.column` (0 when the table is not mirrored). */
async function countBy(m: MirrorCatalog, table: string, column: string, into: Map<number, number>): Promise<void> {
  if (!(await has(m, table, column))) return;
  for (const r of await m.db.all(`SELECT "${column}" AS k, count(*) AS n FROM "${table}" WHERE "${column}" IS NOT NULL GROUP BY 1`)) {
    const k = Number(r.k);
    into.set(k, (into.get(k) ?? 0) + Number(r.n));
  }
}

/** The prospects of the mirror, for matching and for the plan. */
export async function readProspects(m: MirrorCatalog): Promise<{ match: ProspectIn[]; records: Map<number, MirrorRecord> }> {
  if (!(await has(m, 'prospects'))) throw new Error('the mirror has no prospects table');
  const cols = await columnsOf(m, 'prospects');
  const accounts = new Map<number, { name: string | null; domain: string | null }>();
  if (await has(m, 'accounts'))
    for (const r of await m.db.all('SELECT id, name, domain FROM accounts'))
      accounts.set(Number(r.id), { name: str(r.name), domain: str(r.domain) });
  const activity = new Map<number, number>();
  for (const t of ['calls', 'mailings', 'tasks', 'sequence_states']) await countBy(m, t, 'prospect_id', activity);
  const match: ProspectIn[] = [];
  const records = new Map<number, MirrorRecord>();
  const phones = PHONE_COLUMNS.filter((c) => cols.has(c));
  // Every address of a prospect counts: its emailAddress records too, where the mirror has them.
  const more = new Map<number, string[]>();
  if (await has(m, 'email_addresses', 'prospect_id'))
    for (const r of await m.db.all(
      'SELECT prospect_id AS p, email FROM email_addresses WHERE prospect_id IS NOT NULL AND email IS NOT NULL',
    )) {
      const list = more.get(Number(r.p));
      if (list) list.push(String(r.email));
      else more.set(Number(r.p), [String(r.email)]);
    }
  // Only the columns matching reads: a prospect has some 190 (custom fields), read for the clusters' records alone.
  const want = [
    'id',
    'first_name',
    'last_name',
    'emails',
    'company',
    'account_id',
    'owner_id',
    'created_at',
    'updated_at',
    ...phones,
  ].filter((c) => cols.has(c));
  for (const r of await m.db.all(`SELECT ${want.map((c) => `"${c}"`).join(', ')} FROM prospects ORDER BY id`)) {
    const id = Number(r.id);
    const accountId = num(r.account_id);
    const account = accountId !== null ? accounts.get(accountId) : undefined;
    const emails = listValue(r.emails);
    match.push({
      id,
      firstName: str(r.first_name),
      lastName: str(r.last_name),
      emails: more.has(id) ? [...emails, ...more.get(id)!] : emails,
      phones: phones.flatMap((c) => listValue(r[c])),
      company: str(r.company),
      accountId,
      accountName: account?.name ?? null,
      accountDomain: account?.domain ?? null,
    });
    const name = [r.first_name, r.last_name].filter((x) => x !== null && x !== undefined && x !== '').join(' ');
    records.set(id, {
      id,
      createdAt: str(r.created_at),
      updatedAt: str(r.updated_at),
      ownerId: num(r.owner_id),
      label: [name, emails[0]].filter(Boolean).join(' ') || `prospect ${id}`,
      activity: activity.get(id) ?? 0,
      row: r,
    });
  }
  return { match, records };
}

/** The accounts of the mirror, for matching and for the plan. */
export async function readAccounts(m: MirrorCatalog): Promise<{ match: AccountIn[]; records: Map<number, MirrorRecord> }> {
  if (!(await has(m, 'accounts'))) throw new Error('the mirror has no accounts table');
  const activity = new Map<number, number>();
  await countBy(m, 'prospects', 'account_id', activity);
  await countBy(m, 'tasks', 'account_id', activity);
  await countBy(m, 'opportunities', 'account_id', activity);
  const match: AccountIn[] = [];
  const records = new Map<number, MirrorRecord>();
  const cols = await columnsOf(m, 'accounts');
  const want = ['id', 'name', 'domain', 'website_url', 'owner_id', 'created_at', 'updated_at'].filter((c) => cols.has(c));
  for (const r of await m.db.all(`SELECT ${want.map((c) => `"${c}"`).join(', ')} FROM accounts ORDER BY id`)) {
    const id = Number(r.id);
    match.push({ id, name: str(r.name), domain: str(r.domain), websiteUrl: str(r.website_url) });
    records.set(id, {
      id,
      createdAt: str(r.created_at),
      updatedAt: str(r.updated_at),
      ownerId: num(r.owner_id),
      label: [r.name, r.domain].filter((x) => x !== null && x !== undefined && x !== '').join(' ') || `account ${id}`,
      activity: activity.get(id) ?? 0,
      row: r,
    });
  }
  return { match, records };
}

/** Reads the whole rows of `ids` into their records (the survivor's fill and `--keep most-complete` read every column). */
export async function loadRows(
  m: MirrorCatalog,
  table: 'prospects' | 'accounts',
  records: Map<number, MirrorRecord>,
  ids: readonly number[],
): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    for (const r of await m.db.all(`SELECT * FROM "${table}" WHERE id IN (${ids.slice(i, i + 500).join(',')})`)) {
      const rec = records.get(Number(r.id));
      if (rec) rec.row = r;
    }
  }
}

/** Ids of the records linked to each of `ids` that a merge moves, by type. */
export async function prospectLinks(m: MirrorCatalog, ids: readonly number[]): Promise<Map<number, Record<string, number[]>>> {
  const out = new Map<number, Record<string, number[]>>(ids.map((id) => [id, {}]));
  const add = (pid: number, type: string, id: number) => {
    const links = out.get(pid);
    if (!links) return;
    (links[type] ??= []).includes(id) || links[type]!.push(id);
  };
  const list = ids.join(',');
  if (!list) return out;
  for (const l of PROSPECT_LINKS) {
    if (l.link && (await has(m, l.link[0])))
      for (const r of await m.db.all(
        `SELECT prospect_id AS p, "${l.link[1]}" AS m FROM "${l.link[0]}" WHERE prospect_id IN (${list}) ORDER BY 2`,
      ))
        add(Number(r.p), l.type, Number(r.m));
    if (await has(m, l.table, 'prospect_id'))
      for (const r of await m.db.all(`SELECT prospect_id AS p, id AS m FROM "${l.table}" WHERE prospect_id IN (${list}) ORDER BY 2`))
        add(Number(r.p), l.type, Number(r.m));
  }
  return out;
}

/** Ids of the prospects of each account of `ids`. */
export async function accountProspects(m: MirrorCatalog, ids: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(ids.map((id) => [id, []]));
  if (!ids.length || !(await has(m, 'prospects'))) return out;
  for (const r of await m.db.all(`SELECT account_id AS a, id FROM prospects WHERE account_id IN (${ids.join(',')}) ORDER BY id`))
    out.get(Number(r.a))?.push(Number(r.id));
  return out;
}

/** Active enrolments (sequence states that can be finished) of each prospect of `ids`, as the mirror saw them. */
export async function activeStates(m: MirrorCatalog, ids: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(ids.map((id) => [id, []]));
  if (!ids.length || !(await has(m, 'sequence_states'))) return out;
  for (const r of await m.db.all(
    `SELECT prospect_id AS p, id FROM sequence_states WHERE state = 'active' AND prospect_id IN (${ids.join(',')}) ORDER BY id`,
  ))
    out.get(Number(r.p))?.push(Number(r.id));
  return out;
}

/**
 * The attributes a survivor may take from a duplicate: writable, and not an id in another system
 * (`externalId`, `externalSource`, `externalOwner`: taking the duplicate's would tie the survivor
 * to the other system's record of the duplicate).
 */
export function fillableAttributes(type: 'prospect' | 'account'): AttributeSpec[] {
  return allAttributes(resourceByType(type)!).filter(
    (a) => !a.readOnly && !a.writeOnly && !a.name.startsWith('external') && a.name !== 'named',
  );
}

/** A mirror cell as the API takes the attribute: lists and objects parsed, booleans from 0/1. */
export function apiValue(a: AttributeSpec, cell: unknown): unknown {
  if (cell === null || cell === undefined) return null;
  if (a.type === 'boolean') return cell === 1 || cell === 1n || cell === true;
  if (typeof cell === 'string' && (a.type === 'string[]' || a.type === 'object' || a.type === 'array')) {
    try {
      return JSON.parse(cell);
    } catch {
      return cell;
    }
  }
  if (typeof cell === 'bigint') return Number(cell);
  return cell;
}

/** The mirror column of an attribute. */
export const columnOf = (a: AttributeSpec) => snake(a.name);
