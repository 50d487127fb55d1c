/**
 * Parses the command line and runs the command; maps commander's own errors (unknown command or
 * option, missing argument) to exit 2 with commander's one-line message (and, with -o json, the
 * `{"errors":[...]}` line every usage error has).
 */
import { CommanderError } from 'commander';
import { describeErrno, ExitCode } from '../errors.js';
import { processIO } from './process-io.js';
import type { App } from '../runtime/app.js';
import { buildProgram } from './program.js';
import { asksForJson, separateJsonFlag } from './json-flag.js';
import { expandAlias } from './aliases.js';
import { sigtermOwned } from '../runtime/sigterm.js';

/**
 * Runs svc with these arguments in this process; resolves to the exit code. `version` comes from
 * main.ts so that only the entry file holds it (`--version` then loads nothing else).
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, version: string): Promise<number> {
  const io = processIO({ noColor: argv.includes('--no-color'), env });
  const controller = new AbortController();
  // A closed pipe (`svc … | head`) is the reader saying it has enough: stop quietly. Not so a
  // bulk run (it holds io.closedOutput while it writes): ended here it left its lock, a record
  // "cut short" and exit 0; it winds down as on Ctrl-C instead and says so (bulk-run/session.ts).
  // Any other failure of the output (a full disk) ends the run with one line, not a crash.
  let windingDown = 0;
  let closed: 'stdout' | 'stderr' | undefined;
  io.closedOutput = {
    windDown() {
      windingDown++;
      let released = false;
      return () => {
        if (!released) windingDown--;
        released = true;
      };
    },
    get closed() {
      return closed;
    },
  };
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' && windingDown > 0) {
        closed ??= stream === process.stdout ? 'stdout' : 'stderr';
        controller.abort();
        return;
      }
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      if (stream === process.stdout) {
        try {
          process.stderr.write(`error: cannot write the output: ${describeErrno(err)}\n`);
        } catch {
          // stderr is gone too: the exit code is all that is left
        }
      }
      process.exit(ExitCode.API);
    });
  }
  let interrupts = 0;
  let firstInterrupt = 0;
  const onSigint = () => {
    // conf's exit hook (when-exit) re-raises the SIGINT it sees: a repeat within a moment is
    // that echo, not the user pressing Ctrl-C again.
    if (interrupts > 0 && Date.now() - firstInterrupt < 300) return;
    if (interrupts === 0) firstInterrupt = Date.now();
    interrupts++;
    if (interrupts > 1) {
      io.stderr.write('\ninterrupted\n');
      process.exit(ExitCode.INTERRUPTED);
    }
    controller.abort();
  };
  // SIGTERM is what a cancelled CI job, `timeout` and systemd send: the command winds down as on
  // Ctrl-C (journal, run record, "interrupted: N of M rows done" and the rerun hint), exit 143. It
  // was Node's default, a silent death. Commands that serve until stopped (svc sandbox, webhooks
  // listen) stop on it themselves (runtime/sigterm.ts); a second SIGTERM ends the process at once.
  let terminated = 0;
  const onSigterm = () => {
    if (sigtermOwned()) return;
    // As for SIGINT: conf's exit hook re-raises the signal it sees; a repeat within a moment is that echo.
    if (terminated > 0 && Date.now() - terminated < 300) return;
    if (terminated > 0) {
      io.stderr.write('\nterminated\n');
      process.exit(ExitCode.TERMINATED);
    }
    terminated = Date.now();
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  const app: App = { io, env, exitCode: 0, signal: controller.signal, argv };
  try {
    const code = await runProgram(app, argv, version);
    if (code === ExitCode.INTERRUPTED && terminated > 0) return ExitCode.TERMINATED;
    return code === ExitCode.INTERRUPTED && closed ? ExitCode.OUTPUT_CLOSED : code;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
}

/**
 * Builds the program for `app`, expands an alias, parses `argv` and runs the command; resolves
 * to the exit code. Touches no process state (streams, signals, exit): tests run commands with
 * it in their own process, on an App of their own.
 */
export async function runProgram(app: App, argv: string[], version: string): Promise<number> {
  let program = buildProgram(app, version);
  // `svc NAME` where NAME is no command: maybe an alias of the profile (read only then).
  const names = new Set(['help', ...program.commands.flatMap((c) => [c.name(), ...c.aliases()])]);
  const expanded = await expandAlias(argv, app.env, (n) => names.has(n));
  if (expanded) {
    argv = expanded;
    app.argv = argv;
    program = buildProgram(app, version);
  }
  const words = separateJsonFlag(argv, program);
  try {
    await program.parseAsync(words, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      if (err.code === 'commander.executeSubCommandAsync') return err.exitCode;
      // Performance machinery (src/README.md, Build): the reporter loads only for an error.
      if (asksForJson(words)) (await import('../runtime/report-error.js')).reportParseErrorJson(err.message, app.io.stderr);
      return ExitCode.USAGE;
    }
    throw err;
  }
  return app.exitCode;
}
