/**
 * The config store: profiles with their URLs, OAuth client and tokens, in the OS config
 * directory or `SVC_CONFIG_DIR`. The file is 0600 and its directory 0700, checked and repaired
 * every time the store is opened. Reads parse the file directly; writes go through conf
 * (config-file.ts holds the implementation).
 */
import Conf from 'conf';
import { confOptions, createConfigStore } from './config-file.js';

/** One named profile (README.md, "Profiles and configuration"). */
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
  /** Defaults of this profile's commands (`svc config set`): output, pageSize, concurrency, appUrl. */
  settings?: Record<string, string | number>;
  /** Saved command lines (`svc alias set NAME 'LINE'`), run as `svc NAME`. */
  aliases?: Record<string, string>;
}

/** What the config file holds. */
export interface ConfigData {
  currentProfile?: string;
  profiles: Record<string, Profile>;
}

/**
 * Access to profiles; every read goes to disk so parallel processes see each other's writes.
 * The writes (`set`, `remove`, `use`) return promises when the store loads conf on its first
 * write (the CLI's stores do): always await them.
 */
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
  set(name: string, profile: Profile): void | Promise<void>;
  remove(name: string): boolean | Promise<boolean>;
  names(): string[];
  use(name: string): void | Promise<void>;
}

export { secureConfigFiles } from './config-file.js';

/** Opens the store in `dir` (created on first write), conf loaded now: writes are synchronous. */
export function openConfigStore(env: NodeJS.ProcessEnv, profileOverride?: string): ConfigStore {
  return createConfigStore(env, profileOverride, (dir) => new Conf<ConfigData>(confOptions(dir)));
}
