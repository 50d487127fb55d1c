/**
 * Names in the relationship columns of bulk input (`account` = `name:Atlas Systems`), resolved
 * to ids before the first write: the distinct names of the whole file (or shard), per related
 * type, in batches of many values per list request (the batching of `--match`). A name that no
 * record has is then matched, ignoring case, against one page of the related list, which also
 * gives the candidates that its rows' errors list. Rows whose names do not resolve to exactly one
 * record fail with those candidates and are never sent.
 * Requests: ⌈distinct names / batch⌉ per related type, plus one page per type with unknown names.
 */
import type { Context } from '../../runtime/context.js';
import type { PageClient } from '../../api/paginate.js';
import { keyLookup, normKey, resolveInBatches, type MatchedRecord } from '../../bulk/rows/key-match.js';
import type { RelNames } from '../../bulk/rows/rel-names.js';
import { namedRelValues, type NamedValue, type ResourceInput } from '../../bulk/rows/resource-plan.js';
import { SvcError } from '../../errors.js';
import type { ResourceType } from '../../registry/index.js';
import { CANDIDATE_PAGE, namedTarget, pickNamed, readNamed, type NamedRecord, type NameSource } from '../shared/name-lookup.js';

/** What was resolved, for the run's summary line. */
interface RelNameSummary {
  names: RelNames;
  /** Distinct names looked up. */
  distinct: number;
  /** Of them, names that resolved to no single record. */
  unresolved: number;
  /** List requests sent. */
  requests: number;
}

type Answer = { ref: string } | { problem: string };

async function* each<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

function asNamed(src: NameSource, r: MatchedRecord): NamedRecord {
  const v = r.attributes[src.attr];
  const names = Array.isArray(v) ? v.map(String) : [typeof v === 'string' ? v : String(v ?? '')];
  return { id: r.id, name: names.join(', '), names, attributes: r.attributes };
}

/** The answer for one name from the records that may have it (the one, or a problem naming candidates). */
function answer(records: readonly NamedRecord[], n: NamedValue, src: NameSource): Answer {
  try {
    return { ref: `${src.rt.type}:${pickNamed(records, n.value, n.kind, src).id}` };
  } catch (err) {
    if (!(err instanceof SvcError)) throw err;
    return { problem: [err.message, ...err.hints].join('; ') };
  }
}

/**
 * Resolves the named relationship values of a bulk input, or returns undefined when it holds none.
 * @param client reads only (list requests), sent before the run's session opens
 */
async function resolveRowRelNames(
  client: PageClient,
  rt: ResourceType,
  input: ResourceInput,
  signal?: AbortSignal,
): Promise<RelNameSummary | undefined> {
  const values = await namedRelValues(input);
  if (values.length === 0) return undefined;
  let requests = 0;
  // Not a spread: the client may be a class instance, whose methods a spread would leave behind.
  const counted: PageClient = {
    baseUrl: client.baseUrl,
    resolve: (p) => client.resolve(p),
    request: (req) => {
      requests++;
      return client.request(req);
    },
  };
  const answers = new Map<string, Answer>();
  const keyOf = (rel: string, kind: string, value: string) => `${rel}\0${kind}\0${normKey(value)}`;
  // Names grouped by where they are looked up: `owner` and `creator` both read users by e-mail.
  const groups = new Map<string, { src: NameSource; values: NamedValue[] }>();
  let unresolved = 0;
  for (const n of values) {
    const src = namedTarget(rt, n.rel, n.kind);
    if (typeof src === 'string') {
      answers.set(keyOf(n.rel, n.kind, n.value), { problem: `${n.kind}:${n.value}: ${src}` });
      unresolved++;
      continue;
    }
    const g = `${src.rt.type}\0${src.attr}`;
    const group = groups.get(g) ?? { src, values: [] };
    group.values.push(n);
    groups.set(g, group);
  }
  for (const { src, values: names } of groups.values()) {
    const lookup = keyLookup(counted, {
      path: src.rt.path,
      type: src.rt.type,
      attr: src.attr,
      fields: [src.attr],
      ...(signal ? { signal } : {}),
    });
    const found = new Map<string, NamedRecord[]>();
    // On an anonymised rehearsal copy a name is looked up as the fake the copy holds for it.
    const held = (v: string) => (input.mask ? input.mask.value(src.rt.type, src.attr, v) : v);
    const distinct = new Map(names.map((n) => [normKey(held(n.value)), held(n.value)]));
    const rules = {
      keyOf: (v: string) => v,
      apply: (v: string, recs: MatchedRecord[]) =>
        void found.set(
          normKey(v),
          recs.map((r) => asNamed(src, r)),
        ),
    };
    // Drained only for `apply`, which fills `found`: ⌈distinct names / batch⌉ list requests.
    for await (const _ of resolveInBatches(each(distinct.values()), lookup, rules));
    let page: NamedRecord[] | undefined;
    for (const n of names) {
      let records = found.get(normKey(held(n.value))) ?? [];
      // The service may match a filter exactly: a miss is matched again ignoring case, and gets candidates.
      if (records.length === 0) records = page ??= await readNamed(counted, src, undefined, signal, CANDIDATE_PAGE);
      const a = answer(records, { ...n, value: held(n.value) }, src);
      if ('problem' in a) unresolved++;
      answers.set(keyOf(n.rel, n.kind, n.value), a);
    }
  }
  const names: RelNames = {
    resolve: (rel, n) =>
      answers.get(keyOf(rel, n.kind, n.value)) ?? { problem: `${n.kind}:${n.value}: not looked up before the run; give an id` },
  };
  return { names, distinct: values.length, unresolved, requests };
}

/**
 * Resolves the names of a bulk input into `input.relNames` before its rows are checked, and says
 * what it cost on stderr. Nothing happens for an input without names.
 * @returns the list requests sent (for a plan's bill)
 */
export async function resolveNames(ctx: Context, rt: ResourceType, input: ResourceInput): Promise<number> {
  const r = await resolveRowRelNames(await ctx.api(), rt, input, ctx.signal);
  if (!r) return 0;
  input.relNames = r.names;
  const failing = r.unresolved ? `, ${r.unresolved} not resolved (their rows fail, listing candidates)` : '';
  ctx.info(`relationship names: ${r.distinct} distinct looked up in ${r.requests} request${r.requests === 1 ? '' : 's'}${failing}`);
  return r.requests;
}
