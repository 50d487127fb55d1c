/**
 * Entry point of the bundled CLI. Keeps the start-up path short: `--version` answers before
 * anything else loads; everything else goes through commander.
 */
import { VERSION } from './version.js';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  const { runCli } = await import('./run-cli.js');
  process.exitCode = await runCli(argv);
}
