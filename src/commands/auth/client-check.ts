/**
 * Two dead ends of `svc login` turned into something that finishes:
 *
 * - A client id the authorization server does not know (a sandbox restarted with a new client,
 *   a typo) makes the browser show "Unknown application" while svc waits for a redirect that
 *   never comes. The authorize page is fetched once before any browser opens (a GET with no
 *   side effect); a refusal without a redirect ends the login at once, saying how to fix it.
 * - The API issues one access token per user per minute: a second login within the minute is
 *   answered 429 with `Retry-After` after the browser flow. The code stays valid, so the wait
 *   (under a minute) is counted down and the exchange repeated.
 */
import { type BoundedResponse, getOnce } from '../../api/bounded-response.js';
import type { Context } from '../../runtime/context.js';
import { AuthError } from '../../errors.js';

/** How long the authorize page may take to answer the client check. */
const PREFLIGHT_TIMEOUT_MS = 5000;
/** An authorize page past this is no refusal page; the browser may show it. */
const PAGE_MAX_BYTES = 1024 * 1024;

/** The authorization server refused the login request itself (no redirect to the loopback). */
export class LoginRefusedError extends AuthError {
  /** The page says it does not know the client id. */
  readonly unknownClient: boolean;
  constructor(
    readonly clientId: string,
    status: number,
    page: string,
  ) {
    super(`the authorization server refused the login before the browser opened (HTTP ${status}): ${page || 'no details'}`);
    this.unknownClient = /unknown (application|client)|invalid_client|no application/i.test(page);
  }
}

/** GETs the authorize URL without following redirects: a 4xx page means the browser would stop there. */
export async function preflightAuthorize(ctx: Context, url: string, clientId: string): Promise<void> {
  let res: BoundedResponse;
  try {
    // A short look: a slow server must not delay the login more than a moment.
    res = await getOnce(
      new URL(url),
      { accept: 'text/html,*/*' },
      {
        timeoutMs: Math.min(ctx.globals.timeoutMs, PREFLIGHT_TIMEOUT_MS),
        maxBytes: PAGE_MAX_BYTES,
        signal: ctx.signal,
        what: 'GET authorize page',
      },
    );
  } catch {
    // Unreachable, slow or endless: the browser will say so better than a guess here.
    return;
  }
  ctx.trace(`GET authorize page (client check) → ${res.statusCode}`);
  if (res.statusCode < 400 || res.statusCode >= 500) return;
  const text = res.text
    .replace(/<(title|style|script)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z#0-9]+;/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 240);
  const refused = new LoginRefusedError(clientId, res.statusCode, text);
  // Only a page about the client or the redirect URI ends the login: some servers answer 4xx
  // with a sign-in page, which the browser gets past.
  if (refused.unknownClient || /redirect[ _]?ur[il]/i.test(text)) throw refused;
}

/** Hints for a refused client id that svc could not replace on its own. */
export function addClientHints(err: LoginRefusedError, authUrl: string): LoginRefusedError {
  if (!err.unknownClient) return err;
  err.hint(
    `${authUrl} does not know the client id "${err.clientId}": a restarted sandbox has a new one (\`svc sandbox\` prints its clientId and clientSecret)`,
  );
  err.hint('log in with the current client: `svc login --client-id ID --client-secret SECRET` (or SVC_CLIENT_ID/SVC_CLIENT_SECRET)');
  err.hint('against a local sandbox, `svc --sandbox …` needs no login at all');
  return err;
}

/**
 * Waits `seconds` with a countdown on stderr (one line rewritten on a terminal, one line
 * otherwise); Ctrl-C ends the wait.
 */
export async function countdown(ctx: Context, seconds: number, what: string): Promise<void> {
  const tty = ctx.io.stderrIsTTY;
  if (!tty) ctx.info(`${what}: waiting ${seconds} s…`);
  for (let left = seconds; left > 0; left--) {
    if (tty) ctx.io.stderr.write(`\r${what}: retrying in ${left} s… \x1b[K`);
    await ctx.clock.sleep(1000, ctx.signal);
  }
  if (tty) ctx.io.stderr.write('\r\x1b[K');
}
