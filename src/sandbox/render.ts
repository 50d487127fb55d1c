/**
 * JSON:API resource objects and documents, built as strings: a page of 1,000 prospects carries
 * over 200,000 attribute members, and building the text directly is several times faster than
 * building objects and stringifying them.
 */
import { allAttributes, resourceByType, type AttributeSpec, type ResourceType } from '../registry/index.js';
import { relModels, type RelModel } from './model.js';
import type { ParsedQuery } from './query.js';
import type { Principal, RulesFor } from './rules/types.js';
import { hasScope } from './scopes.js';
import type { Rec, Ref, RelValue, Store } from './store.js';

/** What rendering needs to know about the request. */
export interface RenderContext {
  store: Store;
  baseUrl: string;
  q: ParsedQuery;
  principal: Principal;
  rulesFor: RulesFor;
  /** The response to the create of these records (webhooks reveal their cleanup token). */
  created?: boolean;
  /**
   * Keep default renderings for the next request. Only collection pages use it: caching
   * single GETs would promote every rendered record to the old generation for nothing.
   */
  useCache?: boolean;
}

interface TypePlan {
  rt: ResourceType;
  /** Attributes returned by default: public (not WO), not only-on-request. */
  defaults: AttributeSpec[];
  /** Every returnable attribute, by name. */
  returnable: Map<string, AttributeSpec>;
  rels: RelModel[];
  prefix: string;
  /** `"name":` / `,"name":` of each default attribute. */
  keys: string[];
  /** `nullsFrom[i]`: the text of default attributes i..end, all null. */
  nullsFrom: string[];
  /** Indexes of default attributes computed on read. */
  computedAt: Set<number>;
  cache: Map<Rec, { version: number; text: string }>;
}

const plans = new Map<string, TypePlan>();
/** Set on first render: which attributes are computed (the rules are the same for every sandbox). */
let rulesForPlan: RulesFor | undefined;

function plan(rt: ResourceType, rulesFor?: RulesFor): TypePlan {
  rulesForPlan ??= rulesFor;
  let p = plans.get(rt.type);
  if (!p) {
    const attrs = allAttributes(rt).filter((a) => !a.writeOnly);
    const defaults = attrs.filter((a) => !a.onlyOnRequest);
    const keys = defaults.map((a, i) => (i ? ',"' : '"') + a.name + '":');
    const nullsFrom: string[] = new Array(defaults.length + 1).fill('');
    for (let i = defaults.length - 1; i >= 0; i--) nullsFrom[i] = keys[i] + 'null' + nullsFrom[i + 1];
    const computed = rulesForPlan?.(rt)?.computed ?? {};
    p = {
      rt,
      keys,
      nullsFrom,
      computedAt: new Set(defaults.flatMap((a, i) => (computed[a.name] ? [i] : []))),
      cache: new Map(),
      defaults,
      returnable: new Map(attrs.map((a) => [a.name, a])),
      rels: [...relModels(rt).values()],
      prefix: `{"type":${JSON.stringify(rt.type)},"id":`,
    };
    plans.set(rt.type, p);
  }
  return p;
}

/** Names a `fields[type]` list may contain for a type. */
export function fieldNames(rt: ResourceType): Set<string> {
  const p = plan(rt);
  return new Set([...p.returnable.keys(), ...p.rels.map((r) => r.spec.name)]);
}

function value(v: unknown): string {
  if (v == null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function ident(r: Ref): string {
  return `{"type":${JSON.stringify(r.type)},"id":${r.id}}`;
}

/** Members of a relationship as the response shows them (rule filters applied). */
export function relationMembers(ctx: Pick<RenderContext, 'store' | 'rulesFor'>, rt: ResourceType, rec: Rec, m: RelModel): RelValue {
  const v = ctx.store.related(rt, rec, m.spec.name);
  const filter = ctx.rulesFor(rt)?.relationFilter?.[m.spec.name];
  if (!filter || !Array.isArray(v)) return v;
  return v.filter((r) => {
    const member = ctx.store.get(r.type, r.id);
    return !!member && filter(ctx.store, rec, member);
  });
}

/**
 * URL of a relationship's related resources: for a to-one, the target itself (or its
 * collection when unset); for a derived to-many, the target collection filtered on the
 * inverse relationship; otherwise the `/{types}/{id}/{relationship}` endpoint.
 */
export function relatedUrl(baseUrl: string, rt: ResourceType, rec: Rec, m: RelModel, filtered: boolean): string {
  const target = m.spec.target ? resourceByType(m.spec.target) : undefined;
  if (m.spec.kind === 'one' && target) {
    const ref = rec.rels[m.spec.name] as Ref | null | undefined;
    return ref ? `${baseUrl}/${target.path}/${ref.id}` : `${baseUrl}/${target.path}`;
  }
  if (m.source.kind === 'many-derived' && !filtered) {
    const t = resourceByType(m.source.type)!;
    return `${baseUrl}/${t.path}?filter%5B${m.source.via}%5D%5Bid%5D=${rec.id}`;
  }
  return `${baseUrl}/${rt.path}/${rec.id}/${m.spec.name}`;
}

/**
 * One resource object as JSON text. `linkage` names relationships that must carry `data` even
 * when the registry gives them only links (they are included: JSON:API full linkage).
 */
export function renderResource(rt: ResourceType, rec: Rec, ctx: RenderContext, linkage?: Set<string>): string {
  const p = plan(rt, ctx.rulesFor);
  const fields = ctx.q.fields.get(rt.type);
  const rules = ctx.rulesFor(rt);
  // The default rendering of a record depends only on the store's content: keep it until the
  // next write anywhere (derived relationships and computed attributes read other records).
  const cacheable = !!ctx.useCache && !fields && !linkage?.size && !ctx.q.authorizationMeta && !ctx.q.dataConnections && !rules?.present;
  if (cacheable) {
    const hit = p.cache.get(rec);
    if (hit && hit.version === ctx.store.version) return hit.text;
  }
  const parts: string[] = [p.prefix, String(rec.id), ',"attributes":{'];
  if (fields) {
    let first = true;
    for (const f of fields) {
      const a = p.returnable.get(f);
      if (!a) continue;
      let v = rules?.computed?.[a.name] ? rules.computed[a.name]!(ctx.store, rec) : rec.attributes[a.name];
      if (rules?.present) v = rules.present(ctx.principal, rec, a.name, v, !!ctx.created);
      parts.push(first ? '"' : ',"', a.name, '":', value(v));
      first = false;
    }
  } else {
    const attrs = rec.attributes;
    const n = p.defaults.length;
    // Past the last attribute that has a value, the rest is a precomputed run of nulls.
    let last = -1;
    for (let i = n - 1; i >= 0; i--) {
      if (attrs[p.defaults[i]!.name] != null || p.computedAt.has(i)) {
        last = i;
        break;
      }
    }
    for (let i = 0; i <= last; i++) {
      const a = p.defaults[i]!;
      let v = p.computedAt.has(i) ? rules!.computed![a.name]!(ctx.store, rec) : attrs[a.name];
      if (rules?.present) v = rules.present(ctx.principal, rec, a.name, v, !!ctx.created);
      parts.push(p.keys[i]!, value(v));
    }
    parts.push(last + 1 < n ? p.nullsFrom[last + 1]! : '');
  }
  parts.push('},"relationships":{');
  let first = true;
  for (const m of p.rels) {
    const name = m.spec.name;
    if (fields && !fields.has(name)) continue;
    const withData = m.spec.data || !m.spec.links || linkage?.has(name);
    parts.push(first ? '"' : ',"', name, '":{');
    first = false;
    if (withData) {
      const v = relationMembers(ctx, rt, rec, m);
      parts.push('"data":', Array.isArray(v) ? '[' + v.map(ident).join(',') + ']' : v ? ident(v) : 'null');
    }
    if (m.spec.links) {
      const filtered = !!rules?.relationFilter?.[name];
      parts.push(withData ? ',"links":{"related":' : '"links":{"related":', JSON.stringify(relatedUrl(ctx.baseUrl, rt, rec, m, filtered)), '}');
    }
    parts.push('}');
  }
  parts.push('}');
  const meta: Record<string, unknown> = {};
  if (ctx.q.authorizationMeta) {
    if (rt.authorizationMeta === 'canWriteAndDelete') meta['canWrite'] = hasScope(ctx.principal.scopes, rt.path, 'write') && rt.operations.includes('update');
    meta['canDelete'] = hasScope(ctx.principal.scopes, rt.path, 'delete') && rt.operations.includes('delete');
  }
  if (ctx.q.dataConnections && rt.dataConnections) meta['dataConnections'] = dataConnections(rec);
  if (Object.keys(meta).length) parts.push(',"meta":', JSON.stringify(meta));
  parts.push('}');
  const text = parts.join('');
  if (cacheable) {
    if (p.cache.size >= CACHE_PER_TYPE) p.cache.delete(p.cache.keys().next().value!);
    p.cache.set(rec, { version: ctx.store.version, text });
  }
  return text;
}

/** Rendered records kept per type (a few pages of 1,000). */
const CACHE_PER_TYPE = 3000;

/** Connections to external sources: the sandbox knows the ones recorded in `externalSource`. */
function dataConnections(rec: Rec): unknown[] {
  const source = rec.attributes['externalSource'];
  if (typeof source !== 'string' || !source) return [];
  return [{ source, externalId: rec.attributes['externalId'] ?? null }];
}

/** Included resources of a set of primary records, deduplicated, primaries left out. */
export function collectIncluded(rt: ResourceType, primaries: Rec[], ctx: RenderContext): { text: string[]; linkage: Map<string, Set<string>> } {
  const linkage = new Map<string, Set<string>>();
  const seen = new Set(primaries.map((r) => `${rt.type}:${r.id}`));
  const included: { rt: ResourceType; rec: Rec }[] = [];
  const link = (type: string, rel: string) => {
    let s = linkage.get(type);
    if (!s) linkage.set(type, (s = new Set()));
    s.add(rel);
  };
  for (const path of ctx.q.include) {
    let level: { rt: ResourceType; rec: Rec }[] = primaries.map((rec) => ({ rt, rec }));
    for (const name of path) {
      const next: { rt: ResourceType; rec: Rec }[] = [];
      const nextSeen = new Set<string>();
      for (const { rt: t, rec } of level) {
        const m = relModels(t).get(name);
        if (!m) continue;
        link(t.type, name);
        const v = relationMembers(ctx, t, rec, m);
        for (const ref of Array.isArray(v) ? v : v ? [v] : []) {
          const key = `${ref.type}:${ref.id}`;
          const target = resourceByType(ref.type);
          const r = ctx.store.get(ref.type, ref.id);
          if (!target || !r || nextSeen.has(key)) continue;
          nextSeen.add(key);
          next.push({ rt: target, rec: r });
          if (!seen.has(key)) {
            seen.add(key);
            included.push({ rt: target, rec: r });
          }
        }
      }
      level = next;
    }
  }
  return { text: included.map((i) => renderResource(i.rt, i.rec, ctx, linkage.get(i.rt.type))), linkage };
}

/** A single-resource document. */
export function renderSingle(rt: ResourceType, rec: Rec, ctx: RenderContext): string {
  const inc = ctx.q.include.length ? collectIncluded(rt, [rec], ctx) : undefined;
  let out = '{"data":' + renderResource(rt, rec, ctx, inc?.linkage.get(rt.type));
  if (inc) out += ',"included":[' + inc.text.join(',') + ']';
  return out + '}';
}

/** A collection document with links and meta. */
export function renderCollection(rt: ResourceType, page: Rec[], total: number, ctx: RenderContext, links: Record<string, string>): string {
  const inc = ctx.q.include.length ? collectIncluded(rt, page, ctx) : undefined;
  const link = inc?.linkage.get(rt.type);
  let out = '{"data":[';
  const cached = { ...ctx, useCache: true };
  for (let i = 0; i < page.length; i++) out += (i ? ',' : '') + renderResource(rt, page[i]!, cached, link);
  out += ']';
  if (inc) out += ',"included":[' + inc.text.join(',') + ']';
  out += ',"links":' + JSON.stringify(links);
  const meta = ctx.q.count ? { count: Math.min(total, COUNT_CAP), count_truncated: total > COUNT_CAP } : { count: null };
  return out + ',"meta":' + JSON.stringify(meta) + '}';
}

/**
 * Counts above this are reported as this value with `count_truncated: true`. The spec names
 * the flag without its threshold; the sandbox counts exactly up to a million.
 */
export const COUNT_CAP = 1_000_000;
