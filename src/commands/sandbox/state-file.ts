/**
 * Where a running `svc sandbox` announces itself, so that `svc --sandbox …` in another terminal
 * reuses it, and where the zero-set-up sandbox keeps its org between runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What a running sandbox writes about itself. */
export interface SandboxState {
  pid: number;
  baseUrl: string;
  authUrl: string;
  token: string;
  /** Its OAuth client: `svc login` against a restarted sandbox picks up the new one. */
  clientId?: string;
  clientSecret?: string;
}

/** The user's data directory for svc (`SVC_DATA_DIR`, else beside the config, else XDG data). */
export function dataDir(env: NodeJS.ProcessEnv): string {
  if (env.SVC_DATA_DIR) return path.resolve(env.SVC_DATA_DIR);
  if (env.SVC_CONFIG_DIR) return path.join(path.resolve(env.SVC_CONFIG_DIR), 'data');
  return path.join(env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share'), 'svc');
}

export function stateFile(env: NodeJS.ProcessEnv): string {
  return path.join(dataDir(env), 'sandbox.json');
}

/** The default org file of the zero-set-up sandbox. */
export function defaultOrgFile(env: NodeJS.ProcessEnv): string {
  return path.join(dataDir(env), 'sandbox-org.json');
}

/** Writes the state file (0600: it holds a token) atomically. */
export function writeState(env: NodeJS.ProcessEnv, state: SandboxState): void {
  const file = stateFile(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** Removes the state file if it still describes this process. */
export function clearState(env: NodeJS.ProcessEnv, pid: number): void {
  const s = readState(env);
  if (s?.pid === pid) fs.rmSync(stateFile(env), { force: true });
}

/** The state of a sandbox whose process is still alive, if any. */
export function readState(env: NodeJS.ProcessEnv): SandboxState | undefined {
  try {
    const s = JSON.parse(fs.readFileSync(stateFile(env), 'utf8')) as SandboxState;
    process.kill(s.pid, 0);
    return s;
  } catch {
    return undefined;
  }
}
