/**
 * A run's command line in the words that tell runs apart on a terminal (`svc runs list`, `svc runs
 * prune --dry-run`): the command and the arguments before its options (`prospects create`,
 * `prospects update 12`, `runs undo 20261130-113613-18fb28`), and the file it read by its name
 * (`leads.csv`), without `svc`, the global options (`--sandbox`, `--profile x`) and the other
 * options. At 80 columns the whole line left `prospects c…` and `runs undo 2…` of every run (a
 * trial); the whole line is in `runs show`, `-o json` and `-o csv`.
 */
import { quoteWord, splitWords } from '../../shell-words.js';

/** Global options that take a value (cli/program.ts): the word after them is theirs, not the command. */
const GLOBAL_VALUED = new Set([
  '--profile',
  '--base-url',
  '--auth-url',
  '--token',
  '-o',
  '--output',
  '--query',
  '--sandbox-data',
  '--timeout',
  '--max-response-mb',
  '--budget',
  '--priority',
  '--budget-ledger',
]);

/** A file's name without its folders (`/home/ann/Q3 imports/leads.csv` → `leads.csv`). */
const baseName = (file: string) => file.replace(/^.*[\\/]/, '') || file;

/** `prospects create leads.csv` of `svc --sandbox prospects create --input '/home/ann/leads.csv' --match email`. */
export function commandWords(argv: string): string {
  const words = splitWords(argv);
  let i = words[0] === 'svc' ? 1 : 0;
  for (; i < words.length && words[i]!.startsWith('-'); i++) if (GLOBAL_VALUED.has(words[i]!)) i++;
  const out: string[] = [];
  for (; i < words.length && !words[i]!.startsWith('-'); i++) out.push(/[\\/]/.test(words[i]!) ? baseName(words[i]!) : words[i]!);
  for (; i < words.length; i++) {
    const w = words[i]!;
    const input = w === '--input' ? words[++i] : w.startsWith('--input=') ? w.slice('--input='.length) : undefined;
    if (input !== undefined) out.push(baseName(input));
  }
  // The command line as svc writes it (bulk-run/run-recording.ts): a name with a space quoted.
  return out.length ? out.map(quoteWord).join(' ') : argv;
}
