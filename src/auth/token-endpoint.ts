/**
 * `POST {auth_url}/oauth/token` (spec, Authentication § Token request): form-encoded, for the
 * `authorization_code` and `refresh_token` grants. The trace shows the grant and the status,
 * never the body: it carries the client secret, the code and the tokens.
 */
import type { Dispatcher } from 'undici';
import { boundedRequest } from '../api/bounded-response.js';
import { createAgent } from '../api/undici-lite.js';
import { describeNetworkError } from '../api/network-errors.js';
import { ExitCode, InterruptedError, NetworkError, SvcError } from '../errors.js';

/** Tokens from a successful answer. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms, from `expires_in` and the local clock (the server's `created_at` may be skewed). */
  expiresAt?: number;
  /** Space-separated scopes granted. */
  scope?: string;
}

/** The token endpoint refused: `oauthError` is RFC 6749's `error` (`invalid_grant`, …). */
export class TokenEndpointError extends SvcError {
  readonly status: number;
  readonly oauthError: string | undefined;
  /** Seconds to wait, from `Retry-After` on a 429. */
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, status: number, oauthError: string | undefined, retryAfterSeconds?: number) {
    // Refusals of the credentials or the grant are authentication failures (exit 3); rate
    // limits, server errors and malformed answers are API failures (exit 1).
    super(message, status === 400 || status === 401 ? ExitCode.AUTH : ExitCode.API);
    this.status = status;
    this.oauthError = oauthError;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Options of {@link requestToken}. */
interface TokenRequestOptions {
  authUrl: string;
  /** Form parameters: grant_type, client_id, client_secret, and code/redirect_uri or refresh_token. */
  params: Record<string, string>;
  now?: () => number;
  /** @default 30000 */
  timeoutMs?: number;
  signal?: AbortSignal;
  trace?: (line: string) => void;
  dispatcher?: Dispatcher;
}

/** The token endpoint URL of an auth URL. */
function tokenUrl(authUrl: string): URL {
  return new URL('oauth/token', authUrl.replace(/\/*$/, '/'));
}

/** A token answer is a few hundred bytes: anything past this is not one. */
const MAX_TOKEN_ANSWER_BYTES = 1024 * 1024;

/** Sends one token request; resolves to the tokens or throws {@link TokenEndpointError}. */
export async function requestToken(opts: TokenRequestOptions): Promise<TokenSet> {
  const url = tokenUrl(opts.authUrl);
  const now = opts.now ?? Date.now;
  const timeout = opts.timeoutMs ?? 30_000;
  // URLSearchParams percent-encodes every reserved character of the secret (spec: "the client
  // secret must be URL-encoded properly").
  const body = new URLSearchParams(opts.params).toString();
  const started = performance.now();
  let status: number;
  let text: string;
  let retryAfter: string | undefined;
  // A token request is rare: its own short-lived agent, with the same slim undici as the API client.
  const dispatcher = opts.dispatcher ?? createAgent({ headersTimeout: timeout, bodyTimeout: timeout });
  try {
    const res = await boundedRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'user-agent': 'svc' },
        body,
        dispatcher,
      },
      { timeoutMs: timeout, maxBytes: MAX_TOKEN_ANSWER_BYTES, signal: opts.signal, what: `POST ${url}` },
    );
    status = res.statusCode;
    text = res.text;
    const ra = res.headers['retry-after'];
    retryAfter = Array.isArray(ra) ? ra[0] : ra;
  } catch (err) {
    if (err instanceof SvcError) throw err;
    const e = err as { code?: string; message?: string; name?: string };
    if (e.name === 'AbortError' || e.code === 'UND_ERR_ABORTED' || e.code === 'ABORT_ERR' || opts.signal?.aborted)
      throw new InterruptedError();
    // One line a person understands ("connection refused (is the server running?)"), like the API client's.
    throw new NetworkError(`POST ${url}: ${describeNetworkError(err)}`, e.code ?? (err as { cause?: { code?: string } }).cause?.code);
  } finally {
    if (!opts.dispatcher) void dispatcher.close();
  }
  opts.trace?.(`POST ${url} (grant_type=${opts.params.grant_type}) → ${status} (${Math.round(performance.now() - started)} ms)`);
  const parsed = parseJson(text);
  if (status >= 200 && status < 300) return tokenSetFrom(parsed, now());
  throw tokenError(status, parsed, retryAfter);
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The tokens of a 2xx answer. */
export function tokenSetFrom(body: Record<string, unknown> | undefined, nowMs: number): TokenSet {
  const access = body?.access_token;
  if (typeof access !== 'string' || !access) {
    throw new TokenEndpointError('token endpoint: the answer has no access_token', 502, undefined);
  }
  const set: TokenSet = { accessToken: access };
  if (typeof body!.refresh_token === 'string' && body!.refresh_token) set.refreshToken = body!.refresh_token;
  const expiresIn = Number(body!.expires_in);
  if (body!.expires_in !== undefined && Number.isFinite(expiresIn) && expiresIn > 0) set.expiresAt = nowMs + expiresIn * 1000;
  if (typeof body!.scope === 'string') set.scope = body!.scope;
  return set;
}

/** An error answer: RFC 6749 `{error, error_description}` or a JSON:API error document. */
export function tokenError(status: number, body: Record<string, unknown> | undefined, retryAfter?: string): TokenEndpointError {
  let code = typeof body?.error === 'string' ? body.error : undefined;
  let detail = typeof body?.error_description === 'string' ? body.error_description : undefined;
  const list = Array.isArray(body?.errors) ? (body!.errors as Record<string, unknown>[]) : [];
  if (!code && list[0]) {
    code = typeof list[0].id === 'string' ? list[0].id : undefined;
    detail = [list[0].title, list[0].detail].filter((x) => typeof x === 'string').join(': ') || undefined;
  }
  const seconds = retryAfter !== undefined && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
  let message = `token request refused (HTTP ${status}${code ? `, ${code}` : ''})${detail ? `: ${detail}` : ''}`;
  if (status === 429) {
    message = `token request refused: too many token requests (the API issues one access token per user per 60 s)${seconds !== undefined ? `; retry in ${seconds} s` : ''}`;
  }
  return new TokenEndpointError(message, status, code, seconds);
}
