/**
 * Token refresh interrupted with SIGINT and SIGKILL at seeded random points while the refresh
 * request is on the wire (the proxy holds the token endpoint's answer a little, before or after
 * the server acted). After every interruption the config store parses and holds either the old
 * login or the complete new one — never half of it — and is 0600 in a 0700 directory; the rerun
 * succeeds.
 *
 * A refresh killed (SIGKILL) after the server rotated the refresh token but before svc heard the
 * answer leaves a refresh token the server no longer takes — rotation makes that window
 * unavoidable on the client side: the rerun then says so and exits 3, and `svc login` mends it.
 * A Ctrl-C lets the request finish and stores its tokens, so it never loses the login.
 *
 * Trials per signal: SVC_RELIABILITY_TRIALS (default 3, 5 before; the issue's figure is 20). The
 * seeded first three hold (here, 2026-11-29): for SIGINT a refresh that finished before the
 * signal, one interrupted before the request left, and one interrupted on the wire that Ctrl-C
 * let finish and store; for SIGKILL two killed before the request left and one killed after the
 * server rotated the token (the lost rotation: exit 3, then `svc login`). Trials 4 and 5 of five
 * repeated those kinds but one (a SIGKILL after the new login was stored, which SIGINT trial 0
 * also leaves).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from '../helpers/bulk.js';
import { cliLoginInProcess } from '../helpers/in-process-login.js';
import { editProfile } from '../helpers/oauth.js';
import { startRig, type Rig } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { spawnSvc, tempDir } from '../helpers/run-svc.js';
import { recordStats } from '../helpers/stats.js';
import {
  atTime,
  expectEndedBy,
  expectWholeLogin,
  killWhen,
  readStore,
  TRIALS,
  trialTimeout,
  type StoredProfile,
} from '../helpers/trials.js';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ seed: 48, tokenIssueIntervalMs: 0 });
});
afterAll(() => rig.close());

const TOKEN = { method: 'POST', path: /^\/oauth\/token$/ };
const proxied = () => ({ SVC_BASE_URL: `${rig.proxy.origin}/api/v2`, SVC_AUTH_URL: rig.proxy.origin });
const figures = { trials: 0, interrupted: 0, corrupt: 0, lostRotations: 0 };
afterAll(() =>
  recordStats('interrupt-refresh', {
    trials: figures.trials,
    interruptions: figures.interrupted,
    corruptStores: figures.corrupt,
    refreshTokensLostToRotation: figures.lostRotations,
  }),
);

type Profile = StoredProfile;
const store = (dir: string) => readStore(dir, () => figures.corrupt++);
const expectWhole = (p: Profile | undefined) => expectWholeLogin(p, rig.sb.clientId);

describe.each(['SIGINT', 'SIGKILL'] as const)('%s during a token refresh', (signal) => {
  it(`${TRIALS} seeded trials: old or new login, never half; the rerun succeeds`, { timeout: trialTimeout(3_000) }, async () => {
    const rnd = prng(signal === 'SIGINT' ? 5_501 : 5_602);
    const dir = tempDir();
    const login = await cliLoginInProcess(rig.sb, dir, [], proxied());
    expect(login.code, login.stderr).toBe(0);
    for (let t = 0; t < TRIALS; t++) {
      editProfile(dir, 'default', { expiresAt: Date.now() - 1000 });
      const before = store(dir)!.profiles.default!;
      const hold = { kind: 'delay' as const, ms: 150 + Math.floor(rnd() * 250), afterServer: rnd() < 0.5 };
      const remove = rig.proxy.plan(TOKEN, [hold]);
      const mark = rig.sb.requests.length;
      const proxyMark = rig.proxy.log.length;
      const delay = Math.floor(rnd() * (hold.ms + 350));
      const started = Date.now();
      const child = spawnSvc(['prospects', 'list', '--limit', '1', '-o', 'json'], { env: { SVC_CONFIG_DIR: dir } });
      const ended = await killWhen(child, signal, () => Date.now() - started >= delay, { arm: atTime(started + delay) });
      remove();
      // Let a request the proxy still holds reach its end before looking at the server.
      await new Promise((r) => setTimeout(r, hold.ms + 50));
      expectEndedBy(ended, signal);
      figures.trials++;
      if (ended.interrupted) figures.interrupted++;
      const where = `trial ${t} (${signal} ${delay} ms after start, answer held ${hold.ms} ms ${hold.afterServer ? 'after' : 'before'} the server)`;
      const after = store(dir)!.profiles.default!;
      expectWhole(after);
      const refreshed = after.accessToken !== before.accessToken;
      if (refreshed) {
        expect(after.refreshToken, where).not.toBe(before.refreshToken);
        expect(after.expiresAt, where).toBeGreaterThan(Date.now());
      } else {
        expect(after.refreshToken, where).toBe(before.refreshToken);
      }
      // Did the server rotate the refresh token for an answer svc never stored?
      const issued = rig.sb.requests.slice(mark).filter((q) => q.path === '/oauth/token' && q.status === 200);
      const lost = !refreshed && issued.some((q) => new URLSearchParams(q.body).get('refresh_token') === before.refreshToken);
      // The rerun: in this process (the killed run is the built bin/svc).
      const rerun = await svcInProcess(['prospects', 'list', '--limit', '1', '-o', 'json'], { env: { SVC_CONFIG_DIR: dir } });
      if (lost) {
        // Only a kill while the answer was on its way back can do this; Ctrl-C waits for it.
        expect(signal, where).toBe('SIGKILL');
        expect(
          rig.proxy.since(proxyMark, TOKEN).some((e) => e.fault === 'delay'),
          where,
        ).toBe(true);
        figures.lostRotations++;
        expect(rerun.code, rerun.stderr).toBe(3);
        expect(rerun.stderr).toMatch(/invalid_grant[\s\S]*hint: run `svc login`/);
        const relog = await cliLoginInProcess(rig.sb, dir, [], proxied());
        expect(relog.code, relog.stderr).toBe(0);
      } else {
        expect(rerun.code, `${where}\n${rerun.stderr}`).toBe(0);
      }
      expectWhole(store(dir)!.profiles.default);
    }
  });
});
