/**
 * `svc webhooks cleanup|listen|verify|trigger`, added to the `webhooks` resource command that
 * the registry builder made (create, list, get, update, delete). Wiring only: each handler loads
 * when its command runs.
 */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';

/** Default port of `webhooks listen` (fixed, so a tunnel can point at it). */
const DEFAULT_LISTEN_PORT = 9797;

/** Adds the webhook tools to the existing `webhooks` command (no-op if it is missing). */
export function registerWebhookCommands(program: Command, app: App): void {
  const webhooks = program.commands.find((c) => c.name() === 'webhooks');
  if (!webhooks) return;

  webhooks
    .command('cleanup')
    .description('remove a webhook with its cleanup token (POST /webhooks/cleanup; no login needed)')
    .option('--cleanup-token <token>', 'the cleanupToken returned at creation, or - to read it from stdin (SVC_WEBHOOK_CLEANUP_TOKEN)')
    .addHelpText(
      'after',
      '\nExit 0 when removed or already gone, 3 when the token is not valid.\n\nExamples:\n  $ svc webhooks cleanup --cleanup-token "$TOKEN"\n  $ pass show svc/hook | svc webhooks cleanup --cleanup-token -\n',
    )
    .action(async (opts: { cleanupToken?: string }, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { cleanupHandler } = await import('./cleanup.js');
      await runCommand(app, cmd, (ctx) => cleanupHandler(ctx, opts));
    });

  webhooks
    .command('listen')
    .description('receive webhook deliveries on 127.0.0.1, check signatures, print or forward them')
    .option('-p, --port <n>', `port on 127.0.0.1 (0 for any free port)`, String(DEFAULT_LISTEN_PORT))
    .option('--secret <s>', 'refuse deliveries not signed with this secret (SVC_WEBHOOK_SECRET)')
    .option(
      '--forward-to <url>',
      're-post each accepted delivery (raw body and headers, not the cleanup token) to this URL: http only on this machine, else https',
    )
    .option('--register', 'create webhooks pointing here for the run, remove them on exit')
    .option('--public-url <url>', 'with --register against a real service: the HTTPS address that reaches this listener')
    .option('--events <list>', 'resource.action,... to register (default *.*) and to print; a bare resource means all its actions')
    .option('--payload-version <n>', 'payload version of registered webhooks and of --catch-up deliveries (1 or 2; 2 adds old values)', '2')
    .option(
      '--catch-up',
      'with --forward-to: feed the receiver from the events resource, first what it missed since its cursor, then each event once, in order',
    )
    .option(
      '--cursor-file <file>',
      'with --catch-up: where the cursor is kept (default: one per profile, API and receiver in the data directory)',
    )
    .option(
      '--every <share|interval>',
      'with --catch-up: poll within this share of the hourly request budget (2%) or at most this often (30s)',
    )
    .addHelpText(
      'after',
      `
Prints one block per delivery (event, record, attributes; old → new with payload version 2),
or one JSON object per line with -o ndjson (or -o json), or the raw bodies with -o raw.
Warnings about refused deliveries go to stderr. Stop with Ctrl-C.

With --catch-up, what the receiver gets comes from the events resource: on start what happened
since the cursor, then new events as they come (a live delivery makes it poll at once), each
with its id in Svc-Event-Id. One the receiver does not take (not 2xx, no answer in 5 s) is sent
again after growing pauses; the cursor does not pass it.

Examples:
  $ svc --sandbox webhooks listen --register --events prospect.created,prospect.updated
  $ svc webhooks listen --secret "$SECRET" --forward-to http://localhost:3000/hooks
  $ svc webhooks listen --register --public-url https://abc.tunnel.example --events task.completed
  $ svc webhooks listen --forward-to http://localhost:3000/hooks --catch-up --secret "$SECRET"
`,
    )
    .action(async (opts, cmd: Command) => {
      const { listenHandler } = await import('./listen.js');
      await runCommand(app, cmd, (ctx) => listenHandler(ctx, opts));
    });

  webhooks
    .command('verify')
    .description('check a delivery body against its Service-Webhook-Signature (exit 0 match, 1 no match)')
    .argument('[file]', 'the raw body: a file, or - / nothing for stdin')
    .option('--secret <s>', 'the webhook secret (SVC_WEBHOOK_SECRET)')
    .option('--signature <hex>', 'the Service-Webhook-Signature header value')
    .addHelpText(
      'after',
      '\nExamples:\n  $ svc webhooks verify --secret "$SECRET" --signature 3f9a… body.json\n  $ cat body.json | svc webhooks verify --secret "$SECRET" --signature "$SIG"\n',
    )
    .action(async (file: string | undefined, opts: { secret?: string; signature?: string }, cmd: Command) => {
      const { verifyHandler } = await import('./verify.js');
      await runCommand(app, cmd, (ctx) => verifyHandler(ctx, file, opts));
    });

  webhooks
    .command('trigger')
    .description('post a realistic, signed sample delivery of an event to a local receiver')
    .argument('<event>', 'resource.action, e.g. prospect.created, task.completed, mailing.opened')
    .requiredOption('--to <url>', 'the receiver (your app, or svc webhooks listen)')
    .option('--secret <s>', 'sign the body with this secret (SVC_WEBHOOK_SECRET)')
    .option('--payload-version <n>', '1 or 2 (2 adds beforeUpdate)', '1')
    .option('--id <n>', 'id of the sample record', '42')
    .addHelpText(
      'after',
      '\nExit 0 when the receiver answered 2xx, 1 otherwise.\n\nExamples:\n  $ svc webhooks trigger prospect.updated --to http://localhost:3000/hooks --secret "$SECRET" --payload-version 2\n  $ svc webhooks trigger task.completed --to http://127.0.0.1:9797/ --dry-run\n',
    )
    .action(async (event: string, opts, cmd: Command) => {
      const { triggerHandler } = await import('./trigger.js');
      await runCommand(app, cmd, (ctx) => triggerHandler(ctx, event, opts));
    });
}
