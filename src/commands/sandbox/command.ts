/** `svc sandbox`: a local server that behaves like the API. */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';
import type { SandboxFlags } from './flags.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function registerSandbox(program: Command, app: App): void {
  program
    .command('sandbox')
    .description('run a local server that behaves like the API (state, rules, OAuth, webhooks, limits)')
    .option('--host <host>', 'address to listen on (loopback by default)', '127.0.0.1')
    .option('--port <n>', 'port (default: a free one)')
    .option('--data <file>', 'persist the org to this JSON file across restarts (written atomically)')
    .option('--seed <n>', 'demo org with N prospects (deterministic); default a small org')
    .option('--duplicates <percent>', 'plant duplicates of this percentage of the prospects, and as many near-misses (truth in externalId)')
    .option('--latency <ms>', 'delay every response by MS milliseconds')
    .option('--rate-limit <n>', 'requests per user per hour (default 10000)')
    .option('--token-interval <seconds>', 'minimum seconds between access tokens per user (default 60)')
    .option('--maintenance-until <iso>', 'answer 503 scheduledServerMaintenance until this ISO time')
    .option(
      '--from-profile <name>',
      "write an org file (--data, default ./svc-org-NAME.json) copied from this profile's real org, read-only, then exit",
    )
    .option('--sample <n>', 'with --from-profile: prospects to copy (default 1000)')
    .option('--filter <type:expr>', 'with --from-profile: which records to copy, e.g. prospect:title=CEO (repeatable)', collect)
    .option('--keep-domains', 'with --from-profile: keep e-mail and web domains instead of mapping them to fake ones')
    .option('--no-anonymise', 'with --from-profile: copy names, addresses, numbers and texts as they are (a warning says so)')
    .option('--budget <n>', 'with --from-profile: requests the copy may use (default 1000; the API allows 10000 per hour)')
    .addHelpText(
      'after',
      '\nPrints baseUrl, authUrl, an OAuth client (clientId, clientSecret) and a ready token with every\nscope (--json: one JSON line). While it runs, `svc --sandbox …` in another terminal uses it.\n\nWith --from-profile it copies a real org instead (anonymised unless --no-anonymise) and exits;\n`svc --sandbox-data FILE …` then runs any command against the copy.\n\nExamples:\n  $ svc sandbox --port 8080 --data org.json\n  $ svc sandbox --seed 100000 --json\n  $ svc sandbox --from-profile prod --sample 500 --filter prospect:title=CEO --data prod-copy.json\n',
    )
    .action(async (opts: SandboxFlags, cmd: Command) => {
      if (opts.fromProfile !== undefined) {
        // `--budget` is also the global option (the shared rate budget), which commander gives
        // the value: for a copy the two mean the same, the requests it may use.
        opts.budget ??= (cmd.optsWithGlobals() as { budget?: string }).budget;
        const { fromProfileHandler } = await import('./from-profile.js');
        await runCommand(app, cmd, (ctx) => fromProfileHandler(ctx, opts.fromProfile!, opts));
        return;
      }
      // Performance machinery (src/README.md, Build): loaded with import() when first used.
      const { sandboxHandler } = await import('./handler.js');
      await runCommand(app, cmd, (ctx) => sandboxHandler(ctx, opts));
    });
}
