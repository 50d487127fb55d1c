/**
 * `svc events tail|replay`, added to the `events` resource command the registry builder made
 * (list, get, create). Wiring only: each handler loads when its command runs.
 */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds the event tools to the existing `events` command (no-op if it is missing). */
export function registerEventCommands(program: Command, app: App): void {
  const events = program.commands.find((c) => c.name() === 'events');
  if (!events) return;

  events
    .command('tail')
    .description('print events as they happen (polls the events resource: no tunnel, no webhook)')
    .option('-f, --follow', 'keep polling until Ctrl-C')
    .option('--name <glob...>', 'event names: prospect_created, task_*, *_destroyed (prospect.created works too)', collect)
    .option('--prospect <id>', "only this prospect's events")
    .option('--since <time>', 'a span back (30s, 15m, 2h, 7d), today, yesterday, a local day (2026-11-28) or a date-time (…T09:00Z)')
    .option('--since-cursor <cursor>', 'continue exactly where an earlier tail stopped (it prints the cursor on stderr)')
    .option('--cursor-file <file>', 'keep the cursor in this file: continue from it, save it after each batch printed')
    .option('--every <share|interval>', 'poll within this share of the hourly request budget (2%) or at most this often (30s)', '2%')
    .option('--last <n>', 'without --since: the last n events first', '10')
    .option('--overlap <seconds>', 'window read again on each poll, for events that become visible late', '10')
    .addHelpText(
      'after',
      `
Events print once each, in (createdAt, id) order, none skipped across same-second events and
restarts: a one-line view on a terminal (relative times), or any -o format. On Ctrl-C, or at the
end without --follow, stderr says the cursor to continue from with --since-cursor. With
--cursor-file a script keeps it in a file instead (--since then applies to the first run only).

Examples:
  $ svc events tail --follow
  $ svc events tail --follow --name 'prospect_*' -o ndjson > events.ndjson
  $ svc events tail --since 2h --name task_completed
  $ svc events tail --follow --since-cursor "$CURSOR"
  $ svc events tail --cursor-file events.cursor --since 1h -o ndjson >> events.ndjson
`,
    )
    .action(async (opts, cmd: Command) => {
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { tailHandler } = await import('./tail.js');
      await runCommand(app, cmd, (ctx) => tailHandler(ctx, opts));
    });

  events
    .command('replay')
    .description('re-deliver a window of past events to a webhook receiver (signed, throttled)')
    .requiredOption('--since <time>', 'window start: a span back (2h), a day or a date-time')
    .option('--until <time>', 'end of the window (default: now)')
    .requiredOption('--to <url>', 'the receiver: http only on this machine, else https')
    .option('--secret <s>', 'sign each body as the webhook would (SVC_WEBHOOK_SECRET)')
    .option('--payload-version <n>', 'delivery shape: 1, or 2 with beforeUpdate', '2')
    .option('--name <glob...>', 'only these event names (prospect_*, task_completed)', collect)
    .option('--prospect <id>', "only this prospect's events")
    .option('--rate <n>', 'deliveries per second at most', '10')
    .option('--plan', 'count the deliveries and show the window; send nothing')
    .addHelpText(
      'after',
      `
Each delivery carries the event's id in Svc-Event-Id, so a receiver can drop one it already has.
A receiver that answers anything but 2xx, or not within 5 s, gets the delivery again after a
growing pause; after 6 attempts the replay stops and says where to resume (exit 1), as Ctrl-C
does (exit 130).

Examples:
  $ svc events replay --since 2h --to http://localhost:3000/hooks --plan
  $ svc events replay --since 3h --until 2h --to https://hooks.example.com/in --secret "$SECRET"
`,
    )
    .action(async (opts, cmd: Command) => {
      const { replayHandler } = await import('./replay.js');
      await runCommand(app, cmd, (ctx) => replayHandler(ctx, opts));
    });
}
