/**
 * Runs a documented shell script in bash as written, with each of its `svc …` commands run by
 * svc's program in the test process: the README's recipes are bash (`$(…)`, `>`, sed, printf)
 * around ~55 `svc --sandbox` lines, and a bin/svc per line cost ~0.35 CPU-s on two cores against
 * ~0.05 in process.
 *
 * `svc` in the script is a bash function that sends its words and `$PWD` over a TCP connection
 * bash opens itself (`/dev/tcp`, no process) to a listener in the test process; that runs them
 * through {@link svcInProcess} in that directory (relative paths are the user's), writes stdout
 * and stderr to files the function then prints to its own stdout and stderr, and answers the
 * exit code, which the function returns (so `set -e`, `$(svc …)` and `> file` behave as with
 * the binary). stdin is not forwarded: the command sees an empty one. The working directory is
 * the process's, so runs are one at a time: one bridge serves scripts running side by side.
 * With `SVC_RECIPES_BIN=1` in the test runner's environment, `svc` is the built bin/svc instead.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { svcInProcess } from './in-process-cli.js';
import { BIN, baseEnv, tempDir } from './run-svc.js';

/** The outcome of a script. */
export interface BashResult {
  code: number;
  stdout: string;
  stderr: string;
}

const FUNCTION_IN_PROCESS = `svc() {
  local code id
  exec 9<>"/dev/tcp/127.0.0.1/$SVC_BRIDGE_PORT" || return 1
  printf '%s\\0' "$#" "$PWD" "$@" >&9
  IFS=' ' read -r code id <&9 || code=1
  exec 9<&-
  cat "$SVC_BRIDGE_DIR/$id.out"
  cat "$SVC_BRIDGE_DIR/$id.err" >&2
  return "$code"
}
`;
const FUNCTION_BINARY = 'svc() { "$SVC_NODE" "$SVC_BIN" "$@"; }\n';

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<BashResult> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd, env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Serves the `svc` lines of scripts run through {@link SvcBridge.run}, one at a time. */
export class SvcBridge {
  private turn: Promise<unknown> = Promise.resolve();
  private calls = 0;

  /** Whether `svc` is the built binary (SVC_RECIPES_BIN=1) rather than the program in process. */
  readonly binary = process.env['SVC_RECIPES_BIN'] === '1';

  /**
   * Runs `script` in bash in `cwd` after `set -eo pipefail`, `svc` running with `svcEnv` on top
   * of the base environment (test/helpers/run-svc.ts) as every svc run does; `binary` makes
   * `svc` the built bin/svc for this script.
   */
  async run(script: string, cwd: string, svcEnv: Record<string, string>, opts: { binary?: boolean } = {}): Promise<BashResult> {
    if (this.binary || opts.binary) {
      const env = baseEnv({ ...svcEnv, SVC_NODE: process.execPath, SVC_BIN: BIN });
      return bash(`set -eo pipefail\n${FUNCTION_BINARY}${script}`, cwd, env);
    }
    const dir = tempDir('svc-bridge-');
    const server = net.createServer((socket) => this.serve(socket, dir, svcEnv));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as net.AddressInfo).port;
      const env = baseEnv({ SVC_BRIDGE_PORT: String(port), SVC_BRIDGE_DIR: dir });
      return await bash(`set -eo pipefail\n${FUNCTION_IN_PROCESS}${script}`, cwd, env);
    } finally {
      server.close();
    }
  }

  private serve(socket: net.Socket, dir: string, svcEnv: Record<string, string>): void {
    let buffered = Buffer.alloc(0);
    let started = false;
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      // Fields end with NUL: the number of words, the directory, the words.
      const fields = buffered.toString('utf8').split('\0').slice(0, -1);
      if (started || fields.length < 2 || fields.length < Number(fields[0]) + 2) return;
      started = true;
      const [, cwd, ...args] = fields as [string, string, ...string[]];
      const id = String(++this.calls);
      const done = this.turn.then(async () => {
        const before = process.cwd();
        process.chdir(cwd);
        try {
          const r = await svcInProcess(args, { env: svcEnv });
          fs.writeFileSync(path.join(dir, `${id}.out`), r.stdout);
          fs.writeFileSync(path.join(dir, `${id}.err`), r.stderr);
          // A run killed at its time limit: as bash reports a SIGKILLed command.
          socket.end(`${r.code ?? 137} ${id}\n`);
        } finally {
          process.chdir(before);
        }
      });
      // Failing to answer ends the connection: the function's `read` fails and returns 1.
      this.turn = done.catch(() => socket.destroy());
    });
  }
}
