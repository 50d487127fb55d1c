/**
 * The config store (conf): profiles with their URLs, OAuth client and tokens, in the OS config
 * directory or `SVC_CONFIG_DIR`. The file is 0600 and its directory 0700, checked and repaired
 * every time the store is opened.
 */
import fs from 'node:fs';
import path from 'node:path';
import Conf from 'conf';
import { configDir } from './config-dir.js';

/** One named profile (CLI.md § Words). */
export interface Profile {
  baseUrl?: string;
  authUrl?: string;
  clientId?: string;
  clientSecret?: string;
  /** Scopes asked for at login, space-separated. */
  scopes?: string;
  /** Loopback port of `svc login`. */
  port?: number;
  accessToken?: string;
  refreshToken?: string;
  /** Epoch milliseconds when the access token expires. */
  expiresAt?: number;
  /** Scopes granted to the token. */
  tokenScopes?: string;
  /** Who the token belongs to, from `GET {base_url}`. */
  user?: { id?: number | string; name?: string; email?: string };
  /**
   * SHA-256 of the `SVC_REFRESH_TOKEN` these tokens descend from (CI): tells later processes
   * that the stored tokens already replace that (single-use) refresh token.
   */
  refreshSeed?: string;
}

/** What the config file holds. */
export interface ConfigData {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

/** Access to profiles; every read goes to disk so parallel processes see each other's writes. */
export interface ConfigStore {
  readonly path: string;
  readonly dir: string;
  /** The inter-process lock file taken around token refreshes and profile updates. */
  readonly lockPath: string;
  /** Permissions repaired when the store was opened (0600/0700). */
  readonly repaired: string[];
  currentName(): string;
  /** The profile chosen with `svc profiles use`, if any (ignores --profile and SVC_PROFILE). */
  storedCurrent(): string | undefined;
  get(name: string): Profile | undefined;
  set(name: string, profile: Profile): void;
  remove(name: string): boolean;
  names(): string[];
  use(name: string): void;
}

export { configDir } from './config-dir.js';

/**
 * Makes the directory 0700 and the file 0600, whatever created them (an old version, a
 * `cp`, a permissive umask). Returns what it had to repair, for a warning.
 */
export function secureConfigFiles(dir: string, file: string): string[] {
  const repaired: string[] = [];
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return repaired;
  const dirMode = fs.statSync(dir).mode & 0o777;
  if ((dirMode & 0o077) !== 0) {
    fs.chmodSync(dir, 0o700);
    repaired.push(`${dir} (was ${dirMode.toString(8)}, now 700)`);
  }
  try {
    const fileMode = fs.statSync(file).mode & 0o777;
    if ((fileMode & 0o077) !== 0) {
      fs.chmodSync(file, 0o600);
      repaired.push(`${file} (was ${fileMode.toString(8)}, now 600)`);
    }
  } catch {
    // no file yet: conf creates it with mode 0600
  }
  return repaired;
}

/** Opens the store in `dir` (created on first write). */
export function openConfigStore(env: NodeJS.ProcessEnv, profileOverride?: string): ConfigStore {
  const dir = configDir(env);
  const file = path.join(dir, 'config.json');
  const repaired = secureConfigFiles(dir, file);
  const conf = new Conf<ConfigData>({
    cwd: dir,
    configName: 'config',
    projectName: 'svc',
    configFileMode: 0o600,
    defaults: { profiles: {} },
    clearInvalidConfig: false,
  });
  return {
    path: conf.path,
    dir,
    lockPath: `${conf.path}.lock`,
    repaired,
    storedCurrent: () => conf.get('currentProfile'),
    currentName: () => profileOverride || env.SVC_PROFILE || conf.get('currentProfile') || 'default',
    get: (name) => conf.get('profiles')[name],
    set: (name, profile) => {
      const profiles = { ...conf.get('profiles'), [name]: profile };
      conf.set('profiles', profiles);
    },
    remove: (name) => {
      const profiles = { ...conf.get('profiles') };
      if (!(name in profiles)) return false;
      delete profiles[name];
      conf.set('profiles', profiles);
      if (conf.get('currentProfile') === name) conf.delete('currentProfile');
      return true;
    },
    names: () => Object.keys(conf.get('profiles')),
    use: (name) => conf.set('currentProfile', name),
  };
}
