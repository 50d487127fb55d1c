/**
 * The one way commands print results: the writer or value renderer of the chosen format, with
 * `--json a,b,c` and `--query` applied on the way (output/shape.ts). Commands call these rather
 * than the renderers so that every command that prints JSON takes both flags alike.
 */
import type { Context } from '../../runtime/context.js';
import type { OutputFormat } from '../../output/formats.js';
import { writeOut } from '../../output/io.js';
import { renderValue, type RecordWriter, type RenderOptions } from '../../output/render.js';
import { formatResult, shapedRecordWriter, shapeValue } from '../../output/shape.js';

/** A record writer for `opts`, shaped by the command line's `--json a,b,c` and `--query`. */
export function recordWriter(ctx: Context, opts: RenderOptions): RecordWriter {
  return shapedRecordWriter(opts, ctx.shape);
}

/**
 * Prints a plain value (a list of rows, a status object) in `format`; with a shape, the value
 * as `-o json` would print it goes through it (per element with `-o ndjson`).
 */
export async function printValue(ctx: Context, format: OutputFormat, value: unknown, human: () => string): Promise<void> {
  const shape = ctx.shape;
  if (!shape) return renderValue(ctx.io, format, value, human);
  if (!shape.query) return renderValue(ctx.io, format, shapeValue(value, shape, false), human);
  const result = shapeValue(value, shape, format === 'ndjson');
  if (format === 'ndjson' && Array.isArray(result)) {
    await writeOut(ctx.io.stdout, result.map((v) => `${JSON.stringify(v ?? null)}\n`).join(''));
    return;
  }
  await writeOut(ctx.io.stdout, formatResult(result, format === 'raw'));
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
