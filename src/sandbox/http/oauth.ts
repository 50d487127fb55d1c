/**
 * OAuth 2.0 authorization-code flow of the spec's Authentication section, on `{auth_url}`:
 * a consent page (plain HTML form, no JavaScript) and the token endpoint for
 * `authorization_code` and `refresh_token`. Errors of the token endpoint follow RFC 6749
 * (`{"error":"invalid_grant","error_description":"..."}`, status 400); token fetching faster
 * than one access token per user per interval is a JSON:API 429 `rateLimitExceeded`.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { errors } from '../errors.js';
import type { Core } from './core.js';
import type { HandlerResponse } from './resources.js';
import { isKnownScope } from '../rules/scopes.js';
import { randomToken, type AuthCode } from './auth.js';

/** A response with its own content type. */
interface OAuthResponse extends HandlerResponse {
  contentType?: string;
}

/** Authorization codes live this long and are single-use. */
const CODE_TTL_MS = 60_000;
const REDIRECT = /^http:\/\/(127\.0\.0\.1|localhost):\d{1,5}\/callback$/;

function oauthError(error: string, description: string, status = 400): OAuthResponse {
  return {
    status,
    body: JSON.stringify({ error, error_description: description }),
    contentType: 'application/json',
    headers: { 'Cache-Control': 'no-store' },
  };
}

function html(status: number, title: string, inner: string): OAuthResponse {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body>${inner}</body></html>`;
  return { status, body: page, contentType: 'text/html; charset=utf-8' };
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function redirect(uri: string, params: Record<string, string | undefined>): OAuthResponse {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return { status: 302, headers: { Location: u.toString() } };
}

interface AuthorizeParams {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/** Checks an authorization request; returns an error page, an error redirect, or the params. */
function checkAuthorize(core: Core, p: URLSearchParams): OAuthResponse | AuthorizeParams {
  const clientId = p.get('client_id') ?? '';
  const redirectUri = p.get('redirect_uri') ?? '';
  // Without a known client and an acceptable redirect URI, never redirect (open-redirect guard).
  if (!core.auth.client(clientId))
    return html(400, 'Unknown application', `<h1>Unknown application</h1><p>No application has the client_id ${esc(clientId)}.</p>`);
  if (!REDIRECT.test(redirectUri))
    return html(
      400,
      'Invalid redirect URI',
      `<h1>Invalid redirect URI</h1><p>${esc(redirectUri)} is not registered. Registered: http://127.0.0.1:&lt;port&gt;/callback and http://localhost:&lt;port&gt;/callback.</p>`,
    );
  const state = p.get('state') ?? undefined;
  if (p.get('response_type') !== 'code')
    return redirect(redirectUri, { error: 'unsupported_response_type', error_description: 'response_type must be code.', state });
  const scopes = (p.get('scope') ?? '').split(/[\s+]+/).filter(Boolean);
  const bad = scopes.filter((s) => !isKnownScope(s));
  if (!scopes.length || bad.length)
    return redirect(redirectUri, {
      error: 'invalid_scope',
      error_description: scopes.length ? `Unknown scopes: ${bad.join(' ')}` : 'scope is required.',
      state,
    });
  const codeChallenge = p.get('code_challenge') ?? undefined;
  const codeChallengeMethod = p.get('code_challenge_method') ?? (codeChallenge ? 'plain' : undefined);
  if (codeChallenge && codeChallengeMethod !== 'S256')
    return redirect(redirectUri, { error: 'invalid_request', error_description: 'Only code_challenge_method=S256 is supported.', state });
  return {
    clientId,
    redirectUri,
    scopes,
    ...(state !== undefined ? { state } : {}),
    ...(codeChallenge ? { codeChallenge, codeChallengeMethod } : {}),
  };
}

function consentPage(core: Core, a: AuthorizeParams, query: string): OAuthResponse {
  const app = core.auth.client(a.clientId)!;
  const user = core.store.get('user', core.ownerUserId);
  const who = String(user?.attributes['name'] ?? user?.attributes['email'] ?? `user ${core.ownerUserId}`);
  const hidden = [...new URLSearchParams(query)].map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join('');
  return html(
    200,
    'Authorize application',
    `<h1>Authorize ${esc(app.name)}</h1>
<p>Signed in to <strong>${esc(core.org.name)}</strong> as <strong>${esc(who)}</strong>.</p>
<p><strong>Warning:</strong> this application has development credentials and has not been reviewed.</p>
<p>It asks for these scopes:</p><ul>${a.scopes.map((s) => `<li><code>${esc(s)}</code></li>`).join('')}</ul>
<form method="post" action="/oauth/authorize">${hidden}
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

function authorize(core: Core, req: IncomingMessage, raw: string, body: string): OAuthResponse {
  if (req.method === 'GET') {
    const a = checkAuthorize(core, new URLSearchParams(raw));
    return 'status' in a ? a : consentPage(core, a, raw);
  }
  if (req.method !== 'POST') return html(405, 'Method not allowed', '<h1>Method not allowed</h1>');
  const form = new URLSearchParams(body);
  const a = checkAuthorize(core, form);
  if ('status' in a) return a;
  if (form.get('decision') !== 'approve')
    return redirect(a.redirectUri, { error: 'access_denied', error_description: 'The user denied the request.', state: a.state });
  const code: AuthCode = {
    code: randomToken(),
    clientId: a.clientId,
    redirectUri: a.redirectUri,
    scopes: a.scopes,
    userId: core.ownerUserId,
    expiresAt: Date.now() + CODE_TTL_MS,
    ...(a.codeChallenge ? { codeChallenge: a.codeChallenge, codeChallengeMethod: a.codeChallengeMethod! } : {}),
  };
  core.auth.codes.set(code.code, code);
  return redirect(a.redirectUri, { code: code.code, state: a.state });
}

function issue(core: Core, userId: number, clientId: string, scopes: string[], redirectUri?: string): OAuthResponse {
  const access = core.auth.issueAccess(userId, clientId, scopes, core.opts.accessTokenTtlSeconds);
  const refresh = core.auth.issueRefresh(userId, clientId, scopes);
  if (redirectUri) refresh.redirectUri = redirectUri;
  core.auth.lastIssued.set(userId, Date.now());
  return {
    status: 200,
    contentType: 'application/json',
    headers: { 'Cache-Control': 'no-store' },
    body: JSON.stringify({
      access_token: access.token,
      token_type: 'Bearer',
      expires_in: core.opts.accessTokenTtlSeconds,
      refresh_token: refresh.token,
      scope: scopes.join(' '),
      created_at: Math.floor(access.createdAt / 1000),
    }),
  };
}

/** One access token per user per interval (spec, Limits). */
function checkIssueRate(core: Core, userId: number): void {
  const last = core.auth.lastIssued.get(userId);
  const wait = last === undefined ? 0 : last + core.opts.tokenIssueIntervalMs - Date.now();
  if (wait > 0) throw errors.rateLimited(Math.ceil(wait / 1000));
}

function token(core: Core, req: IncomingMessage, body: string): OAuthResponse {
  if (req.method !== 'POST') return oauthError('invalid_request', 'Use POST.', 405);
  const ct = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (ct !== 'application/x-www-form-urlencoded')
    return oauthError('invalid_request', 'The body must be form-encoded (application/x-www-form-urlencoded).');
  const f = new URLSearchParams(body);
  const need = (names: string[]) => names.filter((n) => !f.get(n));
  const grant = f.get('grant_type');
  const client = core.auth.client(f.get('client_id') ?? '');
  if (grant === 'authorization_code') {
    const missing = need(['client_id', 'client_secret', 'redirect_uri', 'code']);
    if (missing.length) return oauthError('invalid_request', `Missing parameters: ${missing.join(', ')}.`);
    if (!client || client.clientSecret !== f.get('client_secret'))
      return oauthError('invalid_client', 'Unknown client or wrong client secret.');
    const code = core.auth.codes.get(f.get('code')!);
    if (!code || code.expiresAt <= Date.now()) {
      if (code) core.auth.codes.delete(code.code);
      return oauthError('invalid_grant', 'The authorization code is invalid, expired or already used.');
    }
    if (code.clientId !== client.clientId) return oauthError('invalid_grant', 'The authorization code was issued to another client.');
    if (code.redirectUri !== f.get('redirect_uri'))
      return oauthError('invalid_grant', 'redirect_uri does not match the authorization request.');
    if (code.codeChallenge) {
      const verifier = f.get('code_verifier');
      if (!verifier) return oauthError('invalid_grant', 'code_verifier is required (a code_challenge was sent).');
      if (createHash('sha256').update(verifier).digest('base64url') !== code.codeChallenge)
        return oauthError('invalid_grant', 'code_verifier does not match the code_challenge.');
    }
    checkIssueRate(core, code.userId);
    core.auth.codes.delete(code.code);
    return issue(core, code.userId, client.clientId, code.scopes, code.redirectUri);
  }
  if (grant === 'refresh_token') {
    const missing = need(['client_id', 'client_secret', 'refresh_token']);
    if (missing.length) return oauthError('invalid_request', `Missing parameters: ${missing.join(', ')}.`);
    if (!client || client.clientSecret !== f.get('client_secret'))
      return oauthError('invalid_client', 'Unknown client or wrong client secret.');
    const r = core.auth.refresh.get(f.get('refresh_token')!);
    if (!r || r.appId !== client.clientId) return oauthError('invalid_grant', 'The refresh token is invalid, revoked or already used.');
    const uri = f.get('redirect_uri');
    if (uri !== null && r.redirectUri !== undefined && uri !== r.redirectUri)
      return oauthError('invalid_grant', 'redirect_uri does not match the one of the grant.');
    checkIssueRate(core, r.userId);
    // Rotation: a refresh token works once.
    core.auth.refresh.delete(r.token);
    return issue(core, r.userId, client.clientId, r.scopes, r.redirectUri);
  }
  return oauthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
}

/** Handles `/oauth/authorize` and `/oauth/token`. */
export async function handleOAuth(core: Core, req: IncomingMessage, path: string, raw: string, body: string): Promise<OAuthResponse> {
  if (path === '/oauth/authorize') return authorize(core, req, raw, body);
  if (path === '/oauth/token') return token(core, req, body);
  throw errors.noRoute(path);
}
