/** `svc config get|set|list` and `svc alias set|list|delete`: per-profile settings and saved command lines. */
import { updateProfile } from '../../auth/store-lock.js';
import { printValue } from '../shared/output.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { csvLine } from '../../output/csv.js';
import { writeOut } from '../../output/io.js';
import { didYouMean } from '../../suggest.js';
import { settingSpec, settingSpecs } from './settings.js';
import { printDryRun } from '../shared/dry-run.js';

async function profileNow(ctx: Context) {
  const store = await ctx.config();
  const name = store.currentName();
  return { store, name, profile: store.get(name) };
}

/**
 * The profile a setting or alias is written to, refused when it does not exist and is a near miss
 * of one that does: `--profile prdo config set …` made a profile "prdo" (a trial), and the next
 * command on it failed for want of a base URL. A new name unlike any is still a new profile.
 */
async function profileToWrite(ctx: Context) {
  const now = await profileNow(ctx);
  if (now.profile) return now;
  const names = now.store.names();
  const meant = misspelt(now.name, names);
  if (meant !== undefined) {
    throw new UsageError(`no profile named "${now.name}" (did you mean "${meant}"?) (profiles: ${names.join(', ')})`).hint(
      `to begin a profile "${now.name}", log in to it first: svc --profile ${now.name} login --base-url URL (or login --with-token)`,
    );
  }
  return now;
}

/**
 * A profile `name` is a slip for: the same letters in another case or order (`prdo`, `Prod`).
 * Narrow on purpose: `prod-eu2` beside `prod-eu`, or `dev2` beside `dev1`, are new profiles.
 */
function misspelt(name: string, names: readonly string[]): string | undefined {
  const letters = (s: string) => [...s.toLowerCase()].sort().join('');
  return names.find((n) => n !== name && n.length === name.length && letters(n) === letters(name));
}

/** Lines of `key  value` pairs, aligned; JSON (an object) with -o json. */
async function printPairs(ctx: Context, pairs: Record<string, unknown>, emptyNote: string): Promise<void> {
  if (ctx.output === 'json' || ctx.output === 'ndjson' || ctx.output === 'raw') {
    // One object: pretty with -o json, one line otherwise.
    await printValue(ctx, ctx.output === 'json' ? 'json' : 'ndjson', pairs, () => '');
    return;
  }
  const keys = Object.keys(pairs);
  if (!keys.length) {
    // A CSV of no row still has its header (a 0-byte file stops CSV readers).
    if (ctx.output === 'csv') await writeOut(ctx.io.stdout, csvLine(['key', 'value']));
    ctx.info(emptyNote);
    return;
  }
  // A CSV of key and value with -o csv (it printed the aligned lines, a trial).
  if (ctx.output === 'csv') {
    await writeOut(ctx.io.stdout, csvLine(['key', 'value']) + keys.map((k) => csvLine([k, pairs[k]])).join(''));
    return;
  }
  const w = Math.max(...keys.map((k) => k.length));
  await writeOut(ctx.io.stdout, keys.map((k) => `${k.padEnd(w)}  ${String(pairs[k])}`).join('\n') + '\n');
}

/** `formats`: the output formats (see settings.ts). */
export async function configGet(ctx: Context, key: string, formats: readonly string[]): Promise<void> {
  settingSpec(key, formats);
  const { profile, name } = await profileNow(ctx);
  const value = profile?.settings?.[key];
  if (value === undefined)
    throw new UsageError(`${key} is not set for profile "${name}"`).hint(`set it with \`${svcAgain(ctx)} config set ${key} VALUE\``);
  await writeOut(ctx.io.stdout, `${value}\n`);
}

export async function configSet(ctx: Context, key: string, value: string, formats: readonly string[]): Promise<void> {
  const spec = settingSpec(key, formats);
  // An empty value removes the setting: the built-in default applies again.
  const parsed = value === '' ? undefined : spec.parse(value);
  const { store, name } = await profileToWrite(ctx);
  if (ctx.globals.dryRun) {
    // --dry-run promises no change: the setting was written all the same (a trial).
    const would = parsed === undefined ? `remove ${key} from profile "${name}"` : `set ${key} = ${parsed} for profile "${name}"`;
    return printDryRun(ctx, [], [`would ${would} in ${store.path}`]);
  }
  await updateProfile(
    store,
    name,
    (cur) => {
      const settings = { ...(cur?.settings ?? {}) };
      if (parsed === undefined) delete settings[key];
      else settings[key] = parsed;
      return { ...cur, settings: Object.keys(settings).length ? settings : undefined };
    },
    ctx.signal,
  );
  ctx.info(parsed === undefined ? `${key} removed from profile "${name}"` : `${key} = ${parsed} for profile "${name}"`);
}

export async function configList(ctx: Context, formats: readonly string[]): Promise<void> {
  const specs = settingSpecs(formats);
  const { profile, name } = await profileNow(ctx);
  const set = profile?.settings ?? {};
  const pairs: Record<string, unknown> = {};
  for (const s of specs) if (set[s.key] !== undefined) pairs[s.key] = set[s.key];
  await printPairs(
    ctx,
    pairs,
    `no settings for profile "${name}"; keys: ${specs.map((s) => s.key).join(', ')} (${svcAgain(ctx)} config set KEY VALUE)`,
  );
}

const ALIAS_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

export async function aliasSet(ctx: Context, name: string, line: string, builtIns: string[]): Promise<void> {
  if (!ALIAS_NAME.test(name)) throw new UsageError(`alias "${name}": a name is letters, digits, - and _, starting with a letter`);
  // A built-in command always wins, so an alias of the same name could never run.
  if (builtIns.includes(name)) throw new UsageError(`alias "${name}": svc already has a command of that name`);
  const words = line.trim();
  if (!words) throw new UsageError(`alias ${name}: give the command line it stands for, e.g. 'prospects list --filter title=CEO'`);
  const first = words.replace(/^svc\s+/, '').split(/\s+/)[0]!;
  if (!first.startsWith('-') && !builtIns.includes(first)) {
    throw new UsageError(`alias ${name}: "${first}" is not an svc command${didYouMean(first, builtIns)}`);
  }
  const { store, name: profileName } = await profileToWrite(ctx);
  // --dry-run promises no change (the alias was written all the same, a review).
  if (ctx.globals.dryRun)
    return printDryRun(
      ctx,
      [],
      [`would set alias ${name} = svc ${words.replace(/^svc\s+/, '')} for profile "${profileName}" in ${store.path}`],
    );
  await updateProfile(
    store,
    profileName,
    (cur) => ({ ...cur, aliases: { ...(cur?.aliases ?? {}), [name]: words.replace(/^svc\s+/, '') } }),
    ctx.signal,
  );
  ctx.info(`svc ${name} now runs: svc ${words.replace(/^svc\s+/, '')} (profile "${profileName}")`);
}

export async function aliasList(ctx: Context): Promise<void> {
  const { profile, name } = await profileNow(ctx);
  await printPairs(
    ctx,
    { ...(profile?.aliases ?? {}) },
    `no aliases for profile "${name}" (${svcAgain(ctx)} alias set NAME 'COMMAND LINE')`,
  );
}

export async function aliasDelete(ctx: Context, alias: string): Promise<void> {
  const { store, name, profile } = await profileNow(ctx);
  const aliases = { ...(profile?.aliases ?? {}) };
  if (!Object.hasOwn(aliases, alias)) {
    throw new UsageError(`no alias "${alias}" in profile "${name}"${didYouMean(alias, Object.keys(aliases))}`).hint(
      `\`${svcAgain(ctx)} alias list\` shows them`,
    );
  }
  delete aliases[alias];
  if (ctx.globals.dryRun) return printDryRun(ctx, [], [`would delete alias ${alias} from profile "${name}" in ${store.path}`]);
  await updateProfile(store, name, (cur) => ({ ...cur, aliases: Object.keys(aliases).length ? aliases : undefined }), ctx.signal);
  ctx.info(`alias ${alias} deleted from profile "${name}"`);
}
