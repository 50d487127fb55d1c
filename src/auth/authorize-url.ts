/**
 * The authorization request of the spec (Authentication § Authorization request) and the
 * checking of what comes back to the redirect URI.
 */
import { sameSecret } from './pkce.js';

/** What goes into the authorize URL. */
interface AuthorizeRequest {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  /** Space-separated. */
  scopes: string;
  state: string;
  /** S256 challenge when PKCE is on. */
  codeChallenge?: string;
}

/** `{auth_url}/oauth/authorize?client_id=…&redirect_uri=…&response_type=code&scope=…&state=…`. */
export function buildAuthorizeUrl(r: AuthorizeRequest): string {
  const url = new URL('oauth/authorize', r.authUrl.replace(/\/*$/, '/'));
  url.searchParams.set('client_id', r.clientId);
  url.searchParams.set('redirect_uri', r.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', r.scopes);
  url.searchParams.set('state', r.state);
  if (r.codeChallenge) {
    url.searchParams.set('code_challenge', r.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  // URLSearchParams writes spaces as `+`; the spec asks for URL-encoding, so use %20.
  return url.toString().replace(/\+/g, '%20');
}

/** What a redirect to the callback carried, once its `state` has been checked. */
export type CallbackOutcome =
  | { kind: 'code'; code: string }
  | { kind: 'error'; error: string; description?: string }
  /** Not for this login: no state, a wrong state, or neither code nor error. Keep waiting. */
  | { kind: 'rejected'; reason: string };

/**
 * Classifies the query of a callback. An error redirect is believed only with the right
 * state too, so that a forged `error=access_denied` cannot cancel a login.
 */
export function checkCallback(params: URLSearchParams, expectedState: string): CallbackOutcome {
  const state = params.get('state');
  if (state === null || state === '') return { kind: 'rejected', reason: 'the redirect carries no state' };
  if (!sameSecret(state, expectedState)) return { kind: 'rejected', reason: 'the state does not match this login' };
  const error = params.get('error');
  if (error) return { kind: 'error', error, ...(params.get('error_description') ? { description: params.get('error_description')! } : {}) };
  const code = params.get('code');
  if (!code) return { kind: 'rejected', reason: 'the redirect carries neither a code nor an error' };
  return { kind: 'code', code };
}

/**
 * Reads a pasted redirect URL (the user copied it from the browser's address bar); undefined
 * when the text is not a URL with a query.
 */
export function parsePastedRedirect(text: string): URLSearchParams | undefined {
  const t = text.trim();
  if (!t) return undefined;
  try {
    const url = new URL(t);
    return url.search ? url.searchParams : undefined;
  } catch {
    // Some users paste only the query part.
    return t.includes('=') ? new URLSearchParams(t.replace(/^\?/, '')) : undefined;
  }
}
