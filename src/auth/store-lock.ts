/**
 * Config writes under the store's lock file: a write is a read-modify-write of the whole file,
 * so two processes writing at once (a login and a refresh, two refreshes of different
 * profiles) would otherwise lose one of the updates, perhaps a just-rotated refresh token.
 */
import { ExitCode, SvcError } from '../errors.js';
import type { ConfigStore, Profile } from './config.js';
import { LockTimeoutError, withLock } from './lock.js';

/** Runs `fn` holding the store's lock; `fn` should re-read what it changes. */
export async function withStoreLock<T>(store: ConfigStore, fn: () => T | Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await withLock(store.lockPath, async () => fn(), { signal, timeoutMs: 150_000 });
  } catch (err) {
    if (err instanceof LockTimeoutError) {
      throw new SvcError(`could not update the config: ${err.message}`, ExitCode.API).hint(
        `if no other svc process is running, delete ${err.file} and retry`,
      );
    }
    throw err;
  }
}

/**
 * Replaces a profile with what `fn` makes of its current value (re-read under the lock);
 * `undefined` leaves it alone. Resolves to the stored profile.
 */
export async function updateProfile(
  store: ConfigStore,
  name: string,
  fn: (current: Profile | undefined) => Profile | undefined,
  signal?: AbortSignal,
): Promise<Profile | undefined> {
  return withStoreLock(
    store,
    async () => {
      const next = fn(store.get(name));
      if (next) await store.set(name, dropUndefined(next));
      return next;
    },
    signal,
  );
}

/** conf validates JSON: leave out keys whose value is undefined. */
export function dropUndefined(p: Profile): Profile {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) if (v !== undefined) out[k] = v;
  return out as Profile;
}

/** The keys that make a login; `svc logout` deletes them and keeps the client settings. */
export const TOKEN_KEYS = ['accessToken', 'refreshToken', 'expiresAt', 'tokenScopes', 'user', 'refreshSeed'] as const;
