/**
 * The shared rate budget's ledger (src/budget/ledger.ts, file-ledger.ts): leases, fair shares,
 * the interactive reserve, stale and dead leases returning what they held, the server's readings
 * winning, a reset with requests held and in flight (the new window counts only what its answers
 * do not place in the old one; before, all that was held at the last step counted in the new), and ledger files this svc cannot use (left untouched, said why).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileLedger, LedgerUnusable, ledgerFile } from '../../src/budget/file-ledger.js';
import { emptyState, fairShares, reserveOf, STALE_MS, take, type LedgerState, type TakeRequest } from '../../src/budget/ledger.js';
import { tempDir } from '../helpers/run-svc.js';

const HOST = os.hostname();
const T0 = 1_800_000_000_000;

function lease(pid: number, kind: 'interactive' | 'bulk' = 'bulk', extra: Partial<TakeRequest['lease']> = {}): TakeRequest['lease'] {
  return { pid, host: HOST, command: `cmd ${pid}`, kind, priority: 'normal', started: T0, ...extra };
}

/** A ledger that knows a window of `limit` resetting in an hour. */
function known(limit: number): LedgerState {
  return { ...emptyState(), limit, resetAt: T0 + 3600_000 };
}

const world = (now = T0, alive: (pid: number) => boolean = () => true) => ({ now, host: HOST, alive });

describe('ledger rules', () => {
  it('counts what it grants, and never grants past the window', () => {
    const s = known(100);
    const r = take(s, { lease: lease(1, 'interactive'), held: 0, want: 1 }, world());
    expect(r).toMatchObject({ granted: 1, left: 99, probe: false });
    expect(s.used).toBe(1);
    s.used = 99;
    expect(take(s, { lease: lease(1, 'interactive'), held: 0, want: 5 }, world()).granted).toBe(1);
    expect(take(s, { lease: lease(1, 'interactive'), held: 0, want: 5 }, world())).toMatchObject({ granted: 0, why: 'window' });
  });

  it('keeps a reserve for interactive commands that bulk runs cannot take', () => {
    const s = known(600);
    s.used = 600 - reserveOf(600);
    expect(take(s, { lease: lease(1), held: 0, want: 3 }, world())).toMatchObject({ granted: 0, why: 'window' });
    expect(take(s, { lease: lease(2, 'interactive'), held: 0, want: 1 }, world()).granted).toBe(1);
  });

  it("gives bulk runs most of the reserve in the window's last moments, and keeps a fifth for a read", () => {
    // Limit 80 (shared-budget.test.ts): a reserve of 5, of which 1 stays. With none kept, a
    // read that came then while bulk runs had spent the window waited up to 1.8 s for the reset.
    const s = known(80);
    s.used = 80 - reserveOf(80);
    const ending = world(T0 + 3600_000 - 1000);
    expect(take(s, { lease: lease(1), held: 0, want: 10 }, ending)).toMatchObject({ granted: reserveOf(80) - 1, why: 'window' });
    expect(take(s, { lease: lease(2, 'interactive'), held: 0, want: 1 }, ending).granted).toBe(1);
    expect(s.used).toBe(80);
  });

  it('shares what bulk runs have left fairly, by priority, each under its cap', () => {
    const s = known(1000);
    take(s, { lease: lease(1), held: 0, want: 0 }, world());
    take(s, { lease: lease(2, 'bulk', { priority: 'high' }), held: 0, want: 0 }, world());
    take(s, { lease: lease(3, 'bulk', { cap: { percent: 10 } }), held: 0, want: 0 }, world());
    for (const l of s.leases) l.wantAt = T0;
    const shares = new Map([...fairShares(s, T0)].map(([l, n]) => [l.pid, n]));
    // 985 to share (15 reserved): the capped run gets its 100, the rest 1:2 between normal and high.
    expect(shares.get(3)).toBe(100);
    expect(shares.get(1)).toBe(295);
    expect(shares.get(2)).toBe(590);
    // A run at its share waits ('share'); a capped one at its cap is told so.
    s.leases.find((l) => l.pid === 1)!.taken = 295;
    s.used = 295;
    expect(take(s, { lease: lease(1), held: 0, want: 5 }, world())).toMatchObject({ granted: 0, why: 'share' });
    s.leases.find((l) => l.pid === 3)!.taken = 100;
    s.used += 100;
    expect(take(s, { lease: lease(3, 'bulk', { cap: { percent: 10 } }), held: 0, want: 5 }, world())).toMatchObject({
      granted: 0,
      why: 'cap',
      cap: 100,
    });
  });

  it('drops the lease of a dead pid and returns what it held unsent', () => {
    const s = known(100);
    take(s, { lease: lease(7), held: 0, want: 10 }, world());
    expect(s.used).toBe(10);
    // pid 7 sent 4 of its 10 (it said so at its last step), then died.
    take(s, { lease: lease(7), held: 6, want: 0 }, world());
    take(
      s,
      { lease: lease(8), held: 0, want: 0 },
      world(T0 + 10, (pid) => pid !== 7),
    );
    expect(s.leases.map((l) => l.pid)).toEqual([8]);
    expect(s.used).toBe(4);
  });

  it('drops a lease whose heartbeat is older than STALE_MS (another host, a hung process)', () => {
    const s = known(100);
    take(s, { lease: { ...lease(7), host: 'elsewhere' }, held: 0, want: 5 }, world());
    take(s, { lease: lease(8), held: 0, want: 0 }, world(T0 + STALE_MS - 1));
    expect(s.leases).toHaveLength(2);
    take(s, { lease: lease(8), held: 0, want: 0 }, world(T0 + STALE_MS + 1));
    expect(s.leases.map((l) => l.pid)).toEqual([8]);
    expect(s.used).toBe(0);
  });

  it("believes the server: its higher count, its new window, over the ledger's clock", () => {
    const s = known(100);
    take(s, { lease: lease(1), held: 0, want: 5 }, world());
    // Another machine spent 50 meanwhile.
    take(s, { lease: lease(1), held: 0, want: 0, reading: { limit: 100, remaining: 45, resetAt: T0 + 3600_000, status: 200 } }, world());
    expect(s.used).toBe(55);
    // The server started a new window a moment before our clock said so (its reset is rounded
    // up to the second): its count replaces ours.
    const atEnd = world(T0 + 3600_000 - 900);
    take(s, { lease: lease(1), held: 0, want: 0, reading: { limit: 100, remaining: 98, resetAt: T0 + 7200_000, status: 200 } }, atEnd);
    expect(s).toMatchObject({ used: 2, resetAt: T0 + 7200_000 });
    // A late answer of the old window changes nothing.
    take(s, { lease: lease(1), held: 0, want: 0, reading: { limit: 100, remaining: 10, resetAt: T0 + 3600_000, status: 200 } }, atEnd);
    expect(s.used).toBe(2);
  });

  it('takes no later window while its own has seconds to run: an uncounted answer does not give the hour back', () => {
    // Found by shared-budget.test.ts under load: the sandbox answered its schema without
    // counting it, with the headers of a fresh window (remaining = limit, reset = now + window);
    // the ledger took that for a new window, its count went from 54 to 2, and four processes
    // were granted the window again: 5 × 429.
    const s = known(80);
    take(s, { lease: lease(1), held: 0, want: 54 }, world());
    take(
      s,
      { lease: lease(1), held: 0, want: 0, reading: { limit: 80, remaining: 80, resetAt: T0 + 3600_000 + 4000, status: 200 } },
      world(T0 + 1000),
    );
    expect(s).toMatchObject({ used: 54, resetAt: T0 + 3600_000 });
    const r = take(s, { lease: lease(2), held: 0, want: 80 }, world(T0 + 1000));
    expect(r.granted).toBeLessThanOrEqual(80 - 54);
    // A refusal from such a window still says this one is spent.
    take(
      s,
      { lease: lease(1), held: 0, want: 0, reading: { limit: 80, remaining: 0, resetAt: T0 + 3600_000 + 4000, status: 429 } },
      world(T0 + 1000),
    );
    expect(s).toMatchObject({ used: 80, resetAt: T0 + 3600_000 });
    expect(take(s, { lease: lease(1), held: 0, want: 1 }, world(T0 + 2000)).granted).toBe(0);
    // At our reset the window rolls over as usual, and the next reading sets the new one.
    const next = world(T0 + 3600_000 + 1000);
    expect(take(s, { lease: lease(1), held: 0, want: 5 }, next)).toMatchObject({ granted: 1, probe: true });
    take(s, { lease: lease(1), held: 1, want: 0, reading: { limit: 80, remaining: 79, resetAt: T0 + 7200_000, status: 200 } }, next);
    expect(s.resetAt).toBe(T0 + 7200_000);
  });

  it('rolls the window over at its reset, then probes one request at a time until a reading confirms it', () => {
    const s = known(100);
    s.used = 100;
    const later = world(T0 + 3600_000 + 1000);
    expect(take(s, { lease: lease(1), held: 0, want: 5 }, later)).toMatchObject({ granted: 1, probe: true });
    const r = take(
      s,
      { lease: lease(1), held: 0, want: 5, reading: { limit: 100, remaining: 99, resetAt: T0 + 7200_000, status: 200 } },
      later,
    );
    expect(r).toMatchObject({ granted: 5, probe: false });
  });

  it('counts in a new window only what a lease held at the reset and did not send before it (its answers say)', () => {
    // Window A of 600 resets at RA; 510 were sent by others. At their last steps before the reset
    // lease 1 held 40 unsent with 10 in flight (its answers in A then: 240), lease 2 held 30.
    const RA = T0 + 10_000;
    const RB = RA + 10_000;
    const s: LedgerState = { ...emptyState(), limit: 600, resetAt: RA, used: 0 };
    take(s, { lease: lease(1), held: 0, want: 0, inflight: 0 }, world(RA - 3000));
    take(s, { lease: lease(2), held: 0, want: 0, inflight: 0 }, world(RA - 3000));
    // Each took 290 in A (set here rather than taken in steps: the rule at hand is the reset's).
    for (const l of s.leases) Object.assign(l, { taken: 290, held: l.pid === 1 ? 40 : 30 });
    s.used = 580;
    const before = world(RA - 2000);
    take(s, { lease: lease(1), held: 40, want: 0, inflight: 10, answered: [{ resetAt: RA, n: 240 }] }, before);
    take(s, { lease: lease(2), held: 30, want: 0, inflight: 0, answered: [{ resetAt: RA, n: 260 }] }, before);
    expect(s.used).toBe(580);
    // The reset passes (lease 2 steps first): all that was held counts in window B.
    const after = world(RA + 500);
    take(s, { lease: lease(2), held: 30, want: 0, inflight: 0, answered: [{ resetAt: RA, n: 260 }] }, after);
    expect(s).toMatchObject({ used: 70, unconfirmed: true });
    // Lease 1 sent its 40 before the reset; 45 answers came back with A's reset since its last
    // step (5 are still out). 10 of them are of the requests in flight then, so 35 of the 40 it
    // held were sent in A: B no longer counts them.
    take(s, { lease: lease(1), held: 0, want: 0, inflight: 5, answered: [{ resetAt: RA, n: 285 }] }, after);
    expect(s.used).toBe(35);
    // The other 5 come back with B's reset: sent in B, they stay counted; a reading confirms B.
    take(
      s,
      {
        lease: lease(1),
        held: 0,
        want: 0,
        inflight: 0,
        reading: { limit: 600, remaining: 595, resetAt: RB, status: 200 },
        answered: [
          { resetAt: RA, n: 285 },
          { resetAt: RB, n: 5 },
        ],
      },
      after,
    );
    expect(s).toMatchObject({ used: 35, resetAt: RB, unconfirmed: false });
    // Lease 2 held its 30 through the reset: sent in B, all of it stays counted.
    const l2 = [
      { resetAt: RA, n: 260 },
      { resetAt: RB, n: 30 },
    ];
    take(s, { lease: lease(2), held: 0, want: 0, inflight: 0, answered: l2 }, after);
    expect(s.used).toBe(35);
    expect(s.leases.map((l) => [l.pid, l.taken])).toEqual([
      [1, 5],
      [2, 30],
    ]);
    // A process that does not say what it has in flight takes nothing back.
    const t: LedgerState = { ...emptyState(), limit: 600, resetAt: RA, used: 0 };
    take(t, { lease: lease(3), held: 40, want: 0, answered: [{ resetAt: RA, n: 100 }] }, before);
    take(t, { lease: lease(4), held: 0, want: 0, inflight: 0 }, after);
    take(t, { lease: lease(3), held: 0, want: 0, inflight: 0, answered: [{ resetAt: RA, n: 140 }] }, after);
    expect(t.used).toBe(40);
    // Requests in flight at the reset and answered with B's reset were counted in A: B counts them
    // once the process's answers in B outnumber what it took there.
    const u: LedgerState = { ...emptyState(), limit: 600, resetAt: RA, used: 0 };
    take(u, { lease: lease(5), held: 0, want: 0, inflight: 0 }, world(RA - 3000));
    take(u, { lease: lease(5), held: 0, want: 0, inflight: 4, answered: [{ resetAt: RA, n: 96 }] }, before);
    take(u, { lease: lease(6), held: 0, want: 0, inflight: 0 }, after);
    const b = { limit: 600, remaining: 600, resetAt: RB, status: 200 };
    take(u, { lease: lease(6), held: 0, want: 0, inflight: 0, reading: b }, after);
    expect(u.used).toBe(0);
    const inB = [
      { resetAt: RA, n: 96 },
      { resetAt: RB, n: 4 },
    ];
    take(u, { lease: lease(5), held: 0, want: 0, inflight: 0, answered: inB }, after);
    expect(u.used).toBe(4);
  });
});

describe('the ledger file', () => {
  it('is owner-only, one per user and base URL, and survives many processes taking at once', async () => {
    const dir = tempDir();
    const file = ledgerFile(dir, 'token:abc', 'http://x/api/v2');
    expect(ledgerFile(dir, 'token:abc', 'http://x/api/v2/')).toBe(file);
    expect(ledgerFile(dir, 'token:def', 'http://x/api/v2')).not.toBe(file);
    const ledgers = Array.from({ length: 8 }, () => new FileLedger(file));
    // Eight ledgers (as eight processes would) taking concurrently: never more than the limit.
    // (Leases of other hosts: their pids are not looked up here, only their heartbeats.)
    await ledgers[0]!.report({
      lease: lease(1),
      held: 0,
      reading: { limit: 50, remaining: 50, resetAt: Date.now() + 60_000, status: 200 },
    });
    const grants = await Promise.all(
      ledgers.flatMap((l, i) =>
        Array.from({ length: 5 }, () => l.take({ lease: { ...lease(100 + i, 'interactive'), host: `host-${i}` }, held: 0, want: 2 })),
      ),
    );
    expect(grants.reduce((n, g) => n + g.granted, 0)).toBe(50);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });

  it.each([
    ['not JSON', 'garbage\n', /is not a ledger \(not JSON\)/],
    ['from a newer svc', JSON.stringify({ version: 9, used: 0, leases: [] }), /written by a newer svc \(ledger version 9\)/],
    ['with a lease it cannot read', JSON.stringify({ version: 1, used: 0, leases: [{ pid: 'x' }] }), /a lease cannot be read/],
  ])('a ledger %s is refused with the reason, and left as it was', async (_what, text, reason) => {
    const file = ledgerFile(tempDir(), 'u', 'http://x');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    const err = await new FileLedger(file).take({ lease: lease(1), held: 0, want: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LedgerUnusable);
    expect((err as Error).message).toMatch(reason);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses a symlink in its place', async () => {
    const dir = tempDir();
    const file = ledgerFile(dir, 'u', 'http://x');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(path.join(dir, 'target'), '{}');
    fs.symlinkSync(path.join(dir, 'target'), file);
    await expect(new FileLedger(file).take({ lease: lease(1), held: 0, want: 1 })).rejects.toThrow(/a symlink/);
    expect(fs.readFileSync(path.join(dir, 'target'), 'utf8')).toBe('{}');
  });
});
