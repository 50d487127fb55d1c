/**
 * The options of every bulk run (`create|update|delete --input`, `upsert`, `enroll`), declared
 * once: the wiring of each command adds them with its own words for what a write is. Wiring
 * only (commander), loaded with the commands; the run itself loads when it starts.
 */
import type { Command } from 'commander';

/** How a command's help speaks of its runs. */
interface RunOptionWords {
  /** `bulk: ` where the options share the help with a single-record form. */
  prefix: string;
  /** What a write is, in `--settle`: `a write`, `an enrolment`. */
  write: string;
  /** `--resend-unconfirmed`: what is sent again, and when. */
  resend: string;
  /** Why `--ignore-columns` matters to this command. */
  ignoreColumns: string;
  /** `--map header=field` (a command whose rows are records). */
  map: boolean;
}

/**
 * Adds `--concurrency`, `--journal`, `--report`, `--strict`, `--shard`, `--settle`,
 * `--resend-unconfirmed`, `--skip-failed`, `--max-failures`, `--failed`, (`--map`),
 * `--ignore-columns`, `--delimiter`, `--encoding`.
 */
export function addRunOptions(cmd: Command, w: RunOptionWords): Command {
  const p = w.prefix;
  cmd
    .option('--concurrency <n>', `${p}requests at once (default 4, at most 32)`)
    .option(
      '--journal <file>',
      `${p}journal of done rows, for safe reruns (default <input>.journal.ndjson; <input>.sandbox.journal.ndjson with --sandbox)`,
    )
    .option('--report <file>', `${p}one NDJSON result per row (- for stdout)`)
    .option('--strict', `${p}stop before sending anything when a row is invalid (exit 2)`)
    .option('--shard <i/n>', `${p}do only shard i of n (rows r with (r-1) mod n = i-1)`)
    .option('--settle <seconds>', `${p}how long ${w.write} without a definite answer is looked for (default 30)`)
    .option('--resend-unconfirmed', `${p}${w.resend} (default: report it unknown)`)
    .option('--skip-failed', `${p}skip rows an earlier run recorded as failed (default: try them again)`)
    .option('--max-failures <n>', `${p}stop after n rows in a row refused with the same error (default 20; 0 never stops)`)
    .option('--failed <file>', `${p}write the failed rows there, in the input's format and columns plus an error column`);
  if (w.map)
    cmd.option(
      '--map <header=field>',
      `${p}read a column as this field or custom-field label ("Lead Score=custom2"; repeatable), or a JSON file {"Header": "field"}`,
      (v: string, prev: string[] = []) => [...prev, v],
    );
  return cmd
    .option('--ignore-columns <a,b>', `${p}input columns to leave out (${w.ignoreColumns})`)
    .option('--delimiter <c>', `${p}CSV delimiter (default: sniffed from the header line: , ; or tab)`)
    .option('--encoding <name>', `${p}text encoding of the input: utf-8, windows-1252, shift_jis, utf-16le, utf-16be (default: detected)`);
}
