/**
 * `svc runs prune --older-than 30d`: removes the records (and undo journals) of this profile's
 * runs older than an age. A removed record can never be undone, so prune is a destructive command
 * like a bulk delete: `--dry-run` lists what it would remove and removes nothing, a terminal is
 * asked first (default no), and off a terminal it needs --yes (a trial's `--dry-run` wiped the runs
 * of four profiles). Only the profile's own runs unless --all, as `svc runs list` shows them.
 *
 * Kept whatever their age: a run a rerun would continue (bulk-run/run-continue.ts: not finished,
 * not undone, the latest of its journal, and the journal still there — a bulk run in progress is
 * one too), and the run an undo kept that way takes back. Removing either would split one run in
 * two: the rerun's record would hold only its own rows, and the undo of the first part be lost.
 * An age of 0 is allowed (every other run of the profile): the question or --yes guards it as any.
 */
import fs from 'node:fs';
import { confirmOrYes } from '../shared/confirm.js';
import { isUndone, peekRunMeta, runFile, type RunRecord } from '../../bulk/run/run-record.js';
import { UsageError } from '../../errors.js';
import { grouped } from '../../grouped.js';
import type { Context } from '../../runtime/context.js';
import { journalKey, unfinishedRunOf } from '../bulk-run/run-continue.js';
import { runsDirOf } from '../bulk-run/run-recording.js';
import { printValue } from '../shared/output.js';
import { allRuns, runsProfileOf } from './store.js';
import { alignedColumns } from '../../output/aligned-columns.js';
import { relativeTime, toSecond } from '../../output/relative-time.js';
import { commandWords } from './command-words.js';

/** The options of `svc runs prune`. */
interface PruneFlags {
  olderThan?: string;
  all?: boolean;
}

/** `30d`, `12h`, `90m`: an age in ms. */
function parseAge(v: string): number {
  const m = /^(\d+)\s*(d|h|m)$/.exec(v.trim());
  if (!m) throw new UsageError(`--older-than ${v}: expected an age like 30d, 12h or 90m`);
  return Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm'];
}

/** True when running the run's command again would continue its record (run-continue.ts decides, as the rerun would). */
function continuable(dir: string, rec: RunRecord): boolean {
  const { journal, label, owner, shard } = rec.meta;
  if (journal === undefined) return false;
  // A journal that is gone or empty continues nothing (the user started afresh).
  if ((fs.statSync(journal, { throwIfNoEntry: false })?.size ?? 0) === 0) return false;
  return unfinishedRunOf(dir, label, journalKey(journal), owner, shard)?.meta.id === rec.meta.id;
}

/** A run prune would remove. */
interface Doomed {
  id: string;
  file: string;
  size: number;
  when: string | null;
  profile: string | null;
  command: string | null;
}

const mb = (b: number) => `${(b / 1_048_576).toFixed(1)} MB`;

/** The runs `--dry-run` would remove: on a terminal as `runs list` shows runs, the age and the command's telling words, the id whole. */
async function printDoomed(ctx: Context, doomed: readonly Doomed[]): Promise<void> {
  const rows = doomed.map(({ id, when, profile, command }) => ({ id, when, profile, command }));
  const now = ctx.clock.now();
  const tty = ctx.io.stdoutIsTTY;
  await printValue(ctx, ctx.output, rows, () =>
    rows.length
      ? alignedColumns(
          ['id', 'when', 'profile', 'command'],
          rows.map((r) => [
            r.id,
            r.when === null ? '' : tty ? relativeTime(Date.parse(r.when), now) : toSecond(r.when),
            r.profile ?? '',
            r.command === null ? '' : tty ? commandWords(r.command) : r.command,
          ]),
          tty ? { width: ctx.io.columns, flex: [3, 2] } : undefined,
        )
      : '',
  );
}

/** Counts of the runs kept, by why, and their bytes. */
interface Kept {
  newer: number;
  unfinished: number;
  others: number;
  bytes: number;
}

/** The runs of `dir` to remove (of `profile`, or of every one; started before `cut`), and those kept. */
function sortRuns(dir: string, profile: string | undefined, cut: number): { remove: Doomed[]; kept: Kept } {
  const doomed: Doomed[] = [];
  const kept: Kept = { newer: 0, unfinished: 0, others: 0, bytes: 0 };
  /** Runs kept because an open undo of them is kept (their ids). */
  const undoTargets = new Set<string>();
  for (const r of allRuns(dir)) {
    const file = runFile(dir, r.id);
    const size = fs.statSync(file).size;
    // A record that fails its check: its first line unchecked, only to say whose it is.
    const meta = 'rec' in r ? r.rec.meta : peekRunMeta(dir, r.id);
    const keep = (why: 'newer' | 'unfinished' | 'others') => {
      kept[why]++;
      kept.bytes += size;
      // An unfinished undo kept for any reason (one running now is newer) keeps the run it takes back.
      if ('rec' in r && r.rec.meta.undoes && why !== 'unfinished' && !isUndone(dir, r.rec) && continuable(dir, r.rec))
        undoTargets.add(r.rec.meta.undoes);
    };
    if (profile !== undefined && meta?.profile !== profile) {
      keep('others');
      continue;
    }
    const at = 'rec' in r ? Date.parse(r.rec.meta.at) : fs.statSync(file).mtimeMs;
    if (at >= cut) {
      keep('newer');
      continue;
    }
    if ('rec' in r && !isUndone(dir, r.rec) && continuable(dir, r.rec)) {
      keep('unfinished');
      if (r.rec.meta.undoes) undoTargets.add(r.rec.meta.undoes);
      continue;
    }
    doomed.push({
      id: r.id,
      file,
      size,
      when: typeof meta?.at === 'string' ? meta.at : null,
      profile: typeof meta?.profile === 'string' ? meta.profile : null,
      command: typeof meta?.argv === 'string' ? meta.argv : null,
    });
  }
  // The run an unfinished undo takes back: the undo's rerun reads its record.
  const remove = doomed.filter((d) => {
    if (!undoTargets.has(d.id)) return true;
    kept.unfinished++;
    kept.bytes += d.size;
    return false;
  });
  return { remove, kept };
}

export async function pruneHandler(ctx: Context, flags: PruneFlags): Promise<void> {
  if (!flags.olderThan) throw new UsageError('runs prune: give --older-than, e.g. --older-than 30d');
  const cut = ctx.clock.now() - parseAge(flags.olderThan);
  const dir = runsDirOf(ctx);
  const profile = flags.all ? undefined : await runsProfileOf(ctx);
  const { remove, kept } = sortRuns(dir, profile, cut);
  const bytes = remove.reduce((n, d) => n + d.size, 0);
  const whose = profile === undefined ? 'of every profile' : `of profile "${profile}"`;
  const keptText = [
    kept.newer ? `${grouped(kept.newer)} newer` : '',
    kept.unfinished ? `${grouped(kept.unfinished)} unfinished (running its command again continues it: one run, one undo)` : '',
    kept.others ? `${grouped(kept.others)} of other profiles (--all)` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const summary = (verb: string) =>
    `${verb} ${grouped(remove.length)} run record(s) ${whose} older than ${flags.olderThan} (${mb(bytes)}); ` +
    `${grouped(kept.newer + kept.unfinished + kept.others)} kept${keptText ? `: ${keptText}` : ''} (${mb(kept.bytes)}) in ${dir}`;
  if (ctx.globals.dryRun) {
    await printDoomed(ctx, remove);
    ctx.info(`${summary('would remove')}; nothing removed (--dry-run)`);
    return;
  }
  // Asked, or --yes: a removed record cannot be undone.
  const go =
    remove.length === 0 ||
    (await confirmOrYes(ctx, {
      refuse: `remove ${grouped(remove.length)} run record(s)`,
      hints: ['list them with --dry-run, then run again with --yes; a removed run can no longer be undone'],
      question: `Remove the records of ${grouped(remove.length)} run(s) ${whose}? They can no longer be undone.`,
      declined: 'nothing was removed',
    }));
  if (!go) return;
  for (const d of remove) {
    fs.rmSync(d.file, { force: true });
    fs.rmSync(d.file.replace(/\.run\.ndjson$/, '.undo.journal.ndjson'), { force: true });
    fs.rmSync(d.file.replace(/\.run\.ndjson$/, '.undo.journal.ndjson.lock'), { force: true });
  }
  ctx.info(summary('removed'));
}
