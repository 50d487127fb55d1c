/**
 * Who stops on SIGTERM. bin/svc winds any command down on it as on Ctrl-C (cli/run-cli.ts); the
 * commands that serve until stopped (`svc sandbox`, `webhooks listen`) stop on it their own way
 * and mark their listener so. Counting listeners instead took a prompt's exit hook
 * (signal-exit) for such a command, and SIGTERM during a confirmation then did nothing at all.
 */
const OWN = Symbol.for('svc.ownsSigterm');

/** Marks `fn`, a SIGTERM listener, as the command's own way to stop. */
export function ownSigterm<T extends () => void>(fn: T): T {
  return Object.assign(fn, { [OWN]: true });
}

/** True while a command's own SIGTERM listener is set. */
export function sigtermOwned(): boolean {
  return process.listeners('SIGTERM').some((l) => (l as { [OWN]?: boolean })[OWN] === true);
}
