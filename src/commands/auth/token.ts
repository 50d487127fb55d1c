/** `svc auth token`: prints a valid access token (refreshed first when it expires within a minute). */
import type { Context } from '../../runtime/context.js';
import { writeOut } from '../../output/io.js';

export async function tokenHandler(ctx: Context): Promise<void> {
  const conn = await ctx.connection();
  const token = await conn.tokens.getToken();
  // Printed on purpose: the one place svc shows a token (stdout only, never redacted here).
  await writeOut(ctx.io.stdout, `${token}\n`);
}
