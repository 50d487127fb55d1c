/** `svc profiles list|use|remove`. */
import { withStoreLock } from '../../auth/store-lock.js';
import { confirmOrYes } from '../shared/confirm.js';
import { describeUser } from '../../auth/whoami.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { didYouMean } from '../../suggest.js';
import type { FlatRecord } from '../../listing/record-text.js';
import { printValue } from '../shared/output.js';
import { alignedColumns } from '../../output/aligned-columns.js';
import { printDryRun } from '../shared/dry-run.js';

export async function listProfiles(ctx: Context): Promise<void> {
  const store = await ctx.config();
  const current = store.currentName();
  const now = ctx.clock.now();
  const rows = store
    .names()
    .sort()
    .map((name) => {
      const p = store.get(name) ?? {};
      const state =
        !p.accessToken && !p.refreshToken
          ? 'logged out'
          : p.expiresAt !== undefined && p.expiresAt <= now && !p.refreshToken
            ? 'expired'
            : 'logged in';
      return {
        name,
        current: name === current,
        baseUrl: p.baseUrl ?? null,
        user: describeUser(p.user) ?? null,
        state,
        expiresAt: p.expiresAt !== undefined ? new Date(p.expiresAt).toISOString() : null,
      };
    });
  if (!rows.length && ctx.output === 'table') {
    ctx.info('No profiles yet: run `svc login --base-url <url>` to create one.');
    return;
  }
  // On a terminal the user column is cut with … to fit (lines of 102–106 columns at 80, a trial).
  await printValue(ctx, ctx.output, rows as unknown as FlatRecord[], () =>
    alignedColumns(
      ['', 'NAME', 'BASE URL', 'USER', 'STATE'],
      rows.map((r) => [r.current ? '*' : '', r.name, r.baseUrl ?? '', r.user ?? '', r.state]),
      ctx.io.stdoutIsTTY ? { width: ctx.io.columns, flex: 3 } : undefined,
    ),
  );
}

function unknownProfile(names: string[], name: string): UsageError {
  return new UsageError(
    `no profile named "${name}"${didYouMean(name, names)}${names.length ? ` (profiles: ${names.join(', ')})` : ''}`,
  ).hint(`create it with \`svc --profile ${name} login --base-url <url>\``);
}

export async function useProfile(ctx: Context, name: string): Promise<void> {
  const store = await ctx.config();
  if (!store.get(name)) throw unknownProfile(store.names(), name);
  // --dry-run promises no change: the profile was switched (and removed, below) all the same (a review).
  if (ctx.globals.dryRun) return printDryRun(ctx, [], [`would make "${name}" the current profile in ${store.path}`]);
  await withStoreLock(store, () => store.use(name), ctx.signal);
  ctx.info(`Now using profile "${name}".`);
  if (ctx.env.SVC_PROFILE && ctx.env.SVC_PROFILE !== name) ctx.warn(`SVC_PROFILE=${ctx.env.SVC_PROFILE} is set and wins over this choice`);
}

export async function removeProfile(ctx: Context, name: string): Promise<void> {
  const store = await ctx.config();
  if (!store.get(name)) throw unknownProfile(store.names(), name);
  await warnStandingRuns(ctx, name);
  if (ctx.globals.dryRun) return printDryRun(ctx, [], [`would remove profile "${name}" and its tokens from ${store.path}`]);
  const go = await confirmOrYes(ctx, {
    refuse: `remove profile "${name}"`,
    question: `Remove profile "${name}" and its tokens?`,
    declined: 'Nothing removed.',
  });
  if (!go) return;
  await withStoreLock(store, () => store.remove(name), ctx.signal);
  ctx.info(`Removed profile "${name}".`);
}

/**
 * Said before a profile is removed: the runs it made that can still be undone, and how once it is
 * gone (its name was the only way the hint knew, a trial: exit 11, "svc --profile tmp runs undo").
 */
async function warnStandingRuns(ctx: Context, name: string): Promise<void> {
  // Performance machinery (src/README.md, Build): the runs' store is loaded only here.
  const [{ standingRunsOf }, { runsDirOf }] = await Promise.all([import('../runs/store.js'), import('../bulk-run/run-recording.js')]);
  const { orgNamed, apiOnly } = standingRunsOf(runsDirOf(ctx), name);
  if (orgNamed + apiOnly === 0) return;
  const ways = [
    ...(orgNamed ? [`${orgNamed} can be undone from any profile logged in to the same org`] : []),
    ...(apiOnly ? [`${apiOnly} (single writes) only after \`svc --profile ${name} login\` to that org again`] : []),
  ];
  ctx.warn(`profile "${name}" made ${orgNamed + apiOnly} run(s) not undone (svc runs list --all): once it is removed, ${ways.join('; ')}`);
}
