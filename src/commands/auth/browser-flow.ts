/**
 * The browser part of `svc login`: loopback listener, authorize URL, browser (or the printed
 * URL), waiting for the one redirect with this login's `state` (or a pasted redirect URL on a
 * terminal), the code exchange, and the page the browser shows at the end.
 */
import { createInterface } from 'node:readline';
import { buildAuthorizeUrl, checkCallback, parsePastedRedirect, type CallbackOutcome } from '../../auth/authorize-url.js';
import { errorPage, exchangeFailedPage, successPage, type CallbackPage } from '../../auth/callback-pages.js';
import { startLoopback, type AcceptedCallback } from '../../auth/loopback.js';
import { pkcePair, randomState } from '../../auth/pkce.js';
import type { TokenSet } from '../../auth/token-endpoint.js';
import type { Context } from '../../runtime/context.js';
import { AuthError, InterruptedError, NetworkError, SvcError } from '../../errors.js';
import { openBrowser } from '../shared/open-browser.js';
import { countdown, preflightAuthorize } from './client-check.js';

/** The longest `Retry-After` of the token endpoint a login waits out (the limit is one token a minute). */
const MAX_ISSUE_WAIT_S = 65;

/** What the flow needs. */
interface BrowserFlowOptions {
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  port: number;
  pkce: boolean;
  openBrowser: boolean;
  timeoutMs: number;
  /** Runs after the exchange, before the browser's page is sent; returns who logged in. */
  finish(tokens: TokenSet): Promise<string | undefined>;
}

type Arrival = { outcome: Extract<CallbackOutcome, { kind: 'code' | 'error' }>; respond(page: CallbackPage): Promise<void> };

/** Runs the flow; resolves to the tokens (already handed to `finish`). */
export async function browserLogin(ctx: Context, o: BrowserFlowOptions): Promise<TokenSet> {
  const state = randomState();
  const pkce = o.pkce ? pkcePair() : undefined;
  ctx.addSecret(pkce?.verifier);
  let loopback: Awaited<ReturnType<typeof startLoopback>>;
  try {
    loopback = await startLoopback({
      port: o.port,
      state,
      onRejected: (why) => ctx.warn(`refused a redirect to the loopback listener: ${why}; still waiting`),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new NetworkError(`cannot listen on 127.0.0.1:${o.port} for the login redirect: ${code ?? String(err)}`, code).hint(
      code === 'EADDRINUSE'
        ? 'another program (another `svc login`?) uses that port: pass --port N and register http://127.0.0.1:N/callback'
        : 'pass --port N',
    );
  }
  const cleanups: (() => void)[] = [];
  try {
    const url = buildAuthorizeUrl({
      authUrl: o.authUrl,
      clientId: o.clientId,
      redirectUri: loopback.redirectUri,
      scopes: o.scopes,
      state,
      codeChallenge: pkce?.challenge,
    });
    // A client id the server does not know would leave the browser on an error page.
    await preflightAuthorize(ctx, url, o.clientId);
    await announce(ctx, url, o, loopback.redirectUri);
    const arrival = await Promise.race<Arrival>([
      loopback.accepted,
      pasted(ctx, o, state, cleanups),
      timeout(o.timeoutMs, loopback.redirectUri, cleanups),
      interrupted(ctx.signal, cleanups),
    ]);
    return await complete(ctx, o, arrival, loopback.redirectUri, pkce?.verifier);
  } finally {
    for (const fn of cleanups) fn();
    await loopback.close(exchangeFailedPage());
  }
}

async function announce(ctx: Context, url: string, o: BrowserFlowOptions, redirectUri: string): Promise<void> {
  const err = ctx.io.stderr;
  const wait = `Waiting up to ${Math.round(o.timeoutMs / 1000)} s for the browser to come back to ${redirectUri} …`;
  if (!o.openBrowser) {
    // The URL on a line of its own: scripts and tests read it from stderr.
    err.write(`Open this URL in a browser to log in:\n${url}\n${wait}\n`);
    if (ctx.io.stdinIsTTY) err.write('If the browser runs on another machine, paste the address it ends on here and press Enter.\n');
    return;
  }
  err.write(`Opening the browser to log in. If it does not open, visit:\n${url}\n${wait}\n`);
  if (!(await openBrowser(url, ctx.env))) ctx.warn('could not start a browser; open the URL above yourself');
}

/** A pasted redirect URL (terminal only, with --no-browser). Never resolves otherwise. */
function pasted(ctx: Context, o: BrowserFlowOptions, state: string, cleanups: (() => void)[]): Promise<Arrival> {
  if (o.openBrowser || !ctx.io.stdinIsTTY) return new Promise(() => {});
  return new Promise((resolve) => {
    const rl = createInterface({ input: ctx.io.stdin, terminal: false });
    cleanups.push(() => {
      rl.close();
      (ctx.io.stdin as NodeJS.ReadStream).pause?.();
    });
    rl.on('line', (line) => {
      const params = parsePastedRedirect(line);
      if (!params) {
        if (line.trim()) ctx.warn('that is not a redirect URL; paste the whole address from the browser');
        return;
      }
      const outcome = checkCallback(params, state);
      if (outcome.kind === 'rejected') {
        ctx.warn(`refused the pasted URL: ${outcome.reason}; still waiting`);
        return;
      }
      resolve({ outcome, respond: async () => {} });
    });
  });
}

function timeout(ms: number, redirectUri: string, cleanups: (() => void)[]): Promise<never> {
  return new Promise((_, reject) => {
    const t = setTimeout(() => {
      reject(
        new AuthError(`timed out after ${Math.round(ms / 1000)} s waiting for the browser to come back to ${redirectUri}`).hint(
          'run `svc login` again (use --login-timeout to wait longer)',
        ),
      );
    }, ms);
    cleanups.push(() => clearTimeout(t));
  });
}

function interrupted(signal: AbortSignal, cleanups: (() => void)[]): Promise<never> {
  return new Promise((_, reject) => {
    const on = () => reject(new InterruptedError('login interrupted'));
    if (signal.aborted) return on();
    signal.addEventListener('abort', on, { once: true });
    cleanups.push(() => signal.removeEventListener('abort', on));
  });
}

/** Reports an error redirect, or exchanges the code and answers the browser. */
async function complete(
  ctx: Context,
  o: BrowserFlowOptions,
  a: AcceptedCallback | Arrival,
  redirectUri: string,
  verifier: string | undefined,
): Promise<TokenSet> {
  if (a.outcome.kind === 'error') {
    const { error, description } = a.outcome;
    await a.respond(errorPage(error, description));
    if (error === 'access_denied') throw new AuthError('access denied: the authorization was declined in the browser; nothing was stored');
    throw new AuthError(`the authorization server refused the login: ${error}${description ? `: ${description}` : ''}`);
  }
  const code = a.outcome.code;
  ctx.addSecret(code);
  const { requestToken, TokenEndpointError } = await import('../../auth/token-endpoint.js');
  let tokens: TokenSet;
  const exchange = () =>
    requestToken({
      authUrl: o.authUrl,
      // Every parameter equal to the ones that started the flow (spec: Token request).
      params: {
        grant_type: 'authorization_code',
        client_id: o.clientId,
        client_secret: o.clientSecret,
        redirect_uri: redirectUri,
        code,
        ...(verifier ? { code_verifier: verifier } : {}),
      },
      now: () => ctx.clock.now(),
      timeoutMs: ctx.globals.timeoutMs,
      signal: ctx.signal,
      trace: (line) => ctx.trace(line),
    });
  try {
    try {
      tokens = await exchange();
    } catch (err) {
      // One access token per user per minute: a second login within it waits the rest out.
      const wait = err instanceof TokenEndpointError && err.status === 429 ? err.retryAfterSeconds : undefined;
      if (wait === undefined || wait > MAX_ISSUE_WAIT_S) throw err;
      await countdown(ctx, wait, 'The API issues one access token per minute');
      tokens = await exchange();
    }
    ctx.addSecret(tokens.accessToken);
    ctx.addSecret(tokens.refreshToken);
    const who = await o.finish(tokens);
    await a.respond(successPage(who));
    return tokens;
  } catch (err) {
    await a.respond(exchangeFailedPage());
    if (err instanceof TokenEndpointError) {
      const e = new SvcError(`could not exchange the authorization code for a token: ${err.message}`, err.exitCode);
      if (err.oauthError === 'invalid_client')
        e.hint('check the client id and secret (--client-id/--client-secret, SVC_CLIENT_ID/SVC_CLIENT_SECRET)');
      throw e;
    }
    throw err;
  }
}
