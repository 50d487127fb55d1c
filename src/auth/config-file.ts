/**
 * The config store's one implementation, with `conf` off the read path. Every read parses the
 * file directly (conf stores plain JSON), so the commands that only read a profile — every API
 * command — do not load conf and its dependencies (~15 ms of start-up); writes go through conf,
 * which the caller supplies: synchronously (`openConfigStore` in config.ts, for tests and
 * scripts) or loaded on the first write (the CLI's Context).
 */
// Performance machinery (src/README.md, Build): config read without conf.
import fs from 'node:fs';
import path from 'node:path';
import type Conf from 'conf';
import type { ConfigData, ConfigStore, Profile } from './config.js';
import { configDir } from './config-dir.js';
import { describeErrno, UsageError } from '../errors.js';

/** The conf instance that writes the store. */
type ConfWriter = Conf<ConfigData>;

/** conf's options for the store in `dir` (the same for every writer). */
export function confOptions(dir: string) {
  return {
    cwd: dir,
    configName: 'config',
    projectName: 'svc',
    configFileMode: 0o600,
    defaults: { profiles: {} },
    clearInvalidConfig: false,
  };
}

/**
 * Makes the directory 0700 and the file 0600, whatever created them (an old version, a
 * `cp`, a permissive umask). Returns what it had to repair, for a warning.
 *
 * Only what the user owns is repaired. A directory (or a symlink to one) that belongs to another
 * user, or a shared directory with the sticky bit (`/tmp`, mode 1777), is refused with a usage
 * error: chmod follows symlinks, and tightening such a directory would break it for everyone
 * else while the tokens would still sit where another user controls the files.
 */
export function secureConfigFiles(dir: string, file: string): string[] {
  const repaired: string[] = [];
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    // A dangling symlink, a file in the way, a parent the user cannot write.
    throw new UsageError(
      `config directory ${dir}${linkNote(dir)}: cannot create it (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    ).hint('point SVC_CONFIG_DIR at a directory you can write');
  }
  if (process.platform === 'win32') return repaired;
  const uid = process.getuid?.();
  const dirName = describePath(dir, 'config directory');
  const dirStat = fs.statSync(dir);
  refuseForeign(dirStat, uid, dirName);
  if ((dirStat.mode & 0o1000) !== 0) {
    throw new UsageError(
      `${dirName} is a shared directory (mode ${(dirStat.mode & 0o7777).toString(8)}): refusing to keep tokens there or to change its permissions`,
    ).hint('point SVC_CONFIG_DIR at a directory of your own, e.g. a new one under your home directory');
  }
  const dirMode = dirStat.mode & 0o777;
  if ((dirMode & 0o077) !== 0) {
    fs.chmodSync(dir, 0o700);
    repaired.push(`${dir}${linkNote(dir)} (was ${dirMode.toString(8)}, now 700)`);
  }
  let fileStat: fs.Stats;
  try {
    fileStat = fs.statSync(file);
  } catch {
    // no file yet: conf creates it with mode 0600
    return repaired;
  }
  refuseForeign(fileStat, uid, describePath(file, 'config file'));
  const fileMode = fileStat.mode & 0o777;
  if ((fileMode & 0o077) !== 0) {
    fs.chmodSync(file, 0o600);
    repaired.push(`${file}${linkNote(file)} (was ${fileMode.toString(8)}, now 600)`);
  }
  return repaired;
}

/** ` (symlink to /real/path)` when `p` itself is a symlink, else nothing. */
function linkNote(p: string): string {
  try {
    if (!fs.lstatSync(p).isSymbolicLink()) return '';
  } catch {
    return '';
  }
  try {
    return ` (symlink to ${fs.realpathSync(p)})`;
  } catch {
    // dangling: where it points
    return ` (symlink to ${path.resolve(path.dirname(p), fs.readlinkSync(p))}, which does not exist)`;
  }
}

function describePath(p: string, what: string): string {
  return `${what} ${p}${linkNote(p)}`;
}

/** Throws unless the user owns what `st` describes. */
function refuseForeign(st: fs.Stats, uid: number | undefined, name: string): void {
  if (uid === undefined || st.uid === uid) return;
  throw new UsageError(`${name} belongs to another user (uid ${st.uid}): refusing to keep tokens there or to change its permissions`).hint(
    'point SVC_CONFIG_DIR at a directory of your own (or remove the symlink)',
  );
}

/** The file's content as conf would return it: `{ profiles: {} }` when there is no file yet. */
function readConfigData(file: string): ConfigData {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new UsageError(`config file ${file}: cannot read it: ${describeErrno(err)}`);
  }
  if (text.trim() === '') return { profiles: {} };
  let data: Partial<ConfigData>;
  try {
    data = JSON.parse(text) as Partial<ConfigData>;
  } catch (err) {
    throw corrupt(file, (err as Error).message);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw corrupt(file, 'not a JSON object');
  if (data.profiles !== undefined && (typeof data.profiles !== 'object' || data.profiles === null || Array.isArray(data.profiles))) {
    throw corrupt(file, '"profiles" is not an object');
  }
  return { ...data, profiles: data.profiles ?? {} };
}

/** A config file svc cannot use: nothing is sent until it is fixed (exit 2). */
function corrupt(file: string, why: string): UsageError {
  return new UsageError(`config file ${file} is damaged (${why})`).hint(
    `fix it, or move it away and log in again (svc login): it holds the profiles and their tokens`,
  );
}

/**
 * A store over the config file in `configDir(env)`: reads from disk every time (parallel
 * processes see each other's writes), writes through the conf instance `writer()` returns.
 * With an asynchronous `writer`, `set`, `remove` and `use` return promises: await them.
 */
export function createConfigStore(
  env: NodeJS.ProcessEnv,
  profileOverride: string | undefined,
  writer: (dir: string) => ConfWriter | Promise<ConfWriter>,
): ConfigStore {
  const dir = configDir(env);
  const file = path.join(dir, 'config.json');
  const repaired = secureConfigFiles(dir, file);
  const read = () => readConfigData(file);
  let conf: ConfWriter | Promise<ConfWriter> | undefined;
  // Runs `fn` on the writer: synchronously when the writer is at hand, else once it has loaded.
  const write = <T>(fn: (c: ConfWriter) => T): T | Promise<T> => {
    conf ??= writer(dir);
    return conf instanceof Promise ? conf.then(fn) : fn(conf);
  };
  return {
    path: file,
    dir,
    lockPath: `${file}.lock`,
    repaired,
    storedCurrent: () => read().currentProfile,
    currentName: () => profileOverride || env.SVC_PROFILE || read().currentProfile || 'default',
    // Own keys only: "constructor" or "__proto__" name no profile, whatever Object.prototype has.
    get: (name) => {
      const profiles = read().profiles;
      return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
    },
    set: (name, profile: Profile) =>
      write((c) => {
        c.set('profiles', { ...read().profiles, [name]: profile });
      }),
    remove: (name) =>
      write((c) => {
        const data = read();
        if (!Object.hasOwn(data.profiles, name)) return false;
        const profiles = { ...data.profiles };
        delete profiles[name];
        c.set('profiles', profiles);
        if (data.currentProfile === name) c.delete('currentProfile');
        return true;
      }),
    names: () => Object.keys(read().profiles),
    use: (name) =>
      write((c) => {
        c.set('currentProfile', name);
      }),
  };
}
