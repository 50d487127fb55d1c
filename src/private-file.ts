/**
 * Files that hold secrets or private data (tokens, keys, org copies, caches) and the side files of
 * runs (journals, locks, export parts): written so that another user never reads them, a crash
 * never leaves half a file, and a symlink planted at a predictable name never redirects a write.
 * Temporary files get unpredictable names and are created exclusively (`O_EXCL` also refuses a
 * symlink already in their place); files opened in place are opened with `O_NOFOLLOW`. A leaf
 * module.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW = 0 } = fs.constants;

/** `<file>.<16 random hex>.tmp`: beside the file (one file system, so a rename is atomic), never guessed. */
function tempName(file: string): string {
  return `${file}.${randomBytes(8).toString('hex')}.tmp`;
}

/**
 * Creates a new temporary file beside `file` holding `text`, exclusively and with `mode`; returns
 * its name. Nothing at that name is followed or overwritten.
 */
export function writeTempFileSync(file: string, text: string, mode = 0o600): string {
  for (;;) {
    const tmp = tempName(file);
    let fd: number;
    try {
      fd = fs.openSync(tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, mode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue; // 2^-64: draw again
      throw err;
    }
    try {
      fs.writeFileSync(fd, text);
    } catch (err) {
      fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
      throw err;
    }
    fs.closeSync(fd);
    return tmp;
  }
}

/**
 * What is at `file` when it is neither a regular file, a symlink nor nothing: `a directory`, `a
 * device`, `a pipe`, `a socket`. A write renamed over a name replaces what is there: run as root,
 * `svc dedupe prospects --plan /dev/null` left a regular file in place of the system's /dev/null.
 */
export function notAFile(file: string): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return undefined;
  }
  if (st.isFile() || st.isSymbolicLink()) return undefined;
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a pipe';
  if (st.isSocket()) return 'a socket';
  return 'a device';
}

/** Refuses to rename a temporary file over something that is not a file (see {@link notAFile}). */
function replaceable(file: string): void {
  const what = notAFile(file);
  if (what) throw Object.assign(new Error(`${file} is ${what}, not a file`), { code: 'ENOTFILE' });
}

/**
 * Writes `text` to `file` through a temporary file renamed over it (a symlink at `file` is
 * replaced, not followed; a device, pipe or directory is refused, never replaced).
 */
export function writeFileAtomicSync(file: string, text: string, mode = 0o600): void {
  const tmp = writeTempFileSync(file, text, mode);
  try {
    replaceable(file);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** {@link writeFileAtomicSync} without blocking (large files: a sandbox's org). */
export async function writeFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  let tmp: string;
  let fh: fs.promises.FileHandle;
  for (;;) {
    tmp = tempName(file);
    try {
      fh = await fs.promises.open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, mode);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  try {
    await fh.writeFile(text);
    await fh.close();
    replaceable(file);
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fh.close().catch(() => {});
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
}

/** Writes `text` to `file` (0600) atomically; a new directory is made 0700. */
export function writePrivateFileSync(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(file, text, 0o600);
}

/**
 * `fs.openSync` flags (`'a+'`, `'w'`, `'r+'`, `'r'`, `'a'`) as numbers with `O_NOFOLLOW` added:
 * a symlink at the name is refused (ELOOP) instead of followed.
 */
export function noFollow(flags: 'a+' | 'a' | 'w' | 'r+' | 'r'): number {
  const c = fs.constants;
  const base = {
    'a+': c.O_RDWR | c.O_APPEND | c.O_CREAT,
    a: c.O_WRONLY | c.O_APPEND | c.O_CREAT,
    w: c.O_WRONLY | c.O_CREAT | c.O_TRUNC,
    'r+': c.O_RDWR,
    r: c.O_RDONLY,
  }[flags];
  return base | O_NOFOLLOW;
}

/** True for the error of opening a symlink with `O_NOFOLLOW`. */
export function isSymlinkRefusal(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ELOOP';
}

/**
 * True when group or others may write a file or folder svc trusts (a cursor, a merge plan, the
 * webhooks a listener holds): whoever wrote it chose what svc does with it. Never on Windows,
 * which has no such bits (every file reads 0o666 there).
 */
export function othersMayWrite(st: fs.Stats): boolean {
  return process.platform !== 'win32' && (st.mode & 0o022) !== 0;
}

/** True when another user owns the file or folder (where there are uids). */
export function ownedByAnother(st: fs.Stats): boolean {
  return typeof process.getuid === 'function' && st.uid !== process.getuid();
}
