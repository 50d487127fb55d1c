/** Interactive create: asks for the type's main fields when nothing was given on a TTY. */
import { coerceString, checkValue } from '../../api/validate.js';
import type { Context } from '../../runtime/context.js';
import { findAttribute, type ResourceType } from '../../registry/index.js';

/** Prompts for `promptFields` that are attributes; empty answers are skipped. */
export async function promptForFields(ctx: Context, rt: ResourceType): Promise<Record<string, unknown>> {
  const prompter = await ctx.prompter();
  const out: Record<string, unknown> = {};
  for (const name of rt.promptFields) {
    const spec = findAttribute(rt, name);
    if (!spec || spec.readOnly) continue;
    const hint = spec.enum ? ` (${spec.enum.join('/')})` : spec.type === 'string[]' ? ' (comma-separated)' : '';
    for (;;) {
      const answer = (await prompter.input(`${name}${hint}:`)).trim();
      if (answer === '') break;
      const r = coerceString(spec, answer);
      const problem = 'problem' in r ? r.problem : checkValue(spec, r.value);
      if (problem) {
        ctx.io.stderr.write(`  ${problem}\n`);
        continue;
      }
      out[name] = (r as { value: unknown }).value;
      break;
    }
  }
  return out;
}
