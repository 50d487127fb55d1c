/**
 * `svc login`: the OAuth authorization-code flow through the browser (browser-flow.ts), or
 * `--with-token` for CI; stores the tokens in the profile and says who is logged in.
 */
import type { ConfigStore, Profile } from '../../auth/config.js';
import { printValue } from '../shared/output.js';
import { DEFAULT_LOGIN_PORT } from '../../auth/loopback.js';
import { isScopeShaped, normaliseScopes, scopesToAsk } from '../../auth/scopes.js';
import { TOKEN_KEYS, updateProfile } from '../../auth/store-lock.js';
import type { TokenSet } from '../../auth/token-endpoint.js';
import { describeUser, type RootInfo } from '../../auth/whoami.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { ApiError, AuthError, UsageError } from '../../errors.js';
import { readState } from '../../local-sandbox/state-file.js';
import type { LoginFlags } from './flags.js';
import { loginTarget } from './login-target.js';
import { fetchRootWithToken, resolveClient } from './shared.js';
import { parsePort, parsePositiveNumber } from '../../runtime/option-parsers.js';

/** How long `svc login` waits for the browser by default (seconds). */
const DEFAULT_LOGIN_TIMEOUT_S = 300;

export async function loginHandler(ctx: Context, flags: LoginFlags): Promise<void> {
  if (ctx.globals.sandbox) throw new UsageError('--sandbox needs no login: the sandbox hands svc its own token');
  if (ctx.globals.token) ctx.warn('SVC_TOKEN/--token is set: later commands will use it instead of this login');
  const store = await ctx.config();
  const name = store.currentName();
  const existing = store.get(name);
  const { baseUrl, authUrl, moved } = await loginTarget(ctx, existing, name);
  // A profile moved to another API keeps none of the old one's client: its secret stays home.
  const own = moved ? undefined : existing;
  if (flags.withToken) return loginWithToken(ctx, flags, store, name, existing, own, { baseUrl, authUrl });

  const port = parsePort(flags.port ?? existing?.port ?? DEFAULT_LOGIN_PORT);
  const timeoutMs =
    (flags.loginTimeout === undefined ? DEFAULT_LOGIN_TIMEOUT_S : parsePositiveNumber(flags.loginTimeout, '--login-timeout', 'seconds')) *
    1000;
  const scopes = normaliseScopes(scopesToAsk(flags.scopes, existing?.scopes));
  if (!scopes) throw new UsageError('--scopes: give at least one scope, e.g. "prospects.read accounts.all"');
  const odd = scopes.split(' ').filter((s) => !isScopeShaped(s));
  if (odd.length) throw new UsageError(`--scopes: ${odd.join(', ')} is not <collection>.<read|write|delete|all> (e.g. prospects.read)`);
  let client = await resolveClient(ctx, flags, own, true);

  let root: RootInfo = {};
  // Performance machinery (src/README.md, Build): loaded with import() when first used.
  const { browserLogin } = await import('./browser-flow.js');
  const login = () =>
    browserLogin(ctx, {
      authUrl,
      clientId: client.clientId!,
      clientSecret: client.clientSecret!,
      scopes,
      port,
      pkce: flags.pkce === true,
      openBrowser: flags.browser !== false,
      timeoutMs,
      finish: async (t) => {
        root = await whoIs(ctx, baseUrl, authUrl, t.accessToken);
        await save(ctx, store, name, {
          baseUrl,
          authUrl,
          clientId: client.clientId,
          clientSecret: client.clientSecret,
          scopes,
          // Remember a port given explicitly: the redirect URI registered with the app uses it.
          port: flags.port !== undefined && port !== 0 ? port : existing?.port,
          tokens: t,
          root,
          replaceClient: moved,
        });
        return describeUser(root.user);
      },
    });
  let tokens: TokenSet;
  try {
    tokens = await login();
  } catch (err) {
    const { LoginRefusedError, addClientHints } = await import('./client-check.js');
    if (!(err instanceof LoginRefusedError)) throw err;
    // The profile's client was rejected and the sandbox at this address has another: a
    // restarted sandbox. Use its current client (svc registered none of its own to lose).
    const fromProfile = flags.clientId === undefined && !ctx.env.SVC_CLIENT_ID;
    const fresh = err.unknownClient && fromProfile ? sandboxClient(ctx, authUrl, client.clientId) : undefined;
    if (!fresh) throw addClientHints(err, authUrl);
    ctx.warn(
      `the sandbox at ${authUrl} no longer knows client ${client.clientId} (it was restarted): logging in with its current client ${fresh.clientId}`,
    );
    ctx.addSecret(fresh.clientSecret);
    client = fresh;
    tokens = await login();
  }
  await report(ctx, store, name, baseUrl, root, tokens);
}

/** The OAuth client of the running local sandbox at `authUrl`, when it differs from `stale`. */
function sandboxClient(ctx: Context, authUrl: string, stale: string | undefined): { clientId: string; clientSecret: string } | undefined {
  const running = readState(ctx.env);
  if (!running?.clientId || !running.clientSecret || running.clientId === stale) return undefined;
  if (new URL(running.authUrl).origin !== new URL(authUrl).origin) return undefined;
  return { clientId: running.clientId, clientSecret: running.clientSecret };
}

/** `GET {base_url}`; a failure other than 401 does not undo a login that worked. */
async function whoIs(ctx: Context, baseUrl: string, authUrl: string, token: string): Promise<RootInfo> {
  try {
    return await fetchRootWithToken(ctx, baseUrl, authUrl, token);
  } catch (err) {
    if (err instanceof AuthError) throw err;
    ctx.warn(`logged in, but GET ${baseUrl} failed: ${err instanceof ApiError ? err.message : String((err as Error).message ?? err)}`);
    return {};
  }
}

interface SaveInput {
  baseUrl: string;
  authUrl: string;
  clientId?: string;
  clientSecret?: string;
  scopes?: string;
  port?: number;
  tokens: TokenSet;
  root: RootInfo;
  /** The login moved the profile to another API: the old client id and secret are dropped. */
  replaceClient: boolean;
}

/** Writes the login into the profile (under the store lock), replacing any previous tokens. */
async function save(ctx: Context, store: ConfigStore, name: string, s: SaveInput): Promise<void> {
  await updateProfile(
    store,
    name,
    (cur) => {
      const next: Profile = { ...cur };
      for (const k of TOKEN_KEYS) delete next[k];
      return {
        ...next,
        baseUrl: s.baseUrl,
        authUrl: s.authUrl,
        clientId: s.replaceClient ? s.clientId : (s.clientId ?? cur?.clientId),
        clientSecret: s.replaceClient ? s.clientSecret : (s.clientSecret ?? cur?.clientSecret),
        scopes: s.scopes ?? cur?.scopes,
        port: s.port,
        accessToken: s.tokens.accessToken,
        refreshToken: s.tokens.refreshToken,
        expiresAt: s.tokens.expiresAt,
        tokenScopes: s.tokens.scope ?? s.root.scopes?.join(' '),
        user: s.root.user,
      };
    },
    ctx.signal,
  );
  // The first login of a store makes its profile the default for later commands.
  if (!store.storedCurrent() && name !== 'default' && !store.get('default')) await store.use(name);
}

async function report(ctx: Context, store: ConfigStore, name: string, baseUrl: string, root: RootInfo, tokens: TokenSet): Promise<void> {
  const who = describeUser(root.user) ?? 'an unknown user';
  ctx.info(
    `Logged in to ${baseUrl} as ${who}${root.organization ? ` in ${root.organization}` : ''}; profile "${name}" saved in ${store.path}.`,
  );
  if (!tokens.refreshToken) ctx.warn(`the server sent no refresh token: run \`${svcAgain(ctx)} login\` again when the token expires`);
  if (ctx.globals.output === 'json') {
    const out = {
      profile: name,
      baseUrl,
      user: root.user ?? null,
      scopes: tokens.scope ?? null,
      expiresAt: tokens.expiresAt ? new Date(tokens.expiresAt).toISOString() : null,
    };
    await printValue(ctx, 'json', out, () => '');
  }
}

/** `--with-token`: an access token (and a refresh token on a second line) from stdin. */
async function loginWithToken(
  ctx: Context,
  flags: LoginFlags,
  store: ConfigStore,
  name: string,
  existing: Profile | undefined,
  own: Profile | undefined,
  { baseUrl, authUrl }: { baseUrl: string; authUrl: string },
): Promise<void> {
  const text = ctx.io.stdinIsTTY ? await (await ctx.prompter()).password('Access token') : await readAll(ctx.io.stdin);
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  if (!lines.length) throw new UsageError('--with-token: no token on stdin (line 1: access token, optional line 2: refresh token)');
  if (lines.length > 2 || lines.some((l) => /\s/.test(l)))
    throw new UsageError('--with-token: expected one access token, optionally a refresh token on a second line');
  const [accessToken, refreshToken] = lines as [string, string | undefined];
  ctx.addSecret(accessToken);
  ctx.addSecret(refreshToken);
  const client = await resolveClient(ctx, flags, own, false);
  // Check the token before storing it: a typo should not replace a working login.
  const root = await fetchRootWithToken(ctx, baseUrl, authUrl, accessToken);
  const tokens: TokenSet = {
    accessToken,
    ...(refreshToken ? { refreshToken } : {}),
    ...(root.expiresIn !== undefined ? { expiresAt: ctx.clock.now() + root.expiresIn * 1000 } : {}),
    ...(root.scopes ? { scope: root.scopes.join(' ') } : {}),
  };
  await save(ctx, store, name, {
    baseUrl,
    authUrl,
    ...client,
    tokens,
    root,
    port: existing?.port,
    scopes: existing?.scopes,
    replaceClient: own !== existing,
  });
  if (refreshToken && (!client.clientId || !client.clientSecret)) {
    ctx.warn('a refresh token needs the OAuth client to be used: pass --client-id/--client-secret or set SVC_CLIENT_ID/SVC_CLIENT_SECRET');
  }
  const who = describeUser(root.user) ?? 'an unknown user';
  ctx.info(`Logged in to ${baseUrl} as ${who} with the given token; profile "${name}" saved in ${store.path}.`);
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = '';
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => (s += d));
    stream.on('end', () => resolve(s));
    stream.on('error', reject);
  });
}
