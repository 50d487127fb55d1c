/**
 * Where a running `svc sandbox` announces itself, so that `svc --sandbox …` in another terminal
 * reuses it, and where the zero-set-up sandbox keeps its org between runs.
 */
import fs from 'node:fs';
import { dataDir } from '../auth/config-dir.js';
import path from 'node:path';
import { writePrivateFileSync } from '../private-file.js';

/** What a running sandbox writes about itself. */
export interface SandboxState {
  pid: number;
  baseUrl: string;
  authUrl: string;
  token: string;
  /** Its OAuth client: `svc login` against a restarted sandbox picks up the new one. */
  clientId?: string;
  clientSecret?: string;
  /**
   * The sandbox this one's announcement replaced, still running then: announced again when this
   * one stops. Without it, stopping the newer of two made `svc --sandbox` serve an org of its own
   * while the older still ran (a trial: an enrolment went to the wrong org).
   */
  previous?: SandboxState;
}

function stateFile(env: NodeJS.ProcessEnv): string {
  return path.join(dataDir(env), 'sandbox.json');
}

/** The default org file of the zero-set-up sandbox. */
export function defaultOrgFile(env: NodeJS.ProcessEnv): string {
  return path.join(dataDir(env), 'sandbox-org.json');
}

/**
 * Where the process serving the default org file announces its server. Apart from the user's
 * state file, so that a `svc sandbox` started and stopped meanwhile cannot hide it.
 */
export function ownerStateFile(env: NodeJS.ProcessEnv, orgFile = defaultOrgFile(env)): string {
  return `${orgFile}.owner.json`;
}

/**
 * The lock a process holds for as long as it serves an org file (the default one unless
 * `--sandbox-data` names another: each org file has its own owner).
 */
export function orgLockFile(env: NodeJS.ProcessEnv, orgFile = defaultOrgFile(env)): string {
  return `${orgFile}.lock`;
}

/**
 * The port the default org was last served on: the next owner listens there again when it is
 * free, so that a process still using the old owner's URL reaches the new one.
 */
export function lastPortFile(env: NodeJS.ProcessEnv, orgFile = defaultOrgFile(env)): string {
  return `${orgFile}.port`;
}

/** Where processes using the default org's sandbox announce themselves (one file per pid). */
export function clientsDir(env: NodeJS.ProcessEnv): string {
  return path.join(dataDir(env), 'sandbox-clients');
}

/** Writes a state file (0600: it holds a token) atomically; the user's one by default. */
export function writeState(env: NodeJS.ProcessEnv, state: SandboxState, file = stateFile(env)): void {
  writePrivateFileSync(file, JSON.stringify(state));
}

/** Announces `state` over the one before, kept in it while that sandbox still runs. */
export function announceState(env: NodeJS.ProcessEnv, state: SandboxState, file = stateFile(env)): void {
  const before = readState(env, file);
  writeState(env, before && before.pid !== state.pid ? { ...state, previous: before } : state, file);
}

/** Removes a state file if it still describes this process, announcing again the one it replaced if that still runs. */
export function clearState(env: NodeJS.ProcessEnv, pid: number, file = stateFile(env)): void {
  const s = readState(env, file);
  if (s?.pid !== pid) return;
  for (let p = s.previous; p; p = p.previous) {
    if (alive(p.pid)) {
      writeState(env, p, file);
      return;
    }
  }
  fs.rmSync(file, { force: true });
}

/**
 * The pid runs a process of ours. Not auth/lock.ts `pidAlive`, which counts another user's process
 * (EPERM) as alive: a sandbox this user announced is never another user's process.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The state of a sandbox whose process is still alive, if any. */
export function readState(env: NodeJS.ProcessEnv, file = stateFile(env)): SandboxState | undefined {
  try {
    const s = JSON.parse(fs.readFileSync(file, 'utf8')) as SandboxState;
    return alive(s.pid) ? s : undefined;
  } catch {
    return undefined;
  }
}
