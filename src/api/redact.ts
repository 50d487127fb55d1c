/**
 * Redaction of secrets from anything that may be printed: URLs, headers, bodies, messages.
 * Traces and errors pass through here so tokens, client secrets, codes and cleanup tokens never show.
 *
 * A value is hidden whole, whatever characters it holds: tokens may carry `!`, `$`, `:` and other
 * punctuation, and a redaction that stops at the first odd character would print the rest.
 */

const SECRET_NAMES = 'access_token|refresh_token|client_secret|code|code_verifier|token|secret|cleanupToken|password';
const SECRET_PARAMS = new RegExp(`([?&](?:${SECRET_NAMES})=)[^&#\\s]*`, 'gi');
const SECRET_JSON_KEYS =
  /("(?:access_token|refresh_token|client_secret|clientSecret|code|code_verifier|token|secret|cleanupToken|password|smtpPassword|mailRelayApiKey|accessToken|refreshToken)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;
/**
 * Everything after `Bearer ` up to white space; a quote that closes a JSON string stays, and so
 * does the punctuation after a known secret already replaced by `***`.
 */
const BEARER = /(Bearer\s+)(?!\*\*\*(?:[\s;,.)\]}]|$))(?:[^\s"\\]|\\.)+/gi;

/**
 * The password of a URL's user part (`postgres://user:secret@host`): up to the authority's last
 * `@`, as URL parsers and PostgreSQL read it (a password `Tail@Leak99` printed `Leak99`).
 */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/?#]*:)[^\s/?#]+@/gi;

/** Known secrets shorter than this are not searched for (they would match ordinary words). */
const MIN_SECRET_LENGTH = 6;

/** A URL with secret query parameters replaced by `***`. */
export function redactUrl(url: URL | string): string {
  return String(url).replace(SECRET_PARAMS, '$1***');
}

/**
 * The ways a secret can be written into a text: as is, inside a JSON string, in a URL or a
 * form body (percent-encoded, `+` for a space).
 */
function spellings(secret: string): string[] {
  const forms = new Set([
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
  ]);
  return [...forms];
}

/**
 * Any text with known secrets, bearer tokens, secret query parameters and secret JSON values
 * replaced by `***`. Known secrets go first, longest first: a pattern that replaced part of one
 * would leave its remainder unrecognisable.
 */
export function redactText(text: string, extraSecrets: readonly string[] = []): string {
  let out = text;
  const known = extraSecrets.filter((s) => s && s.length >= MIN_SECRET_LENGTH).flatMap(spellings);
  for (const s of [...new Set(known)].sort((a, b) => b.length - a.length)) out = out.split(s).join('***');
  return out.replace(BEARER, '$1***').replace(SECRET_PARAMS, '$1***').replace(SECRET_JSON_KEYS, '$1"***"').replace(URL_PASSWORD, '$1***@');
}
