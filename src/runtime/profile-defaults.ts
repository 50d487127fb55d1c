/**
 * The profile's settings (`svc config set`) as defaults of the command about to run: the output
 * format, `--page-size`, `--concurrency`. Anything on the command line or in `SVC_*` wins. Read
 * from the config store the command opens anyway for its connection, so it costs no extra load.
 */
import type { Command } from 'commander';
import { OUTPUT_FORMATS, type OutputFormat } from '../output/formats.js';
import type { Context } from './context.js';

/** Option (commander's name) ← setting key. */
const OPTION_DEFAULTS: Record<string, string> = { pageSize: 'pageSize', concurrency: 'concurrency' };

/** Applies the current profile's settings to `ctx.output` and to the command's unset options. */
export async function applyProfileDefaults(ctx: Context, cmd: Command): Promise<void> {
  let settings: Record<string, string | number> | undefined;
  try {
    const store = await ctx.config();
    settings = store.get(store.currentName())?.settings;
  } catch {
    // A config the command cannot use is reported by the command that needs it, as before.
    return;
  }
  if (!settings) return;
  const output = settings.output;
  if (ctx.globals.output === undefined && typeof output === 'string' && (OUTPUT_FORMATS as readonly string[]).includes(output)) {
    ctx.output = output as OutputFormat;
  }
  const opts = cmd.opts() as Record<string, unknown>;
  for (const [option, key] of Object.entries(OPTION_DEFAULTS)) {
    const value = settings[key];
    const declared = cmd.options.some((o) => o.attributeName() === option);
    // create/update/delete take --concurrency for bulk runs only (`--input`).
    if (option === 'concurrency' && cmd.name() !== 'enroll' && opts.input === undefined) continue;
    if (declared && opts[option] === undefined && value !== undefined) cmd.setOptionValueWithSource(option, String(value), 'config');
  }
}
