/**
 * The one way commands print results: the writer or value renderer of the chosen format, with
 * `--json a,b,c` and `--query` applied on the way (output/shape.ts). Commands call these rather
 * than the renderers so that every command that prints JSON takes both flags alike.
 */
import type { Context } from '../../runtime/context.js';
import type { OutputFormat } from '../../output/formats.js';
import { writeOut } from '../../output/io.js';
import { UsageError } from '../../errors.js';
import { renderValue, type RecordWriter, type RenderOptions } from '../../output/render.js';
import { formatResult, shapedRecordWriter, shapeValue } from '../../output/shape.js';

/** A record writer for `opts`, shaped by the command line's `--json a,b,c` and `--query`. */
export function recordWriter(ctx: Context, opts: RenderOptions): RecordWriter {
  return shapedRecordWriter(opts, ctx.shape);
}

/**
 * `--bom` (`list`, `report`, `sql`): refused, before anything is sent, with an output that is not
 * CSV, where a BOM would only spoil the JSON or the table.
 */
export function checkBom(ctx: Context, bom: boolean | undefined): void {
  if (bom && ctx.output !== 'csv') throw new UsageError('--bom is for CSV output (-o csv)');
}

/**
 * Starts stdout with the UTF-8 byte order mark `--bom` asks for, before the first CSV byte: Excel
 * reads a file without one as the machine's code page, and umlauts and accents come out garbled.
 */
export async function writeBom(ctx: Context, bom: boolean | undefined): Promise<void> {
  if (bom && ctx.output === 'csv') await writeOut(ctx.io.stdout, '\ufeff');
}

/**
 * The text of a plain value in `format` with the command line's shape applied: the value as
 * `-o json` would print it goes through it (per element with `-o ndjson`); undefined for csv and
 * table without a query (their writers are renderValue's).
 */
function shapedText(ctx: Context, format: OutputFormat, value: unknown): string | undefined {
  const shape = ctx.shape;
  if (!shape?.query) {
    const v = shape ? shapeValue(value, shape, false) : value;
    if (format === 'json' || format === 'raw') return JSON.stringify(v, null, 2) + '\n';
    if (format !== 'ndjson') return undefined;
    const list = Array.isArray(v) ? v : [v];
    return list.map((x) => JSON.stringify(x)).join('\n') + (list.length ? '\n' : '');
  }
  const result = shapeValue(value, shape, format === 'ndjson');
  if (format === 'ndjson' && Array.isArray(result)) return result.map((v) => `${JSON.stringify(v ?? null)}\n`).join('');
  return formatResult(result, format === 'raw');
}

/**
 * Prints a plain value (a list of rows, a status object) in `format`; with a shape, the value
 * as `-o json` would print it goes through it (per element with `-o ndjson`).
 */
export async function printValue(ctx: Context, format: OutputFormat, value: unknown, human: () => string): Promise<void> {
  const shape = ctx.shape;
  if (!shape) return renderValue(ctx.io, format, value, human);
  if (!shape.query) return renderValue(ctx.io, format, shapeValue(value, shape, false), human);
  await writeOut(ctx.io.stdout, shapedText(ctx, format, value)!);
}

/**
 * Prints a command's one JSON result (a summary object) when the output is for scripts: with
 * `-o json` or `-o ndjson` as one line, shaped by `--json a,b,c` and `--query` when given (a
 * query result prints with any `-o`, strings raw with `-o raw`).
 * @returns false when nothing was printed (the output is for people: the caller says it its way)
 */
export async function printJsonResult(ctx: Context, value: unknown): Promise<boolean> {
  const forScripts = ctx.output === 'json' || ctx.output === 'ndjson';
  if (ctx.shape?.query || (forScripts && ctx.shape)) {
    await printValue(ctx, ctx.output, value, () => '');
    return true;
  }
  if (!forScripts) return false;
  await writeOut(ctx.io.stdout, JSON.stringify(value) + '\n');
  return true;
}

/**
 * Prints one line of a stream of JSON values (a dry run's request, a delivery): each shaped by
 * `--json a,b,c` and `--query` on its own, as `-o ndjson` shapes each record; with `-o raw` a
 * string result prints unquoted and an array one element per line.
 */
export async function printLine(ctx: Context, value: unknown, redact = false): Promise<void> {
  const v = ctx.shape ? shapeValue(value, ctx.shape, false) : value;
  const text = ctx.output === 'raw' && ctx.shape?.query ? formatResult(v, true) : JSON.stringify(v ?? null) + '\n';
  await writeOut(ctx.io.stdout, redact ? ctx.redact(text) : text);
}

/**
 * Prints a plan (`--plan`: what a run would do, row by row, and its request bill) for scripts:
 * `-o json` one document `{rows, bill}` (`key` names the rows), `-o ndjson` a line per row and
 * `{bill}` last, shaped by `--json a,b,c` and `--query` as any JSON result (`-o raw` with
 * `--query` too). The values are the file's and the org's: the text is redacted.
 * @param asked the format the command takes the plan's (`ctx.output`, or `-o` alone where a pipe gets the text)
 * @returns false when the plan is for people (the caller writes its text)
 */
export async function printPlan(
  ctx: Context,
  asked: OutputFormat | undefined,
  rows: readonly unknown[],
  bill: object,
  key = 'rows',
): Promise<boolean> {
  let text: string | undefined;
  if (asked === 'ndjson') text = shapedText(ctx, 'ndjson', [...rows, { bill }]);
  else if (asked === 'json' || ctx.shape?.query) text = shapedText(ctx, asked === 'raw' ? 'raw' : 'json', { [key]: rows, bill });
  if (text === undefined) return false;
  await writeOut(ctx.io.stdout, ctx.redact(text));
  return true;
}

/**
 * What a plan, a run or a command with one JSON result is written as: text for people, or the
 * one document (`-o raw` with `--query`: the value picked).
 */
export const PLAN_FORMATS: readonly OutputFormat[] = ['table', 'json', 'ndjson'];

/**
 * Whether the command line asks for a run's JSON summary on stdout (bulk-run/run-summary.ts):
 * `-o json`, `-o ndjson` or `--json` given, or `--query`. The default format alone (json in a
 * pipe) does not ask: a script that gave no `-o` keeps the stdout it had.
 */
export function runSummaryAsked(ctx: Context): boolean {
  const json = ctx.output === 'json' || ctx.output === 'ndjson';
  return Boolean(ctx.shape?.query || (ctx.globals.outputAsked && json));
}

/**
 * Refuses an `-o` a write run cannot write (bulk runs, upserts, enrolments, undos, dedupe
 * applies), before it reads its input: it writes its lines for people, or with json/ndjson its
 * summary (its plan with `--plan` or `--dry-run`). A `-o csv` was ignored without a word, where a
 * user wanted each row's outcome, which `--report` writes. A run asked for its summary and for
 * `--report -` is refused too: both are stdout's, and the summary was left out without a word, so
 * `run=$(svc … --report - -o raw --query run)` got report lines (a CI trial). A plan writes no
 * report (said, when one is given): stdout is the plan's alone then.
 * @param what the command as the message names it, `--plan` included when planning
 * @param report the run's `--report`
 * @param writes what the run writes besides (an undo's re-created ids as csv too)
 */
export function refuseRunOutput(
  ctx: Context,
  what: string,
  plan: boolean,
  report: string | undefined,
  writes: readonly OutputFormat[] = PLAN_FORMATS,
): void {
  const raw = ctx.globals.output === 'raw' ? '; -o raw goes with --query, whose strings it prints unquoted' : '';
  const reportHint = plan ? '' : "; --report FILE writes each row's outcome, one NDJSON line per row";
  refuseOutput(ctx, `svc ${what}`, writes, `use -o json for the ${plan ? 'plan' : "run's summary"}${raw}${reportHint}`);
  // A plan sends nothing, so no row has an outcome: said, where the file was left unwritten without a word.
  if (plan && report !== undefined) ctx.warn(`--report ${report} is not written: a plan sends nothing (the run writes it)`);
  if (plan || report !== '-' || !runSummaryAsked(ctx)) return;
  const asked = [...(ctx.globals.outputAsked ? [`-o ${ctx.output}`] : []), ...(ctx.shape?.query ? ['--query'] : [])];
  throw new UsageError(`--report - and ${asked.join(' ')} both write to stdout`).hint(
    `give --report a file (--report results.ndjson), or leave out ${asked.join(' and ')}`,
  );
}

/**
 * Refuses an `-o` the command cannot write, before it does anything (exit 2): it was ignored
 * without a word (a trial: `sync -o csv` wrote nothing, `--plan -o csv` the plan's prose).
 * `-o raw` always goes with `--query`: the query's result printed unquoted.
 * @param what the command as the message names it (`svc sql`)
 * @param writes the formats it writes, `raw` among them when it writes raw without a query
 */
export function refuseOutput(ctx: Context, what: string, writes: readonly OutputFormat[], hint?: string): void {
  const asked = ctx.globals.output;
  if (asked === undefined || writes.includes(asked) || (asked === 'raw' && ctx.shape?.query)) return;
  const list = writes.length > 1 ? `${writes.slice(0, -1).join(', ')} or ${writes.at(-1)}` : writes.join('');
  throw new UsageError(`${what} prints ${list}, not ${asked}`).hint(
    hint ??
      `use -o ${writes.includes('json') ? 'json' : writes[0]}${asked === 'raw' ? '; -o raw goes with --query, whose strings it prints unquoted' : ''}`,
  );
}
