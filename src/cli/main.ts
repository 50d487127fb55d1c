/**
 * Entry point of the bundled CLI. Keeps the start-up path short: `--version` answers before
 * anything else loads (bin/svc answers it even earlier, without loading this file); everything
 * else goes through commander.
 */
import { VERSION } from './version.js';

// Performance machinery (src/README.md, Build): `--version` answered without the bundle; the rest loads with import().
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  try {
    const { runCli } = await import('./run-cli.js');
    process.exitCode = await runCli(argv, process.env, VERSION);
    // The command has finished (outcome decided, journal and files closed): a Ctrl-C while Node
    // winds down ends it now with that outcome, rather than as a death by SIGINT.
    process.on('SIGINT', () => process.exit());
  } catch (err) {
    // A bug, not a user error: one line, the stack only with --verbose.
    const verbose = argv.includes('--verbose') || argv.includes('-v');
    process.stderr.write(`error: unexpected failure: ${err instanceof Error ? err.message : String(err)}\n`);
    process.stderr.write(verbose && err instanceof Error && err.stack ? `${err.stack}\n` : 'hint: run again with --verbose for details\n');
    process.exitCode = 1;
  }
}
