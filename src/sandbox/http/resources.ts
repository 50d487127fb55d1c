/**
 * Generic handlers of the five operations, item actions and related links, for any type of
 * the registry. Type-specific behaviour comes from the rules module.
 */
import { findRelationship, findResource, resourceByType, type Operation, type ResourceType } from '../../registry/index.js';
import { errors, paramError } from '../errors.js';
import { checkQuery, runCollection } from '../query/engine.js';
import { relModels } from '../data/model.js';
import { OFFSET_MAX, parseQuery, type ParsedQuery } from '../query/query.js';
import { fieldNames, relationMembers, renderCollection, renderSingle, type RenderContext } from '../render/documents.js';
import type { Principal, WriteInput } from '../rules/types.js';
import { hasScope, scopeName, type ScopeLevel } from '../rules/scopes.js';
import { destroyRecord } from '../rules/cascade.js';
import type { Rec, Ref } from '../data/store.js';
import type { CustomFieldValidation } from '../data/org.js';
import { validateWrite } from '../query/validate.js';
import { ruleContext, type Core } from './core.js';

/** A request routed to a collection. */
interface HandlerRequest {
  method: string;
  /** Path segments after the version root (`['prospects', '12']`). */
  segments: string[];
  rawQuery: string;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
  principal: Principal;
}

/** A response. */
export interface HandlerResponse {
  status: number;
  /** JSON text; large collection documents come already encoded. */
  body?: string | Buffer;
  headers?: Record<string, string>;
}

const METHOD_OF: Record<Operation, string> = { list: 'GET', create: 'POST', get: 'GET', update: 'PATCH', delete: 'DELETE' };

function requireScope(p: Principal, rt: ResourceType, level: ScopeLevel): void {
  if (!hasScope(p.scopes, rt.path, level)) throw errors.scope(scopeName(rt.path, level));
}

/**
 * A filter or sort that crosses a relationship reads the type it reaches: it needs that type's
 * read scope (403, as a direct request would get), or its answers would tell a token about
 * records it may not read (`filter[account][name]=…` with only `prospects.read`). A related
 * record's id is part of the relationship the token reads already: `filter[account][id]` is free.
 */
function checkCrossedScopes(rt: ResourceType, q: ParsedQuery, p: Principal): void {
  for (const path of [...q.filters.map((f) => f.path), ...q.sort.map((k) => k.path)]) {
    let t = rt;
    for (let i = 0; i < path.length - 1; i++) {
      const rel = findRelationship(t, path[i]!);
      const target = rel?.target ? resourceByType(rel.target) : undefined;
      if (!target || (i === path.length - 2 && path[i + 1] === 'id')) break;
      requireScope(p, target, 'read');
      t = target;
    }
  }
}

function allowed(rt: ResourceType, item: boolean): string[] {
  const ops: Operation[] = item ? ['get', 'update', 'delete'] : ['list', 'create'];
  return ops.filter((o) => rt.operations.includes(o)).map((o) => METHOD_OF[o]);
}

function requireOp(rt: ResourceType, op: Operation, item: boolean, path: string): void {
  if (!rt.operations.includes(op)) throw errors.methodNotAllowed(METHOD_OF[op], path, allowed(rt, item));
}

/**
 * Validates `include` and `fields` against the registry (422 naming the parameter). With the
 * principal (requests whose includes are rendered), every type an include reaches needs its own
 * read scope: including must not read what a direct request for that type could not (403).
 */
function checkRenderQuery(rt: ResourceType, q: ParsedQuery, p?: Principal): void {
  for (const path of q.include) {
    let types: ResourceType[] = [rt];
    for (const name of path) {
      const next: ResourceType[] = [];
      for (const t of types) {
        const rel = findRelationship(t, name);
        if (!rel) continue;
        const target = rel.target ? resourceByType(rel.target) : undefined;
        if (target && p) requireScope(p, target, 'read');
        if (target) next.push(target);
      }
      if (!types.some((t) => findRelationship(t, name)))
        throw paramError(
          'include',
          `Cannot include '${path.join('.')}': ${types.map((t) => t.type).join('/')} has no relationship '${name}'.`,
        );
      types = next;
    }
  }
  for (const [type, names] of q.fields) {
    const t = resourceByType(type);
    if (!t) {
      // `fields[prospects]`: the collection's name where the spec wants the type's.
      const named = findResource(type);
      throw paramError(`fields[${type}]`, `Unknown type '${type}' in fields.${named ? ` Name the type: fields[${named.type}].` : ''}`);
    }
    const known = fieldNames(t);
    for (const n of names) {
      if (known.has(n)) continue;
      // type and id are in every resource object; the smallest fieldset is the empty one.
      const hint = n === 'id' || n === 'type' ? ` The type and id are always returned; fields[${type}]= returns no other field.` : '';
      throw paramError(`fields[${type}]`, `${type} has no field '${n}'.${hint}`);
    }
  }
}

function renderContext(core: Core, q: ParsedQuery, principal: Principal): RenderContext {
  return { store: core.store, baseUrl: core.baseUrl, q, principal, rulesFor: core.rulesFor };
}

function json(status: number, body: string | Buffer, headers?: Record<string, string>): HandlerResponse {
  return headers ? { status, body, headers } : { status, body };
}

/**
 * Pagination links on the version root, preserving every other parameter. Links are given "where
 * applicable" (spec, Common rules): none to a page past the offset cap, which the service refuses
 * (`next` at 10,500 answered 422, a trial), so a collection longer than the cap reaches has no
 * `last` either.
 */
function pageLinks(core: Core, rt: ResourceType, q: ParsedQuery, total: number): Record<string, string> {
  const keep = q.pairs.filter(([k]) => k !== 'page[offset]' && k !== 'page[limit]' && k !== 'page[size]');
  const url = (offset: number) => {
    const p = new URLSearchParams(keep);
    p.set('page[limit]', String(q.limit));
    if (offset > 0) p.set('page[offset]', String(offset));
    return `${core.baseUrl}/${rt.path}?${p}`;
  };
  const links: Record<string, string> = { first: url(0) };
  if (q.offset > 0) links['prev'] = url(Math.max(0, q.offset - q.limit));
  if (q.offset + q.limit < total && q.offset + q.limit <= OFFSET_MAX) links['next'] = url(q.offset + q.limit);
  // The page the `next` links end on: on this page's grid (a page past the end: on the grid from 0).
  const from = total > q.offset ? q.offset : 0;
  const last = total > 0 ? from + Math.floor((total - 1 - from) / q.limit) * q.limit : 0;
  if (last <= OFFSET_MAX) links['last'] = url(last);
  return links;
}

function parseId(s: string | undefined): number | undefined {
  return s && /^\d+$/.test(s) ? Number(s) : undefined;
}

function load(core: Core, rt: ResourceType, idText: string): Rec {
  const id = parseId(idText);
  const rec = id === undefined ? undefined : core.store.get(rt.type, id);
  if (!rec) throw errors.notFound(rt.type, idText);
  return rec;
}

/** Writes relationships whose members live on the other side (an account's `prospects`). */
function writeDerived(core: Core, rt: ResourceType, rec: Rec, input: WriteInput): void {
  for (const [name, v] of Object.entries(input.rels)) {
    const m = relModels(rt).get(name);
    if (m?.source.kind !== 'many-derived' || !Array.isArray(v)) continue;
    const { type, via } = m.source;
    const me: Ref = { type: rt.type, id: rec.id };
    const viaSpec = findRelationship(resourceByType(type)!, via);
    const current = core.store.related(rt, rec, name) as Ref[];
    const wanted = new Set(v.map((r) => r.id));
    for (const r of current) {
      if (wanted.has(r.id)) continue;
      const member = core.store.get(type, r.id);
      if (!member) continue;
      const next =
        viaSpec?.kind === 'many'
          ? ((member.rels[via] as Ref[] | undefined) ?? []).filter((x) => x.id !== rec.id || x.type !== rt.type)
          : null;
      core.store.update(type, r.id, {}, { [via]: next });
    }
    for (const r of v) {
      const member = core.store.get(type, r.id);
      if (!member) continue;
      const next =
        viaSpec?.kind === 'many'
          ? [...((member.rels[via] as Ref[] | undefined) ?? []).filter((x) => x.id !== rec.id || x.type !== rt.type), me]
          : me;
      core.store.update(type, r.id, {}, { [via]: next });
    }
    delete input.rels[name];
  }
}

/** Sets the read-only `creator`/`updater` (and a missing `owner`) to the calling user. */
function stampActors(rt: ResourceType, input: WriteInput, p: Principal, mode: 'create' | 'update'): void {
  const me: Ref = { type: 'user', id: p.userId };
  const toUser = (name: string) => findRelationship(rt, name)?.target === 'user';
  if (mode === 'create' && toUser('creator')) input.rels['creator'] = me;
  if (toUser('updater')) input.rels['updater'] = me;
  if (mode === 'create' && toUser('owner') && !('owner' in input.rels)) input.rels['owner'] = me;
}

function storedRels(rt: ResourceType, input: WriteInput): WriteInput['rels'] {
  const out: WriteInput['rels'] = {};
  for (const [k, v] of Object.entries(input.rels)) if (relModels(rt).get(k)?.source.kind !== 'many-derived') out[k] = v;
  return out;
}

/** Route, operation and scope checks of a request, without doing it (404, 405, 403). */
export function preflight(rt: ResourceType, method: string, segments: string[], p: Principal): void {
  const [, idText, third, fourth, ...more] = segments;
  const path = '/' + segments.join('/');
  if (more.length) throw errors.noRoute(path);
  if (idText === undefined) {
    if (method === 'GET') {
      requireOp(rt, 'list', false, path);
      requireScope(p, rt, 'read');
    } else if (method === 'POST') {
      requireOp(rt, 'create', false, path);
      requireScope(p, rt, 'write');
    } else throw errors.methodNotAllowed(method, path, allowed(rt, false));
  } else if (third === 'actions') {
    if (fourth === undefined || !rt.actions.some((a) => a.name === fourth)) throw errors.noRoute(path);
    if (method !== 'POST') throw errors.methodNotAllowed(method, path, ['POST']);
    requireScope(p, rt, 'write');
  } else if (third !== undefined) {
    if (fourth !== undefined || !relModels(rt).has(third)) throw errors.noRoute(path);
    if (method !== 'GET') throw errors.methodNotAllowed(method, path, ['GET']);
    requireScope(p, rt, 'read');
  } else if (method === 'GET') {
    requireOp(rt, 'get', true, path);
    requireScope(p, rt, 'read');
  } else if (method === 'PATCH') {
    requireOp(rt, 'update', true, path);
    requireScope(p, rt, 'write');
  } else if (method === 'DELETE') {
    requireOp(rt, 'delete', true, path);
    requireScope(p, rt, 'delete');
  } else throw errors.methodNotAllowed(method, path, allowed(rt, true));
}

/** Handles `/{types}`, `/{types}/{id}`, `/{types}/{id}/actions/{name}` and `/{types}/{id}/{rel}`. */
/**
 * The type as filters and sorts see it: the spec leaves which custom fields filter and sort to
 * the org, and the demo org lets every field it has labelled (`GET /types`) do both, compared as
 * the strings they are; an unlabelled `customN` neither filters nor sorts.
 */
function queryType(rt: ResourceType, custom: Record<string, CustomFieldValidation> | undefined): ResourceType {
  if (!custom) return rt;
  const labelled = Object.keys(custom).filter((name) => custom[name]?.label && !rt.attributes.some((a) => a.name === name));
  if (!labelled.length) return rt;
  return {
    ...rt,
    attributes: [...rt.attributes, ...labelled.map((name) => ({ name, type: 'string' as const, filterable: true, sortable: true }))],
  };
}

export function handleResource(core: Core, rt: ResourceType, req: HandlerRequest): HandlerResponse {
  const [, idText, third, fourth, ...more] = req.segments;
  const path = '/' + req.segments.join('/');
  if (more.length) throw errors.noRoute(path);
  const q = parseQuery(req.rawQuery);
  const p = req.principal;
  const rules = core.rulesFor(rt);
  const ctx = ruleContext(core, p);
  const customValidations = core.org.customFields[rt.type];

  if (idText === undefined) {
    if (req.method === 'GET') {
      requireOp(rt, 'list', false, path);
      requireScope(p, rt, 'read');
      checkRenderQuery(rt, q, p);
      checkCrossedScopes(rt, q, p);
      if (q.offset > OFFSET_MAX) throw paramError('page[offset]', `page[offset] must be at most ${OFFSET_MAX}.`);
      const { page, total } = runCollection(core.store, queryType(rt, customValidations), q, rules);
      return json(200, renderCollection(rt, page, total, renderContext(core, q, p), pageLinks(core, rt, q, total)));
    }
    if (req.method === 'POST') {
      requireOp(rt, 'create', false, path);
      requireScope(p, rt, 'write');
      checkRenderQuery(rt, q);
      const input = validateWrite(core.store, rt, req.body, { mode: 'create', ...(customValidations ? { customValidations } : {}) });
      stampActors(rt, input, p, 'create');
      rules?.beforeCreate?.(ctx, input);
      const rec = core.store.insert(rt.type, input.attributes, storedRels(rt, input));
      writeDerived(core, rt, rec, input);
      rules?.afterCreate?.(ctx, rec, input);
      // Including related resources on create is deprecated (spec, Versioning): ignored.
      const out = renderSingle(rt, rec, { ...renderContext(core, { ...q, include: [] }, p), created: true });
      return json(201, out, { Location: `${core.baseUrl}/${rt.path}/${rec.id}` });
    }
    throw errors.methodNotAllowed(req.method, path, allowed(rt, false));
  }

  if (third === 'actions') {
    if (fourth === undefined) throw errors.noRoute(path);
    const action = rt.actions.find((a) => a.name === fourth);
    if (!action) throw errors.noRoute(path);
    if (req.method !== 'POST') throw errors.methodNotAllowed(req.method, path, ['POST']);
    requireScope(p, rt, 'write');
    const rec = load(core, rt, idText);
    for (const name of q.actionParams.keys()) {
      if (!action.params.includes(name)) {
        throw errors.badRequest(
          `The action ${fourth} does not accept the parameter '${name}'${action.params.length ? ` (accepted: ${action.params.join(', ')})` : ''}.`,
          `actionParams[${name}]`,
        );
      }
    }
    rules?.actions?.[action.name]?.(ctx, rec, q.actionParams);
    return json(200, renderSingle(rt, rec, renderContext(core, { ...q, include: [] }, p)));
  }

  if (third !== undefined) {
    if (fourth !== undefined) throw errors.noRoute(path);
    const m = relModels(rt).get(third);
    if (!m) throw errors.noRoute(path);
    if (req.method !== 'GET') throw errors.methodNotAllowed(req.method, path, ['GET']);
    requireScope(p, rt, 'read');
    const rec = load(core, rt, idText);
    const v = relationMembers(core, rt, rec, m);
    const target = m.spec.target ? resourceByType(m.spec.target) : undefined;
    if (target) requireScope(p, target, 'read');
    checkRenderQuery(target ?? rt, q, p);
    const rctx = renderContext(core, q, p);
    if (!Array.isArray(v)) {
      const r = v ? core.store.get(v.type, v.id) : undefined;
      const t = v ? resourceByType(v.type) : undefined;
      return json(200, r && t ? renderSingle(t, r, rctx) : '{"data":null}');
    }
    const recs = v.map((r) => core.store.get(r.type, r.id)).filter((r): r is Rec => !!r);
    const page = recs.slice(q.offset, q.offset + q.limit);
    const t = target ?? rt;
    const links: Record<string, string> = { first: `${core.baseUrl}/${rt.path}/${rec.id}/${third}` };
    return json(200, renderCollection(t, page, recs.length, rctx, links));
  }

  const item = () => load(core, rt, idText);
  switch (req.method) {
    case 'GET': {
      requireOp(rt, 'get', true, path);
      requireScope(p, rt, 'read');
      checkRenderQuery(rt, q, p);
      checkQuery(core.store, queryType(rt, customValidations), q);
      return json(200, renderSingle(rt, item(), renderContext(core, q, p)));
    }
    case 'PATCH': {
      requireOp(rt, 'update', true, path);
      requireScope(p, rt, 'write');
      checkRenderQuery(rt, q);
      const rec = item();
      const input = validateWrite(core.store, rt, req.body, {
        mode: 'update',
        id: rec.id,
        ...(customValidations ? { customValidations } : {}),
      });
      stampActors(rt, input, p, 'update');
      rules?.beforeUpdate?.(ctx, rec, input);
      core.store.update(rt.type, rec.id, input.attributes, storedRels(rt, input));
      writeDerived(core, rt, rec, input);
      rules?.afterUpdate?.(ctx, rec, input);
      return json(200, renderSingle(rt, rec, renderContext(core, { ...q, include: [] }, p)));
    }
    case 'DELETE': {
      requireOp(rt, 'delete', true, path);
      requireScope(p, rt, 'delete');
      const rec = item();
      rules?.beforeDelete?.(ctx, rec);
      destroyRecord(core.store, rt.type, rec.id);
      return { status: 204 };
    }
    default:
      throw errors.methodNotAllowed(req.method, path, allowed(rt, true));
  }
}
