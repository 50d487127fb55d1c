/**
 * Runs a sandbox in the foreground: start, print how to reach it, serve until SIGINT/SIGTERM,
 * then shut down cleanly (server closed, data file written). For `svc sandbox` and scripts.
 */
import { startSandbox, type SandboxOptions } from './index.js';

/** Where the entry point writes and which signals it listens to (tests pass their own). */
export interface SandboxIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  /** Registers a signal handler; defaults to `process.once`. */
  onSignal?: (signal: 'SIGINT' | 'SIGTERM', fn: () => void) => void;
}

/** Options of {@link runSandboxCommand}. */
export interface SandboxCommandOptions extends SandboxOptions {
  /** One JSON line instead of human lines. */
  json?: boolean;
}

/**
 * Starts a sandbox, prints `baseUrl`, `authUrl`, `clientId`, `clientSecret` and `token`, and
 * resolves once a signal has stopped it.
 */
export async function runSandboxCommand(opts: SandboxCommandOptions, io: SandboxIo): Promise<void> {
  const { json, ...options } = opts;
  const sb = await startSandbox(options);
  const info = { baseUrl: sb.baseUrl, authUrl: sb.authUrl, clientId: sb.clientId, clientSecret: sb.clientSecret, token: sb.token };
  if (json) io.stdout.write(JSON.stringify(info) + '\n');
  else {
    io.stdout.write(
      Object.entries(info).map(([k, v]) => `${k.padEnd(13)} ${v}`).join('\n') +
        `\n\ntry: curl -H "Authorization: Bearer ${sb.token}" ${sb.baseUrl}/prospects\n`,
    );
    io.stderr.write('sandbox running; Ctrl-C to stop\n');
  }
  const on = io.onSignal ?? ((sig, fn) => process.once(sig, fn));
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      void sb.close().then(resolve);
    };
    on('SIGINT', stop);
    on('SIGTERM', stop);
  });
  if (!json) io.stderr.write('sandbox stopped\n');
}
