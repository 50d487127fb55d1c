/**
 * Machine-readable descriptions generated from the registry: `GET /schema.json` (JSON Schema
 * of every resource object; with a valid token also the organization's custom-field labels)
 * and `GET /schema/openapi.json` (OpenAPI 3.0.3; server = the version-2 root; bodies
 * `application/vnd.api+json`).
 */
import { allAttributes, RESOURCES, type AttributeSpec, type ResourceType } from '../../registry/index.js';
import type { Core } from './core.js';
import type { HandlerResponse } from './resources.js';

const JSON_API = 'application/vnd.api+json';

/**
 * The `https-url` format as a pattern: https anywhere, http to 127.0.0.1, localhost or [::1]. The
 * scheme and host in either case, as the URL parser reads them (JSON Schema patterns have no
 * flags: `HTTPS://…` passed svc's check and failed the pattern, a review). No white space anywhere.
 */
const HTTPS_URL_PATTERN =
  '^(?![\\s\\S]*\\s)([hH][tT][tT][pP][sS]://|[hH][tT][tT][pP]://(127\\.0\\.0\\.1|[lL][oO][cC][aA][lL][hH][oO][sS][tT]|\\[::1\\])([:/?#]|$))';

function attrSchema(a: AttributeSpec): Record<string, unknown> {
  const base: Record<string, unknown> = (() => {
    switch (a.type) {
      case 'integer':
        return { type: 'integer' };
      case 'number':
        return { type: 'number' };
      case 'boolean':
        return { type: 'boolean' };
      case 'date':
        return { type: 'string', format: 'date' };
      case 'date-time':
        return { type: 'string', format: 'date-time' };
      case 'string[]':
        return { type: 'array', items: { type: 'string' } };
      case 'object':
        return { type: 'object' };
      case 'array':
        return { type: 'array', items: {} };
      default:
        return { type: 'string' };
    }
  })();
  if (a.maxLength !== undefined && a.type === 'string') base['maxLength'] = a.maxLength;
  if (a.enum && (a.type === 'string' || a.type === 'integer')) base['enum'] = [...a.enum];
  // An HTTPS URL (a webhook's): the scheme as a pattern, plain http to this machine as the sandbox
  // takes it (registry/formats.ts).
  if (a.format === 'https-url') Object.assign(base, { format: 'uri', pattern: HTTPS_URL_PATTERN });
  if (a.readOnly) base['readOnly'] = true;
  if (a.writeOnly) base['writeOnly'] = true;
  base['nullable'] = true;
  if (a.description) base['description'] = a.description;
  return base;
}

const IDENT = { type: 'object', required: ['type', 'id'], properties: { type: { type: 'string' }, id: { type: 'integer' } } };

function resourceSchema(rt: ResourceType, labels?: Record<string, { label: string }>): Record<string, unknown> {
  const attrs: Record<string, unknown> = {};
  for (const a of allAttributes(rt)) {
    const s = attrSchema(a);
    if (labels?.[a.name]) s['title'] = labels[a.name]!.label;
    attrs[a.name] = s;
  }
  const rels: Record<string, unknown> = {};
  for (const r of rt.relationships) {
    const data = r.kind === 'one' ? { ...IDENT, nullable: true } : { type: 'array', items: IDENT };
    rels[r.name] = {
      type: 'object',
      properties: { data, links: { type: 'object', properties: { related: { type: 'string' } } }, meta: { type: 'object' } },
      ...(r.readOnly ? { readOnly: true } : {}),
    };
  }
  return {
    type: 'object',
    description: rt.description,
    required: ['type'],
    properties: {
      type: { type: 'string', enum: [rt.type] },
      id: { type: 'integer' },
      attributes: { type: 'object', properties: attrs, additionalProperties: false },
      relationships: { type: 'object', properties: rels },
      meta: { type: 'object' },
    },
  };
}

/** `GET /schema.json`. */
export function handleJsonSchema(core: Core, authorization: string | undefined): HandlerResponse {
  let custom = false;
  try {
    core.auth.authenticate(authorization);
    custom = true;
  } catch {
    custom = false;
  }
  const definitions: Record<string, unknown> = {};
  for (const rt of RESOURCES) definitions[rt.type] = resourceSchema(rt, custom ? core.org.customFields[rt.type] : undefined);
  const body = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `${core.baseUrl}/schema.json`,
    title: 'Sales engagement API v2 resources',
    definitions,
  };
  return { status: 200, body: JSON.stringify(body), headers: { 'Content-Type': 'application/schema+json' } };
}

const ERRORS_REF = { $ref: '#/components/schemas/Errors' };

function errorResponses(...codes: number[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const text: Record<number, string> = {
    400: 'Bad request',
    401: 'Missing, unknown or expired token',
    403: 'Missing scope',
    404: 'Not found',
    405: 'Operation not offered',
    415: 'Unsupported media type',
    422: 'Validation error',
    429: 'Rate limit exceeded',
    503: 'Scheduled maintenance',
  };
  for (const c of codes) out[String(c)] = { description: text[c] ?? 'Error', content: { [JSON_API]: { schema: ERRORS_REF } } };
  return out;
}

function body(ref: string, many = false): Record<string, unknown> {
  const data = many ? { type: 'array', items: { $ref: ref } } : { $ref: ref };
  return {
    content: {
      [JSON_API]: {
        schema: {
          type: 'object',
          required: ['data'],
          properties: { data, included: { type: 'array', items: { type: 'object' } }, links: { type: 'object' }, meta: { type: 'object' } },
        },
      },
    },
  };
}

const QUERY_PARAMS = [
  { name: 'include', in: 'query', schema: { type: 'string' }, description: 'Comma-separated relationship paths.' },
  { name: 'provideAuthorizationMeta', in: 'query', schema: { type: 'boolean' } },
  { name: 'provideDataConnections', in: 'query', schema: { type: 'boolean' } },
];
const LIST_PARAMS = [
  ...QUERY_PARAMS,
  { name: 'sort', in: 'query', schema: { type: 'string' } },
  { name: 'page[limit]', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
  { name: 'page[size]', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
  { name: 'page[offset]', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 10000 } },
  { name: 'count', in: 'query', schema: { type: 'boolean' } },
  { name: 'newFilterSyntax', in: 'query', schema: { type: 'boolean' } },
];
const ID_PARAM = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } };

/** `sequenceStates` → `sequence states`: summaries read as words in API tools. */
const words = (name: string) => name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);
/** `a prospect`, `an account`: every operation gets a summary, which importers show as its name. */
const article = (type: string) => `${/^([aeio]|un)/.test(type) ? 'an' : 'a'} ${words(type)}`;

/** The OpenAPI document: every operation has a summary, a unique operationId and its security declared. */
export function openApiDocument(baseUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, unknown> = {
    Errors: {
      type: 'object',
      required: ['errors'],
      properties: {
        errors: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'title'],
            properties: {
              id: { type: 'string' },
              title: { type: 'string' },
              detail: { type: 'string' },
              source: { type: 'object', properties: { pointer: { type: 'string' }, parameter: { type: 'string' } } },
            },
          },
        },
      },
    },
  };
  for (const rt of RESOURCES) {
    const name = rt.type[0]!.toUpperCase() + rt.type.slice(1);
    schemas[name] = resourceSchema(rt);
    const ref = `#/components/schemas/${name}`;
    const tag = [rt.path];
    const coll: Record<string, unknown> = {};
    const item: Record<string, unknown> = {};
    const ops = rt.operations;
    const sec = (level: string) => [{ oauth2: [`${rt.path}.${level}`] }];
    if (ops.includes('list'))
      coll['get'] = {
        operationId: `list_${rt.path}`,
        summary: `List ${words(rt.path)}`,
        tags: tag,
        security: sec('read'),
        parameters: LIST_PARAMS,
        responses: { '200': { description: 'A page of records', ...body(ref, true) }, ...errorResponses(401, 403, 422, 429) },
      };
    if (ops.includes('create'))
      coll['post'] = {
        operationId: `create_${rt.type}`,
        summary: `Create ${article(rt.type)}`,
        tags: tag,
        security: sec('write'),
        requestBody: { required: true, ...body(ref) },
        responses: { '201': { description: 'Created', ...body(ref) }, ...errorResponses(401, 403, 415, 422, 429) },
      };
    if (ops.includes('get'))
      item['get'] = {
        operationId: `get_${rt.type}`,
        summary: `Get ${article(rt.type)}`,
        tags: tag,
        security: sec('read'),
        parameters: QUERY_PARAMS,
        responses: { '200': { description: 'The record', ...body(ref) }, ...errorResponses(401, 403, 404, 429) },
      };
    if (ops.includes('update'))
      item['patch'] = {
        operationId: `update_${rt.type}`,
        summary: `Update ${article(rt.type)}`,
        tags: tag,
        security: sec('write'),
        requestBody: { required: true, ...body(ref) },
        responses: { '200': { description: 'Updated', ...body(ref) }, ...errorResponses(401, 403, 404, 415, 422, 429) },
      };
    if (ops.includes('delete'))
      item['delete'] = {
        operationId: `delete_${rt.type}`,
        summary: `Delete ${article(rt.type)}`,
        tags: tag,
        security: sec('delete'),
        responses: { '204': { description: 'Deleted' }, ...errorResponses(401, 403, 404, 422, 429) },
      };
    if (Object.keys(coll).length) paths[`/${rt.path}`] = coll;
    if (Object.keys(item).length) paths[`/${rt.path}/{id}`] = { parameters: [ID_PARAM], ...item };
    for (const a of rt.actions) {
      const params = a.params.map((p) => ({ name: `actionParams[${p}]`, in: 'query', schema: { type: 'string' } }));
      paths[`/${rt.path}/{id}/actions/${a.name}`] = {
        parameters: [ID_PARAM],
        post: {
          operationId: `${a.name}_${rt.type}`,
          summary: `${capital(words(a.name))} ${article(rt.type)}`,
          tags: tag,
          description: a.description,
          security: sec('write'),
          parameters: params,
          responses: {
            '200': { description: 'The record after the action', ...body(ref) },
            ...errorResponses(400, 401, 403, 404, 422, 429),
          },
        },
      };
    }
  }
  paths['/webhooks/cleanup'] = {
    post: {
      operationId: 'cleanup_webhook',
      summary: 'Remove a webhook by its cleanup token',
      tags: ['webhooks'],
      description: 'Removes the webhook whose cleanup token is the Bearer token.',
      security: [],
      responses: {
        '204': { description: 'Removed' },
        '401': { description: 'Invalid cleanup token' },
        '404': { description: 'Already gone' },
      },
    },
  };
  const authUrl = baseUrl.replace(/\/api\/v2$/, '');
  return {
    openapi: '3.0.3',
    info: { title: 'Sales engagement API (sandbox)', version: '2' },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: `${authUrl}/oauth/authorize`,
              tokenUrl: `${authUrl}/oauth/token`,
              refreshUrl: `${authUrl}/oauth/token`,
              scopes: Object.fromEntries(
                RESOURCES.flatMap((r) => ['read', 'write', 'delete', 'all'].map((l) => [`${r.path}.${l}`, `${l} ${r.path}`])),
              ),
            },
          },
        },
      },
    },
  };
}

/** The base URL the shared text of the document is made for; it appears nowhere else in it. */
const TEMPLATE_BASE = 'http://openapi-template.invalid/api/v2';
const TEMPLATE_ORIGIN = TEMPLATE_BASE.slice(0, -'/api/v2'.length);
/** The document's text for {@link TEMPLATE_BASE}: the registry's, the same in every sandbox. */
let template: string | undefined;

/**
 * The document's text for a base URL. It differs between sandboxes only in the base URL (the
 * server and the OAuth URLs), so the text is made once per process and each sandbox puts its
 * own URL in: building and writing out the 470 KB document cost each sandbox 6-18 ms of CPU
 * (0.1 ms now); the text is byte for byte what the document of that URL gives (test/sandbox/openapi).
 */
function openApiText(baseUrl: string): string {
  if (!baseUrl.endsWith('/api/v2')) return JSON.stringify(openApiDocument(baseUrl));
  template ??= JSON.stringify(openApiDocument(TEMPLATE_BASE));
  const origin = JSON.stringify(baseUrl.slice(0, -'/api/v2'.length)).slice(1, -1);
  // A function, not a string: `$` in a replacement string would be read as a pattern.
  return template.replaceAll(TEMPLATE_ORIGIN, () => origin);
}

/** `GET /schema/openapi.json` (custom objects not included, as the spec says). */
export function handleOpenApi(core: Core): HandlerResponse {
  core.openApiBody ??= openApiText(core.baseUrl);
  return { status: 200, body: core.openApiBody, headers: { 'Content-Type': 'application/json' } };
}
