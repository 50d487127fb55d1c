/**
 * Wiring of `svc login`, `svc logout`, `svc auth status|token` and `svc profiles list|use|remove`.
 * Handlers load when a command runs.
 */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';
import { COMMAND_GROUP, SETTINGS_GROUP } from '../../runtime/help-layout.js';
import type { LoginFlags } from './flags.js';

const LOGIN_HELP = `
The browser opens at {auth_url}/oauth/authorize; after you approve, it returns to
http://127.0.0.1:<port>/callback, where svc exchanges the code for tokens and stores them in the
profile (a file readable by you alone). Register that redirect URI with your application.

A profile keeps the API it was made for: a login to other hosts than the profile's, or with
the base and auth URL on different hosts, says so and asks first (refused without a terminal
unless --yes confirms it). Log in to another API under its own profile (--profile NAME).

Examples:
  $ svc login --base-url https://api.example.com/api/v2 --client-id ID
  $ svc login --no-browser                  # print the URL; open it on any machine
  $ svc --profile staging login --scopes "prospects.read accounts.read"
  $ printf '%s\\n%s\\n' "$ACCESS" "$REFRESH" | svc login --with-token
`;

/** Registers the login, auth and profile commands. */
export function registerAuth(program: Command, app: App): void {
  program.commandsGroup(SETTINGS_GROUP);
  program
    .command('login')
    .description('log in through your browser (OAuth authorization code) and store the tokens in the profile')
    .option('--client-id <id>', 'OAuth client id of your application (SVC_CLIENT_ID)')
    .option('--client-secret <secret>', 'OAuth client secret (SVC_CLIENT_SECRET; prefer the variable: flags show in ps)')
    .option(
      '--scopes <list>',
      'scopes to ask for, space- or comma-separated (default: <collection>.all of the common types, and .read of stages and personas for svc sync; see docs/login.md)',
    )
    .option('--port <n>', 'loopback port of the redirect URI http://127.0.0.1:<port>/callback (default 8976; 0 = any free port)')
    .option('--no-browser', 'print the authorize URL instead of opening a browser (and accept a pasted redirect URL on a terminal)')
    .option('--pkce', 'also send a PKCE code_challenge (S256), for servers that support it')
    .option('--with-token', 'read an access token (and optionally a refresh token on a second line) from stdin; no browser')
    .option('--login-timeout <seconds>', 'how long to wait for the browser (default 300)')
    .addHelpText('after', LOGIN_HELP)
    .action(async (opts: LoginFlags, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { loginHandler } = await import('./login.js');
      await runCommand(app, cmd, (ctx) => loginHandler(ctx, opts));
    });

  program
    .command('logout')
    .description("delete the profile's tokens (client settings stay for the next login)")
    .action(async (_opts: unknown, cmd: Command) => {
      const { logoutHandler } = await import('./logout.js');
      await runCommand(app, cmd, (ctx) => logoutHandler(ctx));
    });

  const auth = program.command('auth').description('the login of the current profile');
  auth
    .command('status')
    .description('profile, URLs, scopes, expiry, and who the token belongs to (asks GET {base_url})')
    .action(async (_opts: unknown, cmd: Command) => {
      const { statusHandler } = await import('./status.js');
      await runCommand(app, cmd, (ctx) => statusHandler(ctx));
    });
  auth
    .command('token')
    .description('print a valid access token, refreshing it first if it expires within a minute')
    .addHelpText(
      'after',
      '\nThe only command that prints a token. Example:\n  $ curl -H "Authorization: Bearer $(svc auth token)" "$BASE_URL/prospects"\n',
    )
    .action(async (_opts: unknown, cmd: Command) => {
      const { tokenHandler } = await import('./token.js');
      await runCommand(app, cmd, (ctx) => tokenHandler(ctx));
    });

  const profiles = program.command('profiles').description('list, choose and remove profiles');
  profiles
    .command('list')
    .description('every profile: base URL, user, login state; * marks the current one')
    .action(async (_opts: unknown, cmd: Command) => {
      const { listProfiles } = await import('./profiles.js');
      await runCommand(app, cmd, (ctx) => listProfiles(ctx));
    });
  profiles
    .command('use')
    .description('make a profile the default for later commands')
    .argument('<name>', 'profile name')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const { useProfile } = await import('./profiles.js');
      await runCommand(app, cmd, (ctx) => useProfile(ctx, name));
    });
  profiles
    .command('remove')
    .description('delete a profile and its tokens')
    .argument('<name>', 'profile name')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const { removeProfile } = await import('./profiles.js');
      await runCommand(app, cmd, (ctx) => removeProfile(ctx, name));
    });
  program.commandsGroup(COMMAND_GROUP);
}
