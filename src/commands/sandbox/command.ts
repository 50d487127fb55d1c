/** `svc sandbox`: a local server that behaves like the API. */
import type { Command } from 'commander';
import { runCommand, type App } from '../../cli/app.js';

/** Options of `svc sandbox`. */
export interface SandboxFlags {
  host: string;
  port?: string;
  data?: string;
  seed?: string;
  latency?: string;
  rateLimit?: string;
  tokenInterval?: string;
  maintenanceUntil?: string;
}

export function registerSandbox(program: Command, app: App): void {
  program
    .command('sandbox')
    .description('run a local server that behaves like the API (state, rules, OAuth, webhooks, limits)')
    .option('--host <host>', 'address to listen on (loopback by default)', '127.0.0.1')
    .option('--port <n>', 'port (default: a free one)')
    .option('--data <file>', 'persist the org to this JSON file across restarts (written atomically)')
    .option('--seed <n>', 'demo org with N prospects (deterministic); default a small org')
    .option('--latency <ms>', 'delay every response by MS milliseconds')
    .option('--rate-limit <n>', 'requests per user per hour (default 10000)')
    .option('--token-interval <seconds>', 'minimum seconds between access tokens per user (default 60)')
    .option('--maintenance-until <iso>', 'answer 503 scheduledServerMaintenance until this ISO time')
    .addHelpText(
      'after',
      '\nPrints baseUrl, authUrl, an OAuth client (clientId, clientSecret) and a ready token with every\nscope (--json: one JSON line). While it runs, `svc --sandbox …` in another terminal uses it.\n\nExamples:\n  $ svc sandbox --port 8080 --data org.json\n  $ svc sandbox --seed 100000 --json\n',
    )
    .action(async (opts: SandboxFlags, cmd: Command) => {
      // Performance machinery (README.md, Build): loaded with import() when first used.
      const { sandboxHandler } = await import('./handler.js');
      await runCommand(app, cmd, (ctx) => sandboxHandler(ctx, opts));
    });
}
