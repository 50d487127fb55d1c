/**
 * The files of one run (input, journal, report, failed rows) are different files: a report
 * written over the input would empty it, `--failed` over the journal would truncate what a rerun
 * needs, a journal over the input would append to it. Compared as the files they are — device and
 * inode, through symlinks and hard links — or, for a file not made yet, by the real path of its
 * directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';

/** One file of a run: its flag, its path (undefined: not used), and whether the run writes it. */
interface RunFile {
  flag: string;
  path: string | undefined;
  out: boolean;
}

/** What a path names: the file's identity when it exists, else its resolved place. */
function identity(p: string): string {
  try {
    const st = fs.statSync(p);
    return `inode:${st.dev}:${st.ino}`;
  } catch {
    const abs = path.resolve(p);
    try {
      return `path:${path.join(fs.realpathSync(path.dirname(abs)), path.basename(abs))}`;
    } catch {
      return `path:${abs}`;
    }
  }
}

/**
 * Refuses a run whose output file is one of its inputs or another of its outputs (exit 2, before
 * anything is read or sent).
 */
export function checkRunFiles(files: RunFile[]): void {
  const seen: { file: RunFile; id: string }[] = [];
  for (const file of files) {
    if (file.path === undefined) continue;
    const id = identity(file.path);
    const clash = seen.find((s) => s.id === id && (s.file.out || file.out));
    if (clash) {
      const [writer, other] = file.out ? [file, clash.file] : [clash.file, file];
      throw new UsageError(
        `${writer.flag} ${writer.path}: is the same file as ${other.flag} ${other.path}; the run would ${other.out ? 'write both into one file' : `write into its ${other.flag.replace(/^--/, '')}`}`,
      ).hint(`give ${writer.flag} another file name`);
    }
    seen.push({ file, id });
  }
}
