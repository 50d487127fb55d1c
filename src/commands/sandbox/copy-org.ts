/**
 * Copying a real org into a sandbox org file, read-only: the organisation (name, custom fields
 * from the types endpoint), its structure (users, teams, rulesets, stages, personas, sequences
 * with their steps and templates, mailboxes), and a sample of prospects with their accounts,
 * e-mail addresses, phone numbers and sequence states — with the real ids, so that an input
 * file written for production runs unchanged against the copy.
 *
 * Requests: 2 (root, types) + one per 1,000 records of each structure type + ⌈sample / 1,000⌉
 * + 5 × ⌈sample / 200⌉ (accounts twice — named and unnamed: the index hides unnamed ones unless
 * filtered on `named` — then addresses, numbers, states fetched by prospect id) + 5 (the highest
 * id of each sampled type).
 */
import { randomUUID } from 'node:crypto';
import type { Filter } from '../../api/filter.js';
import { ApiError } from '../../errors.js';
import type { ResourceObject } from '../../api/jsonapi.js';
import { paginate } from '../../api/paginate.js';
import { encodeQuery, queryPairs } from '../../api/query.js';
import { resourceByType, type ResourceType } from '../../registry/index.js';
import type { Anonymiser } from '../../anonymise.js';
import { AuthStore } from '../../sandbox/http/auth.js';
import type { CustomFieldValidation, OrgConfig } from '../../sandbox/data/org.js';
import { DATA_VERSION, type DataFile } from '../../sandbox/data/persistence.js';
import { allScopes } from '../../sandbox/rules/scopes.js';
import { Store, type Rec, type RelValue } from '../../sandbox/data/store.js';
import { customFieldsFromTypes } from '../../org-schema/org-schema.js';
import type { BudgetedClient } from './copy-budget.js';
import { writeProgress, type CopyProgress } from './copy-progress.js';
import { readableFields, targets, toRecord } from './copy-records.js';
import { grouped } from '../../grouped.js';

/** Types copied whole: the org's structure. */
const ORG_TYPES = [
  'user',
  'team',
  'ruleset',
  'stage',
  'persona',
  'sequence',
  'sequenceStep',
  'template',
  'sequenceTemplate',
  'mailbox',
] as const;
/** Types copied for the sampled prospects only. */
const SAMPLE_TYPES = ['prospect', 'account', 'emailAddress', 'phoneNumber', 'sequenceState'] as const;
/** Every type a copy holds, in the order they are fetched. */
export const COPIED_TYPES: readonly string[] = [...ORG_TYPES, ...SAMPLE_TYPES];

/** Ids per `filter[...]` list: keeps a URL well under common length limits. */
const ID_CHUNK = 200;

/**
 * Requests a copy of `sample` prospects needs at least (the module comment's formula, one page
 * per structure type); a large org needs one more per further 1,000 records of a type.
 */
export function estimateRequests(sample: number): number {
  return 2 + ORG_TYPES.length + Math.ceil(sample / 1000) + 5 * Math.ceil(sample / ID_CHUNK) + SAMPLE_TYPES.length;
}

/** What a copy needs besides the client. */
interface CopyJob {
  client: BudgetedClient;
  progress: CopyProgress;
  progressFile: string;
  sample: number;
  /** Type → its `--filter` expressions. */
  filters: Map<string, Filter[]>;
  anonymiser?: Anonymiser;
  signal: AbortSignal;
  /** Told about a type the login may not read (its collection path): not copied. */
  unreadable: (path: string) => void;
  /** Told when a step is done (stderr). */
  info: (line: string) => void;
}

interface RootInfo {
  org: { id: number; name: string; shortName: string };
  userId: number;
}

/** Runs `fn` unless an earlier run finished the step; saves its result. */
async function step<T>(job: CopyJob, name: string, fn: () => Promise<T>): Promise<T> {
  if (name in job.progress.steps) return job.progress.steps[name] as T;
  const before = job.client.used;
  const value = await fn();
  job.progress.steps[name] = value;
  job.progress.requests += job.client.used - before;
  writeProgress(job.progressFile, job.progress);
  const spent = job.client.used - before;
  job.info(
    `${name}: ${Array.isArray(value) ? `${grouped(value.length)} records` : 'done'} (${spent} request${spent === 1 ? '' : 's'}, ${grouped(job.client.left)} of the budget left)`,
  );
  return value;
}

async function list(job: CopyJob, rt: ResourceType, extra: Filter[], limit?: number): Promise<ResourceObject[]> {
  const fields = readableFields(rt);
  const pages = paginate(job.client, rt.path, {
    query: { filters: [...extra, ...(job.filters.get(rt.type) ?? [])], ...(fields ? { fields: { [rt.type]: fields } } : {}) },
    ...(limit === undefined ? { all: true, pageSize: 1000 } : { limit, pageSize: Math.min(limit, 1000) }),
    signal: job.signal,
  });
  const out: ResourceObject[] = [];
  for await (const page of pages) out.push(...page.records);
  return out;
}

function idFilter(path: string[], ids: number[]): Filter {
  return { path, kind: 'list', values: ids.map(String), escaped: false };
}

async function byIds(job: CopyJob, rt: ResourceType, path: string[], ids: number[], extra: Filter[] = []): Promise<ResourceObject[]> {
  const out: ResourceObject[] = [];
  for (let i = 0; i < ids.length; i += ID_CHUNK) out.push(...(await list(job, rt, [idFilter(path, ids.slice(i, i + ID_CHUNK)), ...extra])));
  return out;
}

const named = (v: boolean): Filter => ({ path: ['named'], kind: 'eq', values: [String(v)], escaped: false });

/**
 * The sampled prospects. A long id list (the prospects an input file names) is asked for in
 * chunks, as the by-id lookups are: one URL holding thousands of ids would be refused.
 */
async function sampleProspects(job: CopyJob, rt: ResourceType): Promise<ResourceObject[]> {
  const filters = job.filters.get(rt.type) ?? [];
  const ids = filters.find((f) => f.path.length === 1 && f.path[0] === 'id' && f.kind === 'list' && f.values.length > ID_CHUNK);
  if (!ids) return list(job, rt, [], job.sample);
  const rest = filters.filter((f) => f !== ids);
  const out: ResourceObject[] = [];
  const wanted = ids.values.slice(0, job.sample);
  for (let i = 0; i < wanted.length; i += ID_CHUNK) {
    out.push(
      ...(await list({ ...job, filters: new Map([...job.filters, [rt.type, rest]]) }, rt, [
        { ...ids, values: wanted.slice(i, i + ID_CHUNK) },
      ])),
    );
  }
  return out;
}

/** The highest id of a type in the real org: records the copy creates get ids above it. */
async function highestId(job: CopyJob, rt: ResourceType): Promise<number> {
  const res = await job.client.request({
    method: 'GET',
    path: rt.path,
    query: encodeQuery(queryPairs({ sort: ['-id'], pageLimit: 1, fields: { [rt.type]: [] } })),
  });
  const data = res.doc.data;
  const first = Array.isArray(data) ? data[0] : undefined;
  const id = first ? Number(first.id) : 0;
  return Number.isSafeInteger(id) ? id : 0;
}

function records(
  job: CopyJob,
  rt: ResourceType,
  objs: ResourceObject[],
  custom: Record<string, Record<string, CustomFieldValidation>>,
): Rec[] {
  return objs.flatMap((o) => toRecord(rt, o, job.anonymiser, custom[rt.type]) ?? []);
}

/** Fetches (or resumes) everything; returns the records by type and the org's settings. */
export async function fetchOrg(job: CopyJob): Promise<{
  root: RootInfo;
  custom: Record<string, Record<string, CustomFieldValidation>>;
  tables: Map<string, Rec[]>;
  maxIds: Record<string, number>;
}> {
  const root = await step(job, 'root', async () => {
    const res = await job.client.request({ method: 'GET', path: '' });
    const meta = (res.doc.meta ?? {}) as {
      organization?: { id?: number; name?: string; shortName?: string };
      user?: { id?: number | string };
    };
    const o = meta.organization ?? {};
    return {
      org: { id: Number(o.id ?? 1), name: String(o.name ?? 'org'), shortName: String(o.shortName ?? 'org') },
      userId: Number(meta.user?.id ?? 1),
    } satisfies RootInfo;
  });
  const custom = await step(job, 'types', async () => {
    const res = await job.client.request({ method: 'GET', path: 'types' });
    const out: Record<string, Record<string, CustomFieldValidation>> = {};
    for (const [type, fields] of customFieldsFromTypes(res.doc)) {
      out[type] = Object.fromEntries(
        Object.values(fields).map((f) => [f.name, { type: f.type, required: f.required, label: f.label, definition: f.definition }]),
      );
    }
    return out;
  });
  const tables = new Map<string, Rec[]>();
  for (const type of ORG_TYPES) {
    const rt = resourceByType(type)!;
    const recs = await step(job, type, async () => {
      try {
        return records(job, rt, await list(job, rt, []), custom);
      } catch (err) {
        // A login without this read scope still gets a useful copy: the rest of the org.
        if (!(err instanceof ApiError) || err.status !== 403) throw err;
        job.unreadable(rt.path);
        return [];
      }
    });
    tables.set(type, recs);
  }
  const prospect = resourceByType('prospect')!;
  const prospects = await step(job, 'prospect', async () => records(job, prospect, await sampleProspects(job, prospect), custom));
  tables.set('prospect', prospects);
  const pids = prospects.map((p) => p.id);
  const account = resourceByType('account')!;
  tables.set(
    'account',
    await step(job, 'account', async () => {
      // The accounts index lists named accounts only unless filtered on `named`: both ways.
      const ids = targets(prospects, 'account');
      const objs = [
        ...(await byIds(job, account, ['id'], ids, [named(true)])),
        ...(await byIds(job, account, ['id'], ids, [named(false)])),
      ];
      return records(job, account, objs, custom);
    }),
  );
  for (const type of ['emailAddress', 'phoneNumber', 'sequenceState']) {
    const rt = resourceByType(type)!;
    tables.set(type, await step(job, type, async () => records(job, rt, await byIds(job, rt, ['prospect', 'id'], pids), custom)));
  }
  const maxIds = await step(job, 'maxIds', async () => {
    const out: Record<string, number> = {};
    for (const type of SAMPLE_TYPES) out[type] = await highestId(job, resourceByType(type)!);
    return out;
  });
  return { root, custom, tables, maxIds };
}

/** The org file of a copy: records with their ids, links to records outside the copy dropped. */
export function buildDataFile(
  root: RootInfo,
  custom: Record<string, Record<string, CustomFieldValidation>>,
  tables: Map<string, Rec[]>,
  maxIds: Record<string, number>,
  meta: Record<string, unknown>,
): DataFile {
  const have = new Map([...tables].map(([t, recs]) => [t, new Set(recs.map((r) => r.id))]));
  const inCopy = (v: RelValue): RelValue => {
    if (Array.isArray(v)) return v.filter((r) => have.get(r.type)?.has(r.id));
    return v && have.get(v.type)?.has(v.id) ? v : null;
  };
  const store = new Store();
  for (const [type, recs] of tables) {
    for (const r of recs) {
      const rels: Record<string, RelValue> = {};
      for (const [k, v] of Object.entries(r.rels)) rels[k] = inCopy(v);
      store.insert(type, r.attributes, rels, { silent: true, id: r.id });
    }
  }
  store.meta = { copy: meta };
  const users = tables.get('user') ?? [];
  const owner = users.some((u) => u.id === root.userId) ? root.userId : (users[0]?.id ?? root.userId);
  const auth = new AuthStore();
  auth.init(owner, allScopes());
  // Its own instance: the side files of runs on the copy are never read as the real org's.
  const org: OrgConfig = {
    id: root.org.id,
    instance: randomUUID(),
    name: root.org.name,
    shortName: root.org.shortName,
    customFields: custom,
  };
  const snapshot = store.snapshot();
  // A record the rehearsal creates must never take the id of a real record left out of the
  // sample: an input file naming that id would then reach the wrong record.
  for (const [type, max] of Object.entries(maxIds)) snapshot.nextIds[type] = Math.max(snapshot.nextIds[type] ?? 1, max + 1);
  return { version: DATA_VERSION, ownerUserId: owner, org, store: snapshot, auth: auth.snapshot() };
}
