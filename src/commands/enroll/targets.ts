/**
 * The sequence and mailbox of `svc enroll`, given as an id, a name (a sequence's name, a
 * mailbox's address), or, on a terminal when the option is left out, chosen in a searchable
 * list. A value of digits only is an id. Names are looked up before anything is written; one
 * that matches no record or several is a usage error listing candidates with ids.
 */
import { idValue } from '../../lossless-json.js';
import type { PageClient } from '../../api/paginate.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { resourceByType } from '../../registry/index.js';
import { readNamed, resolveName, type NameSource } from '../shared/name-lookup.js';
import { rehearsalMask } from '../shared/rehearsal.js';

/** What `enroll` needs to name. */
type TargetKind = 'sequence' | 'mailbox';

const SOURCES: Record<TargetKind, NameSource> = {
  sequence: { rt: resourceByType('sequence')!, attr: 'name' },
  mailbox: { rt: resourceByType('mailbox')!, attr: 'email' },
};

/** A picker may open: a person at a terminal, not a CI job. */
export function mayPrompt(ctx: Context): boolean {
  const ci = ctx.env.CI;
  const inCi = ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
  return ctx.io.stdinIsTTY && ctx.io.stderrIsTTY && !inCi;
}

/**
 * The id of the sequence or mailbox an option names.
 * Requests: none for an id; one or two list requests for a name (or ⌈records / 1,000⌉ for a
 * sequence name, which the service cannot filter on); the whole list for the picker.
 * @throws UsageError when the option is missing (and no picker may open), or names no single record
 */
export async function targetId(ctx: Context, client: PageClient, kind: TargetKind, value: string | undefined): Promise<number | string> {
  const flag = `--${kind}`;
  const src = SOURCES[kind];
  const what = kind === 'sequence' ? 'a sequence id or name' : 'a mailbox id or e-mail address';
  if (value === undefined) {
    if (!mayPrompt(ctx)) throw new UsageError(`${flag} is required: ${what}`);
    return pick(ctx, client, kind);
  }
  const v = value.trim();
  if (/^\d+$/.test(v)) {
    if (!/^[1-9]/.test(v)) throw new UsageError(`${flag} ${value}: expected ${what}`);
    return idValue(v);
  }
  if (!v) throw new UsageError(`${flag}: expected ${what}`);
  // On an anonymised copy a mailbox's address is a fake: the one the copy holds for this one.
  const mask = await rehearsalMask(ctx);
  const name = mask ? mask.value(src.rt.type, src.attr, v) : v;
  if (name === v) return idValue(String((await resolveName(client, src, name, flag, ctx.signal)).id));
  try {
    return idValue(String((await resolveName(client, src, name, flag, ctx.signal)).id));
  } catch (err) {
    // The message would quote the copy's fake of the value and list fakes as candidates.
    if (!(err instanceof UsageError)) throw err;
    throw new UsageError(`${flag} ${JSON.stringify(v)}: no ${kind} of this copy has that ${src.attr}`).hint(
      `the copy holds the ${SOURCES[kind].rt.command} production had when it was made; give the id instead`,
    );
  }
}

/** The searchable list (on stderr, like every prompt). */
async function pick(ctx: Context, client: PageClient, kind: TargetKind): Promise<number> {
  // A sequence that is off sends nothing to whom it enrols: marked in the list (a trial picked one unawares).
  const src = kind === 'sequence' ? { ...SOURCES[kind], more: ['enabled'] } : SOURCES[kind];
  const records = await readNamed(client, src, undefined, ctx.signal);
  if (records.length === 0) throw new UsageError(`--${kind}: there are no ${SOURCES[kind].rt.command} to choose from`);
  const prompter = await ctx.prompter();
  const choices = records.map((r) => ({
    value: Number(r.id),
    name: `${r.name || '(no name)'} (id ${r.id})${r.attributes['enabled'] === false ? ' · off' : ''}`,
  }));
  return prompter.search(`Which ${kind}? (type to search)`, choices);
}
