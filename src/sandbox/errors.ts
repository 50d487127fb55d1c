/**
 * JSON:API error values. Handlers throw {@link ErrorResponse}; the server turns it into an
 * `errors` document (or an empty body where the spec says so, e.g. webhook cleanup).
 */

/** One JSON:API error object, as the spec's Errors section describes it. */
export interface ErrorObject {
  id: string;
  title: string;
  detail: string;
  source?: { pointer?: string; parameter?: string };
  status?: string;
}

/** An error that becomes an HTTP response. */
export class ErrorResponse extends Error {
  constructor(
    readonly status: number,
    readonly errors: ErrorObject[],
    /** Extra response headers (`Retry-After`, `Allow`, ...). */
    readonly headers: Record<string, string> = {},
    /** True where the spec wants an empty body (webhook cleanup). */
    readonly emptyBody = false,
  ) {
    super(errors[0]?.detail ?? `HTTP ${status}`);
  }
}

function one(status: number, id: string, title: string, detail: string, source?: ErrorObject['source']): ErrorResponse {
  const e: ErrorObject = { id, title, detail };
  if (source) e.source = source;
  return new ErrorResponse(status, [e]);
}

/** 422 `validationError` on a body field (`/data/attributes/name`). */
export function fieldError(pointer: string, detail: string): ErrorObject {
  return { id: 'validationError', title: 'Validation Error', detail, source: { pointer } };
}

/** 422 `validationError` on a query parameter (`page[offset]`). */
export function paramError(parameter: string, detail: string): ErrorResponse {
  return one(422, 'validationError', 'Validation Error', detail, { parameter });
}

/** 422 with one or more field errors. */
export function validationError(errors: ErrorObject[]): ErrorResponse {
  return new ErrorResponse(422, errors);
}

/** 422 about the record as a whole (state rules), pointing at the field that decides it. */
export function ruleError(detail: string, pointer = '/data'): ErrorResponse {
  return validationError([fieldError(pointer, detail)]);
}

export const errors = {
  unauthorized: (detail: string) => one(401, 'unauthorized', 'Unauthorized', detail),
  scope: (scope: string) =>
    one(403, 'unauthorizedOauthScope', 'Unauthorized OAuth Scope', `This request requires the '${scope}' OAuth scope.`),
  forbidden: (detail: string) => one(403, 'unauthorizedRequest', 'Unauthorized Request', detail),
  notFound: (type: string, id: string | number) =>
    one(404, 'resourceNotFound', 'Resource Not Found', `Could not find '${type}' with ID '${id}'.`),
  noRoute: (path: string) => one(404, 'notFound', 'Not Found', `No endpoint answers ${path}.`),
  methodNotAllowed: (method: string, path: string, allow: string[]) =>
    new ErrorResponse(
      405,
      [
        {
          id: 'methodNotAllowed',
          title: 'Method Not Allowed',
          detail: `${method} is not an operation of ${path}; allowed: ${allow.join(', ') || 'none'}.`,
        },
      ],
      { Allow: allow.join(', ') },
    ),
  badRequest: (detail: string, parameter?: string) => one(400, 'badRequest', 'Bad Request', detail, parameter ? { parameter } : undefined),
  payloadTooLarge: (limit: number) =>
    one(413, 'requestEntityTooLarge', 'Request Entity Too Large', `The request body is larger than ${formatBytes(limit)}.`),
  mediaType: (got: string) =>
    one(415, 'unsupportedMediaType', 'Unsupported Media Type', `Content-Type must be application/vnd.api+json (got '${got || 'none'}').`),
  rateLimited: (retryAfterSeconds: number) => {
    const e = one(429, 'rateLimitExceeded', 'Rate Limit Exceeded', `Too many requests; retry in ${retryAfterSeconds} s.`);
    e.headers['Retry-After'] = String(retryAfterSeconds);
    return e;
  },
  maintenance: (until: string) => {
    const e = one(503, 'scheduledServerMaintenance', 'Scheduled Server Maintenance', `The service is under maintenance until ${until}.`);
    e.headers['Retry-After'] = until;
    return e;
  },
};

/** `10 MiB`, `64 KiB`: limits in error messages. */
function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
