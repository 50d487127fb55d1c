/**
 * Handler of `svc limits`: the shared ledger's view of the hour (budget/ledger.ts), refreshed by
 * one request when the ledger does not know the current window (or with `--refresh`). A ledger
 * that cannot be used is said once (by the gate) and the server's headers alone are shown.
 */
import type { RateLimitInfo } from '../../api/jsonapi.js';
import { LedgerUnusable, type LedgerView } from '../../budget/ledger.js';
import type { Context } from '../../runtime/context.js';
import { printValue } from '../shared/output.js';
import { grouped } from '../../grouped.js';

/** One holder as printed. */
interface Holder {
  pid: number;
  command: string;
  kind: 'interactive' | 'bulk';
  priority: string;
  taken: number;
  held: number;
  share: number | null;
  sharePercent: number | null;
  cap: number | null;
}

/** What `svc limits -o json` prints. */
interface Limits {
  baseUrl: string;
  limit: number | null;
  used: number | null;
  left: number | null;
  reset: string | null;
  holders: Holder[];
  ledger: string | null;
}

export async function limitsHandler(ctx: Context, flags: { refresh?: boolean }): Promise<void> {
  const conn = await ctx.connection();
  const { openLedger } = await import('../../runtime/services.js');
  const ledger = await openLedger(ctx, conn);
  let view: LedgerView | undefined;
  let reading: RateLimitInfo | undefined;
  try {
    view = await ledger.leases();
  } catch (err) {
    if (!(err instanceof LedgerUnusable)) throw err;
    view = undefined;
  }
  const now = ctx.clock.now();
  if (!view || flags.refresh || view.limit === undefined || view.resetAt === undefined || view.resetAt <= now) {
    // One request (the root document): its headers carry the server's count, and the gate
    // tells the ledger (or warns that it cannot).
    const api = await ctx.api();
    reading = (await api.request({ method: 'GET', path: '' })).rateLimit;
    // This command's lease ends here, its reading told: the view is the others' and the server's.
    await (await ctx.rateBudget())?.close();
    if (view) view = await ledger.leases().catch(() => view);
  }
  const out = limitsOf(conn.baseUrl, view, reading, now, view ? ledger.where : null);
  const format = ctx.output;
  const value = format === 'csv' ? csvRows(out) : out;
  await printValue(ctx, format, value, () => human(out, now));
}

function limitsOf(
  baseUrl: string,
  view: LedgerView | undefined,
  reading: RateLimitInfo | undefined,
  now: number,
  file: string | null,
): Limits {
  if (!view) {
    const limit = reading?.limit ?? null;
    const left = reading?.remaining ?? null;
    const resetSec = reading?.reset !== undefined ? Number(reading.reset) : Number.NaN;
    return {
      baseUrl,
      limit,
      used: limit !== null && left !== null ? limit - left : null,
      left,
      reset: Number.isFinite(resetSec) && resetSec > 1e9 ? new Date(resetSec * 1000).toISOString() : null,
      holders: [],
      ledger: file,
    };
  }
  const limit = view.limit ?? null;
  return {
    baseUrl,
    limit,
    used: view.used,
    left: view.left ?? null,
    reset: view.resetAt !== undefined && view.resetAt > now ? new Date(view.resetAt).toISOString() : null,
    // This command's own lease is not news to its reader.
    holders: view.leases
      .filter((l) => l.pid !== process.pid)
      .map((l) => ({
        pid: l.pid,
        command: l.command,
        kind: l.kind,
        priority: l.kind === 'interactive' ? 'interactive' : l.priority,
        taken: l.taken,
        held: l.held,
        share: l.share ?? null,
        sharePercent: l.share !== undefined && limit ? Math.round((1000 * l.share) / limit) / 10 : null,
        cap: l.cap ?? null,
      })),
    ledger: file,
  };
}

/** `-o csv`: one row per holder, each with the window's figures (one row without holders). */
function csvRows(l: Limits): Record<string, unknown>[] {
  const window = { limit: l.limit, used: l.used, left: l.left, reset: l.reset };
  if (l.holders.length === 0) return [{ ...window, pid: null, command: null }];
  return l.holders.map((h) => ({ ...window, ...h }));
}

function human(l: Limits, now: number): string {
  const n = (v: number | null) => (v === null ? '?' : grouped(v));
  const lines = [
    `limit   ${l.limit === null ? 'unknown (no answer yet)' : `${n(l.limit)} requests an hour`} at ${l.baseUrl}`,
    `used    ${n(l.used)}`,
    `left    ${n(l.left)}`,
    `reset   ${l.reset ? `${l.reset.slice(11, 19)} UTC (in ${inWords(Date.parse(l.reset) - now)})` : 'unknown'}`,
  ];
  if (l.holders.length === 0)
    lines.push('', l.ledger ? 'no svc process holds a share now' : 'holders unknown: the shared ledger cannot be used');
  else {
    const w = Math.max(7, ...l.holders.map((h) => h.command.length));
    lines.push(
      '',
      `${'PID'.padEnd(8)} ${'COMMAND'.padEnd(w)} ${'PRIORITY'.padEnd(11)} ${'TAKEN'.padStart(6)} ${'HELD'.padStart(5)}  SHARE`,
    );
    for (const h of l.holders) {
      const share = h.share === null ? '-' : `${n(h.share)} (${h.sharePercent}%)${h.cap !== null ? `, budget ${n(h.cap)}` : ''}`;
      lines.push(
        `${String(h.pid).padEnd(8)} ${h.command.padEnd(w)} ${h.priority.padEnd(11)} ${n(h.taken).padStart(6)} ${n(h.held).padStart(5)}  ${share}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `42 s`, `12 min`. */
function inWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}
