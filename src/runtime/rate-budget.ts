/**
 * Opens the command's door to the shared rate budget (budget/gate.ts) for its connection: one
 * ledger per user and API. The user is the profile's logged-in user when `svc login` recorded
 * it (a `--token` that a profile of the same API holds is that profile's user), else the token
 * itself (hashed: CI jobs sharing one `SVC_TOKEN` share one budget), else the profile's name.
 */
import { createHash } from 'node:crypto';
import { BudgetGate } from '../budget/gate.js';
import { FileLedger, ledgerFile } from '../budget/file-ledger.js';
import { dataDir } from '../auth/config-dir.js';
import type { Ledger } from '../budget/ledger.js';
import type { Connection } from './connection.js';
import type { Context } from './context.js';

/** The gate of a command, or undefined when it has no API to pace (no token). */
export async function openRateBudget(ctx: Context, conn: Connection, command: string): Promise<BudgetGate | undefined> {
  const ledger = await openLedger(ctx, conn);
  const gate = new BudgetGate({
    ledger,
    command,
    ...(ctx.globals.priority ? { priority: ctx.globals.priority } : {}),
    ...(ctx.globals.budget ? { cap: ctx.globals.budget } : {}),
    now: () => ctx.clock.now(),
    sleep: (ms, signal) => ctx.clock.sleep(ms, signal),
    warn: (line) => ctx.warn(line),
    info: (line) => ctx.info(line),
    trace: (line) => ctx.trace(line),
  });
  ctx.onClose(() => gate.close());
  return gate;
}

/**
 * The ledger of the connection's user and API: a file in the data directory, or with
 * `--budget-ledger postgres://…` a row in that database, shared by svc on several machines
 * (closed with the command).
 */
export async function openLedger(ctx: Context, conn: Connection): Promise<Ledger> {
  const url = ctx.globals.budgetLedger;
  if (url !== undefined) {
    // Performance machinery (src/README.md, Build): loaded with import() when first used.
    const { PgLedger } = await import('../budget/pg-ledger.js');
    const ledger = new PgLedger(url, await userKey(ctx, conn), conn.baseUrl, () => ctx.clock.now());
    for (const s of ledger.passwords()) ctx.addSecret(s);
    ctx.onClose(() => ledger.close());
    return ledger;
  }
  return new FileLedger(ledgerFile(dataDir(ctx.env), await userKey(ctx, conn), conn.baseUrl), () => ctx.clock.now());
}

async function userKey(ctx: Context, conn: Connection): Promise<string> {
  if (conn.tokenSource === 'profile' || conn.tokenSource === 'refresh-env') {
    const id = (await ctx.config()).get(conn.profileName)?.user?.id;
    return id !== undefined ? `user:${id}` : `profile:${conn.profileName}`;
  }
  let token: string;
  try {
    token = await conn.tokens.getToken();
  } catch {
    return `profile:${conn.profileName}`;
  }
  // The token of a profile whose user is known (`--token "$(svc auth token)"`, or a profile made
  // with `login --with-token` of the same token): that user's ledger. Keyed by the token alone,
  // one user's jobs kept two ledgers, and `svc limits` under the profile saw neither the other's
  // holders nor its count (a trial).
  const store = await ctx.config();
  for (const name of store.names()) {
    const p = store.get(name);
    if (p?.accessToken === token && p.user?.id !== undefined && sameApi(p.baseUrl, conn.baseUrl)) return `user:${p.user.id}`;
  }
  return `token:${createHash('sha256').update(token).digest('hex')}`;
}

/** Two base URLs of one API (a trailing slash aside). */
function sameApi(a: string | undefined, b: string): boolean {
  return a !== undefined && a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}
