/**
 * The HTTP layer: recording, latency, maintenance, authentication, rate limits, media types,
 * then dispatch to the version-2 endpoints, OAuth, or the sandbox's control endpoints.
 *
 * Order of checks (first failure wins): 503 maintenance → 401 token → 429 rate limit →
 * 404/405 route → 403 scope → 415 media type → 400 malformed JSON → 422 validation → 404 record.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESOURCES, type ResourceType } from '../registry/index.js';
import { ApiError, errors } from './errors.js';
import { BASE_PATH, type Core, type RecordedRequest } from './core.js';
import { handleResource, preflight, type ApiResponse } from './resources.js';
import { headers as rateHeaders, type RateState } from './rate-limit.js';
import type { Principal } from './rules/types.js';
import { handleOAuth } from './oauth.js';
import { handleRoot, handleTypes } from './root.js';
import { handleJsonSchema, handleOpenApi } from './schema.js';
import { handleCleanup } from './webhook-endpoints.js';
import { handleControl } from './control.js';

const JSON_API = 'application/vnd.api+json';
const byPath = new Map<string, ResourceType>();

function collection(seg: string): ResourceType | undefined {
  if (!byPath.size) for (const r of RESOURCES) byPath.set(r.path, r);
  return byPath.get(seg);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parsedQuery(raw: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** The principal of a token. */
export function principalOf(core: Core, header: string | undefined): Principal {
  const t = core.auth.authenticate(header);
  const app = t.appId ? core.auth.client(t.appId) : undefined;
  return {
    userId: t.userId,
    appId: t.appId,
    appName: app?.name ?? null,
    scopes: new Set(t.scopes),
    admin: t.appId === null && t.userId === core.ownerUserId,
  };
}

function errorBody(e: ApiError): string {
  return JSON.stringify({ errors: e.errors });
}

function mediaTypeOk(ct: string | undefined): boolean {
  // JSON:API's media type; parameters such as charset are tolerated.
  return (ct ?? '').split(';')[0]!.trim().toLowerCase() === JSON_API;
}

/** Handles one request under the version root. */
async function handleApi(core: Core, req: IncomingMessage, path: string, raw: string, body: string, rate: { state?: RateState }): Promise<ApiResponse> {
  const segments = path.slice(BASE_PATH.length).split('/').filter(Boolean).map(decodeURIComponent);
  const auth = req.headers.authorization;
  const method = req.method ?? 'GET';
  // Endpoints that take no user token or an optional one.
  if (segments[0] === 'schema.json' && segments.length === 1 && method === 'GET') return handleJsonSchema(core, auth);
  if (segments[0] === 'schema' && segments[1] === 'openapi.json' && segments.length === 2 && method === 'GET') return handleOpenApi(core);
  if (segments[0] === 'webhooks' && segments[1] === 'cleanup' && segments.length === 2) {
    if (method !== 'POST') throw errors.methodNotAllowed(method, path, ['POST']);
    return handleCleanup(core, auth);
  }
  const principal = principalOf(core, auth);
  core.setPrincipal(principal);
  rate.state = core.limiter.take(`user:${principal.userId}`);
  if (!segments.length) {
    if (method !== 'GET') throw errors.methodNotAllowed(method, path, ['GET']);
    return handleRoot(core, req.headers.authorization!, principal);
  }
  if (segments[0] === 'types' && segments.length === 1) {
    if (method !== 'GET') throw errors.methodNotAllowed(method, path, ['GET']);
    return handleTypes(core);
  }
  const rt = collection(segments[0]!);
  if (!rt) throw errors.noRoute(path);
  let parsed: unknown;
  if (body.length && (method === 'POST' || method === 'PATCH' || method === 'PUT')) {
    if (!mediaTypeOk(req.headers['content-type'])) {
      // Route and scope problems are reported before the media type (see the module comment).
      preflight(rt, method, segments, principal);
      throw errors.mediaType(req.headers['content-type'] ?? '');
    }
    try {
      parsed = JSON.parse(body);
    } catch {
      throw errors.badRequest('The request body is not valid JSON.');
    }
  }
  return handleResource(core, rt, { method, segments, rawQuery: raw, body: parsed, principal });
}

/** The request listener of a sandbox. */
export function createListener(core: Core): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void (async () => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const raw = q < 0 ? '' : url.slice(q + 1);
      const body = await readBody(req);
      const rec: RecordedRequest = { method: req.method ?? 'GET', path, query: { raw, parsed: parsedQuery(raw) }, headers: { ...req.headers }, body };
      core.requests.push(rec);
      if (core.requests.length > core.opts.recordLimit) core.requests.splice(0, core.requests.length - core.opts.recordLimit);
      if (core.opts.latencyMs > 0) await new Promise((r) => setTimeout(r, core.opts.latencyMs));
      const rate: { state?: RateState } = {};
      let out: ApiResponse;
      let contentType = JSON_API;
      try {
        const until = core.opts.maintenanceUntil;
        if (until && Date.parse(until) > Date.now() && !path.startsWith('/_sandbox')) throw errors.maintenance(until);
        if (path === BASE_PATH || path.startsWith(BASE_PATH + '/')) out = await handleApi(core, req, path, raw, body, rate);
        else if (path.startsWith('/oauth/')) {
          const r = await handleOAuth(core, req, path, raw, body);
          out = r;
          contentType = r.contentType ?? 'application/json';
        } else if (path.startsWith('/_sandbox/')) out = await handleControl(core, req, path, raw, body);
        else throw errors.noRoute(path);
      } catch (e) {
        if (e instanceof ApiError) {
          out = { status: e.status, headers: e.headers, ...(e.emptyBody ? {} : { body: errorBody(e) }) };
        } else {
          const detail = e instanceof Error ? e.message : String(e);
          out = { status: 500, body: JSON.stringify({ errors: [{ id: 'internalServerError', title: 'Internal Server Error', detail }] }) };
        }
      }
      core.setPrincipal(undefined);
      rec.status = out.status;
      const h: Record<string, string> = { ...rateHeaders(rate.state ?? core.limiter.peek(`user:${req.socket.remoteAddress ?? ''}`)), ...out.headers };
      if (out.body !== undefined) h['Content-Type'] ??= contentType;
      res.writeHead(out.status, h);
      res.end(out.body);
    })();
  };
}

