/**
 * The HTTP layer: recording, latency, maintenance, authentication, rate limits, media types,
 * then dispatch to the version-2 endpoints, OAuth, or the sandbox's control endpoints.
 *
 * Order of checks (first failure wins): 503 maintenance → 401 token → 429 rate limit →
 * 404 collection → 413 body size → 404/405 route → 403 scope → 415 media type → 400 malformed
 * JSON → 422 validation → 404 record. The body is read only once the token has passed, so an
 * unauthenticated client cannot make the sandbox hold anything (request-body.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { RESOURCES, type ResourceType } from '../../registry/index.js';
import { ErrorResponse, errors } from '../errors.js';
import { BASE_PATH, principalOf, type Core, type RecordedRequest } from './core.js';
import { handleResource, preflight, type HandlerResponse } from './resources.js';
import { headers as rateHeaders, type RateState } from './rate-limit.js';
import { handleOAuth } from './oauth.js';
import { handleRoot, handleTypes } from './root.js';
import { handleJsonSchema, handleOpenApi } from './openapi.js';
import { handleCleanup } from './webhook-endpoints.js';
import { handleControl } from './control.js';
import { BrokenRequest, MAX_FORM_BYTES, recordedBody, RequestBody } from './request-body.js';

const JSON_API = 'application/vnd.api+json';
const byPath = new Map<string, ResourceType>();

function collection(seg: string): ResourceType | undefined {
  if (!byPath.size) for (const r of RESOURCES) byPath.set(r.path, r);
  return byPath.get(seg);
}

function parsedQuery(raw: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function errorBody(e: ErrorResponse): string {
  return JSON.stringify({ errors: e.errors });
}

function mediaTypeOk(ct: string | undefined): boolean {
  // JSON:API's media type; parameters such as charset are tolerated.
  return (ct ?? '').split(';')[0]!.trim().toLowerCase() === JSON_API;
}

/** The limiter's key of a client without a user (no token, a bad one, a cleanup token). */
function addressKey(req: IncomingMessage): string {
  return `address:${req.socket.remoteAddress ?? ''}`;
}

/** The limiter's key of a request whose user token is optional: its user, else its address. */
function optionalKey(core: Core, req: IncomingMessage): string {
  try {
    return `user:${core.auth.authenticate(req.headers.authorization).userId}`;
  } catch {
    return addressKey(req);
  }
}

/** Handles one request under the version root. */
async function handleApi(
  core: Core,
  req: IncomingMessage,
  path: string,
  raw: string,
  reqBody: RequestBody,
  rate: { state?: RateState },
): Promise<HandlerResponse> {
  const segments = path.slice(BASE_PATH.length).split('/').filter(Boolean).map(decodeURIComponent);
  const auth = req.headers.authorization;
  const method = req.method ?? 'GET';
  // Endpoints that take no user token or an optional one. They count too (the spec's Limits:
  // every endpoint), against the token's user when there is one, else the client's address; an
  // answer with headers of a window nobody counts in told svc's shared budget a new window had
  // begun, and it granted the user's whole hour again (test/budget/ledger.test.ts).
  if (segments[0] === 'schema.json' && segments.length === 1 && method === 'GET') {
    rate.state = core.limiter.take(optionalKey(core, req));
    return handleJsonSchema(core, auth);
  }
  if (segments[0] === 'schema' && segments[1] === 'openapi.json' && segments.length === 2 && method === 'GET') {
    rate.state = core.limiter.take(optionalKey(core, req));
    return handleOpenApi(core);
  }
  if (segments[0] === 'webhooks' && segments[1] === 'cleanup' && segments.length === 2) {
    if (method !== 'POST') throw errors.methodNotAllowed(method, path, ['POST']);
    rate.state = core.limiter.take(addressKey(req));
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
  const body = method === 'POST' || method === 'PATCH' || method === 'PUT' ? await reqBody.read(core.opts.maxBodyBytes) : '';
  if (body.length) {
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
    // Whatever one request does, it must not end the process (in-process sandboxes share it
    // with a running command): a failure here ends that request's connection only.
    respond(core, req, res).catch(() => {
      res.destroy();
      req.destroy();
    });
  };
}

/** Answers one request: records it, routes it, turns thrown errors into error documents. */
async function respond(core: Core, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const raw = q < 0 ? '' : url.slice(q + 1);
  const body = new RequestBody(req);
  const rec: RecordedRequest = {
    method: req.method ?? 'GET',
    path,
    query: { raw, parsed: parsedQuery(raw) },
    headers: { ...req.headers },
    body: '',
  };
  core.requests.push(rec);
  // HEAD is GET without the body (RFC 9110): routed as GET; Node's response already leaves the
  // body out, having seen HEAD. It was 405, though `svc api` offers HEAD (a trial).
  if (req.method === 'HEAD') req.method = 'GET';
  if (core.requests.length > core.opts.recordLimit) core.requests.splice(0, core.requests.length - core.opts.recordLimit);
  if (core.opts.latencyMs > 0) await new Promise((r) => setTimeout(r, core.opts.latencyMs));
  const rate: { state?: RateState } = {};
  let out: HandlerResponse;
  let contentType = JSON_API;
  try {
    const until = core.opts.maintenanceUntil;
    if (until && Date.parse(until) > Date.now() && !path.startsWith('/_sandbox')) throw errors.maintenance(until);
    if (path === BASE_PATH || path.startsWith(BASE_PATH + '/')) out = await handleApi(core, req, path, raw, body, rate);
    else if (path.startsWith('/oauth/')) {
      const r = await handleOAuth(core, req, path, raw, req.method === 'POST' ? await body.read(MAX_FORM_BYTES) : '');
      out = r;
      contentType = r.contentType ?? 'application/json';
    } else if (path.startsWith('/_sandbox/')) out = await handleControl(core, req, path, raw);
    else throw errors.noRoute(path);
  } catch (e) {
    if (e instanceof BrokenRequest) {
      core.setPrincipal(undefined);
      rec.status = 0;
      req.destroy();
      return;
    }
    if (e instanceof ErrorResponse) {
      out = { status: e.status, headers: e.headers, ...(e.emptyBody ? {} : { body: errorBody(e) }) };
    } else {
      const detail = e instanceof Error ? e.message : String(e);
      out = { status: 500, body: JSON.stringify({ errors: [{ id: 'internalServerError', title: 'Internal Server Error', detail }] }) };
    }
  }
  core.setPrincipal(undefined);
  try {
    // Before the answer leaves: what it acknowledges, or shows, survives a kill of this process.
    core.commit();
  } catch (e) {
    out = {
      status: 500,
      body: JSON.stringify({
        errors: [
          { id: 'internalServerError', title: 'Internal Server Error', detail: `The change could not be saved: ${(e as Error).message}` },
        ],
      }),
    };
  }
  rec.status = out.status;
  rec.body = recordedBody(body.text);
  const h: Record<string, string> = {
    ...rateHeaders(rate.state ?? core.limiter.peek(addressKey(req))),
    ...out.headers,
  };
  if (out.body !== undefined) h['Content-Type'] ??= contentType;
  if (!body.consumed) {
    // A body left unread (refused before reading, or too large): the connection cannot carry
    // another request, so it closes once the answer is out, and Node discards what still comes.
    h['Connection'] = 'close';
    lingeringClose(req.socket);
    res.on('finish', () => setTimeout(() => req.socket.destroy(), 2000).unref());
  }
  res.writeHead(out.status, h);
  res.end(out.body);
}

/**
 * Closing a connection while the client's bytes are still unread makes the kernel reset it, and a
 * reset can discard the answer before the client has read it (a 413 lost under load). So once the
 * answer is out the sandbox only half-closes, and goes on reading (Node discards the rest of the
 * body) until the client closes or the 2 s above run out: the lingering close of web servers.
 */
function lingeringClose(socket: Socket): void {
  socket.destroySoon = function halfClose(this: Socket) {
    this.end();
  };
}
