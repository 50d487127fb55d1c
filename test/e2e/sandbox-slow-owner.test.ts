/**
 * A slow sandbox is waited for, never replaced: while `svc sandbox --latency 1500` runs,
 * `svc --sandbox` uses it (saying it waits) rather than serving the data directory's org, and
 * `--sandbox-data` on a file a slow `svc sandbox --data` serves uses that server; no hint ever
 * invites deleting the lock a live process holds.
 *
 * The slow sandboxes are built bin/svc processes (another process owns the lock); the clients
 * that find them run svc's program in the test process (svcInProcess), but the one whose org
 * file is written when its process exits.
 *
 * The "slow to answer" line went missing now and then on a loaded machine (CI, and once at a
 * latency of 2.5 s): `svc sandbox` printed its JSON line before writing the state file that
 * `svc --sandbox` finds it by, so a client started on reading that line could miss it and serve
 * the data directory's org itself. The state is written before the announcement now, but that was
 * not the cause (it failed again): the client's probe called the sandbox slow only when its 1.5 s
 * timer ran before the answer, and a client stalled past that moment (the loaded test process)
 * could read the answer first and say nothing. Slow is measured by the clock now
 * (attach.ts usable(); reproduced in sandbox-slow-probe.test.ts).
 * The two tests share nothing (own config dirs, own sandbox processes and ports) and wait side
 * by side (describe.concurrent); in the second, the list and the create (each ~4.5 s of waiting
 * on the slow server) run at once too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSvc } from '../helpers/long-running.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json, runSvc, tempDir } from '../helpers/run-svc.js';

describe.concurrent('a slow sandbox is waited for', () => {
  it('svc --sandbox uses a running `svc sandbox --latency 1500`, not the data directory org', async () => {
    const env = { SVC_CONFIG_DIR: tempDir('svc-slow-') };
    const fg = startSvc(['sandbox', '--latency', '1500', '--seed', '3', '--json'], { env });
    try {
      const info = JSON.parse((await fg.waitFor('stdout', /^\{.*\}$/m, 15_000))[0]!);
      const name = `Slow${Date.now()}`;
      const made = await svcInProcess(['--sandbox', 'accounts', 'create', '--attr', `name=${name}`, '-o', 'json'], { env });
      expect(made.code, made.stderr).toBe(0);
      expect(made.stderr).toMatch(
        new RegExp(`the sandbox at ${info.baseUrl.replace(/[./]/g, '\\$&')} \\(pid \\d+\\) is slow to answer; waiting for it`),
      );
      // It went to the running sandbox; no org was started in the data directory.
      const seen = await fetch(`${info.baseUrl}/accounts/${json<{ id: number }>(made).id}`, {
        headers: { authorization: `Bearer ${info.token}` },
      });
      expect(seen.status).toBe(200);
      expect(fs.existsSync(path.join(env.SVC_CONFIG_DIR, 'data', 'sandbox-org.json'))).toBe(false);
    } finally {
      expect(await fg.stop('SIGTERM')).toBe(0);
    }
  }, 90_000);

  it('--sandbox-data on a file a slow `svc sandbox --data` serves uses its server, and never suggests deleting its lock', async () => {
    const env = { SVC_CONFIG_DIR: tempDir('svc-slow-') };
    const file = path.join(tempDir('svc-slow-org-'), 'org.json');
    // An org file to serve: the zero-set-up org of another config dir, written when its owner exits.
    const other = { SVC_CONFIG_DIR: tempDir('svc-slow-') };
    expect((await runSvc(['--sandbox', 'accounts', 'list', '-o', 'json'], { env: other })).code).toBe(0);
    fs.copyFileSync(path.join(other.SVC_CONFIG_DIR, 'data', 'sandbox-org.json'), file);
    const fg = startSvc(['sandbox', '--data', file, '--latency', '1500', '--json'], { env });
    try {
      const info = JSON.parse((await fg.waitFor('stdout', /^\{.*\}$/m, 15_000))[0]!);
      const started = Date.now();
      const name = `SlowCopy${Date.now()}`;
      // Two clients at once (each waits ~4.5 s on the slow server), the second with a config dir
      // of its own so that neither's mark as a user of the server is the other's.
      const [list, made] = await Promise.all([
        svcInProcess(['--sandbox-data', file, 'accounts', 'list', '-o', 'json'], { env }).then((r) => ({ ...r, ms: Date.now() - started })),
        svcInProcess(['--sandbox-data', file, 'accounts', 'create', '--attr', `name=${name}`, '-o', 'json'], {
          env: { SVC_CONFIG_DIR: tempDir('svc-slow-') },
        }),
      ]);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stderr).toMatch(/is slow to answer; waiting for it/);
      expect(list.stderr).not.toMatch(/delete/);
      expect(list.ms).toBeLessThan(20_000);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stderr).not.toMatch(/delete/);
      const seen = await fetch(`${info.baseUrl}/accounts/${json<{ id: number }>(made).id}`, {
        headers: { authorization: `Bearer ${info.token}` },
      });
      expect(seen.status).toBe(200);
    } finally {
      expect(await fg.stop('SIGTERM')).toBe(0);
    }
  }, 90_000);
});
