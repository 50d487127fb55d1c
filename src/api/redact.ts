/**
 * Redaction of secrets from anything that may be printed: URLs, headers, bodies, messages.
 * Traces and errors pass through here so tokens, client secrets, codes and cleanup tokens never show.
 */

const SECRET_PARAMS = /([?&](?:access_token|refresh_token|client_secret|code|code_verifier|token|secret|cleanupToken|password)=)[^&#\s]*/gi;
const SECRET_JSON_KEYS = /("(?:access_token|refresh_token|client_secret|clientSecret|code|code_verifier|token|secret|cleanupToken|password|smtpPassword|mailRelayApiKey|accessToken|refreshToken)"\s*:\s*)"[^"]*"/g;
const BEARER = /(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi;

/** A URL with secret query parameters replaced by `***`. */
export function redactUrl(url: URL | string): string {
  return String(url).replace(SECRET_PARAMS, '$1***');
}

/** Any text with bearer tokens, secret query parameters and secret JSON values replaced. */
export function redactText(text: string, extraSecrets: readonly string[] = []): string {
  let out = text.replace(BEARER, '$1***').replace(SECRET_PARAMS, '$1***').replace(SECRET_JSON_KEYS, '$1"***"');
  for (const s of extraSecrets) {
    if (s && s.length >= 6) out = out.split(s).join('***');
  }
  return out;
}
