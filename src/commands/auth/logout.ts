/** `svc logout`: deletes the profile's tokens; its URLs and OAuth client stay for the next login. */
import { TOKEN_KEYS, updateProfile } from '../../auth/store-lock.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { printDryRun } from '../shared/dry-run.js';

export async function logoutHandler(ctx: Context): Promise<void> {
  const store = await ctx.config();
  const name = store.currentName();
  const cur = store.get(name);
  if (!cur && store.names().length) {
    const { didYouMean } = await import('../../suggest.js');
    throw new UsageError(`no profile named "${name}"${didYouMean(name, store.names())} (profiles: ${store.names().join(', ')})`);
  }
  if (!cur?.accessToken && !cur?.refreshToken) {
    ctx.info(`Profile "${name}" is not logged in; nothing to do.`);
  } else if (ctx.globals.dryRun) {
    // --dry-run promises no change: the tokens were deleted all the same (a trial).
    await printDryRun(ctx, [], [`would delete the tokens of profile "${name}" from ${store.path}`]);
  } else {
    await updateProfile(
      store,
      name,
      (p) => {
        const next = { ...p };
        for (const k of TOKEN_KEYS) delete next[k];
        return next;
      },
      ctx.signal,
    );
    ctx.info(`Logged out of profile "${name}": its tokens were deleted from ${store.path}.`);
    ctx.info('The grant stays valid on the server until it expires or you revoke the application in your account settings.');
  }
  if (ctx.env.SVC_TOKEN) ctx.warn('SVC_TOKEN is still set in the environment; commands keep using it');
  if (ctx.env.SVC_REFRESH_TOKEN) ctx.warn('SVC_REFRESH_TOKEN is still set in the environment; commands will log in again with it');
}
