/**
 * Where the config store lives, without loading `conf`: commands that only need the directory
 * (the org-schema cache) stay fast.
 */
import os from 'node:os';
import path from 'node:path';

/** The directory of the config store. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.SVC_CONFIG_DIR) return path.resolve(env.SVC_CONFIG_DIR);
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(os.homedir(), 'AppData', 'Roaming'), 'svc');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Preferences', 'svc');
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'svc');
}

/** The user's data directory for svc (`SVC_DATA_DIR`, else beside the config, else XDG data). */
export function dataDir(env: NodeJS.ProcessEnv): string {
  if (env.SVC_DATA_DIR) return path.resolve(env.SVC_DATA_DIR);
  if (env.SVC_CONFIG_DIR) return path.join(path.resolve(env.SVC_CONFIG_DIR), 'data');
  return path.join(env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share'), 'svc');
}
