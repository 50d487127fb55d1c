/**
 * JSON:API resource objects and documents, built as strings: a page of 1,000 prospects carries
 * over 200,000 attribute members, and building the text directly is several times faster than
 * building objects and stringifying them.
 */
import { resourceByType, type ResourceType } from '../../registry/index.js';
import { relModels, type RelModel } from '../data/model.js';
import type { ParsedQuery } from '../query/query.js';
import { asRefs, attributesText, dataText, plan, relPlans, valueText, type TypePlan } from './render-plan.js';
import type { Principal, RulesFor } from '../rules/types.js';
import { hasScope } from '../rules/scopes.js';
import type { Rec, RelValue, Store } from '../data/store.js';
import { TextSink } from './text-sink.js';

/** What rendering needs to know about the request. */
export interface RenderContext {
  store: Store;
  baseUrl: string;
  q: ParsedQuery;
  principal: Principal;
  rulesFor: RulesFor;
  /** The response to the create of these records (webhooks reveal their cleanup token). */
  created?: boolean;
}

/** Names a `fields[type]` list may contain for a type. */
export function fieldNames(rt: ResourceType): Set<string> {
  const p = plan(rt);
  return new Set([...p.returnable.keys(), ...p.rels.map((r) => r.spec.name)]);
}

/** Members of a relationship as the response shows them (rule filters applied). */
export function relationMembers(
  ctx: Pick<RenderContext, 'store' | 'rulesFor' | 'baseUrl'>,
  rt: ResourceType,
  rec: Rec,
  m: RelModel,
): RelValue {
  const rp = relPlans(plan(rt, ctx.rulesFor), ctx.baseUrl).find((r) => r.model === m)!;
  return asRefs(rp.members(ctx.store, rec), memberType(m));
}

function memberType(m: RelModel): string | undefined {
  return m.source.kind === 'many-derived' ? m.source.type : m.spec.target;
}

/** Attributes of a sparse fieldset, or of a type whose values depend on the caller. */
function attributesSlow(p: TypePlan, rec: Rec, ctx: RenderContext, fields: Set<string> | undefined): string {
  const rules = p.rules;
  let s = '';
  const names = fields ? [...fields].filter((f) => p.returnable.has(f)) : p.defaults.map((a) => a.name);
  for (const name of names) {
    let v = rules?.computed?.[name] ? rules.computed[name]!(ctx.store, rec) : rec.attributes[name];
    if (rules?.present) v = rules.present(ctx.principal, rec, name, v, !!ctx.created);
    s += (s ? ',' : '') + JSON.stringify(name) + ':' + valueText(v);
  }
  return s;
}

/**
 * One resource object as JSON text. `linkage` names relationships that must carry `data` even
 * when the registry gives them only links (they are included: JSON:API full linkage).
 */
function renderResource(rt: ResourceType, rec: Rec, ctx: RenderContext, linkage?: Set<string>): string {
  const p = plan(rt, ctx.rulesFor);
  const fields = ctx.q.fields.get(rt.type);
  const rules = p.rules;
  // No cache of renderings: kept strings would survive every young-generation collection, and
  // rendering from the plan costs less than what they cost to copy and promote.
  let s = p.prefix + rec.id + ',"attributes":{';
  s += fields || rules?.present ? attributesSlow(p, rec, ctx, fields) : attributesText(p, ctx.store, rec);
  s += '},"relationships":{';
  let first = true;
  for (const rp of relPlans(p, ctx.baseUrl)) {
    if (fields && !fields.has(rp.name)) continue;
    const withData = rp.data || linkage?.has(rp.name);
    s += rp.open[first ? 0 : 1];
    first = false;
    if (withData) s += '"data":' + dataText(rp.members(ctx.store, rec), memberType(rp.model));
    if (rp.links) s += (withData ? ',' : '') + rp.links(rec);
    s += '}';
  }
  s += '}';
  const meta: Record<string, unknown> = {};
  if (ctx.q.authorizationMeta) {
    if (rt.authorizationMeta === 'canWriteAndDelete')
      meta['canWrite'] = hasScope(ctx.principal.scopes, rt.path, 'write') && rt.operations.includes('update');
    meta['canDelete'] = hasScope(ctx.principal.scopes, rt.path, 'delete') && rt.operations.includes('delete');
  }
  if (ctx.q.dataConnections && rt.dataConnections) meta['dataConnections'] = dataConnections(rec);
  if (Object.keys(meta).length) s += ',"meta":' + JSON.stringify(meta);
  return s + '}';
}

/** Connections to external sources: the sandbox knows the ones recorded in `externalSource`. */
function dataConnections(rec: Rec): unknown[] {
  const source = rec.attributes['externalSource'];
  if (typeof source !== 'string' || !source) return [];
  return [{ source, externalId: rec.attributes['externalId'] ?? null }];
}

/** Included resources of a set of primary records, deduplicated, primaries left out. */
function collectIncluded(rt: ResourceType, primaries: Rec[], ctx: RenderContext): { text: string[]; linkage: Map<string, Set<string>> } {
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
          // A polymorphic relationship reaches types the request did not name: those the
          // token may not read are left out rather than leaked.
          if (!target || !r || nextSeen.has(key) || !hasScope(ctx.principal.scopes, target.path, 'read')) continue;
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

/** A collection document with links and meta (a Buffer when large, see {@link TextSink}). */
export function renderCollection(
  rt: ResourceType,
  page: Rec[],
  total: number,
  ctx: RenderContext,
  links: Record<string, string>,
): string | Buffer {
  const inc = ctx.q.include.length ? collectIncluded(rt, page, ctx) : undefined;
  const link = inc?.linkage.get(rt.type);
  const out = new TextSink();
  out.add('{"data":[');
  for (let i = 0; i < page.length; i++) out.add((i ? ',' : '') + renderResource(rt, page[i]!, ctx, link));
  out.add(']');
  if (inc) {
    out.add(',"included":[');
    for (const [i, t] of inc.text.entries()) out.add((i ? ',' : '') + t);
    out.add(']');
  }
  out.add(',"links":' + JSON.stringify(links));
  const meta = ctx.q.count ? { count: Math.min(total, COUNT_CAP), count_truncated: total > COUNT_CAP } : { count: null };
  out.add(',"meta":' + JSON.stringify(meta) + '}');
  return out.finish();
}

/**
 * Counts above this are reported as this value with `count_truncated: true`. The spec names
 * the flag without its threshold; the sandbox counts exactly up to a million.
 */
const COUNT_CAP = 1_000_000;
