/**
 * The probe of a running sandbox (local-sandbox/attach.ts, usable()) calls it slow by the clock:
 * a `svc sandbox --latency 1500` answers after QUICK_MS (1.5 s), and the line "is slow to answer;
 * waiting for it" is said even when this process was stalled past that moment and the event loop
 * ran the answer before the probe's timer.
 *
 * This was the flake of sandbox-slow-owner.test.ts (a loaded machine, CI): the client's process
 * got the CPU back after 1.5 s with both the answer and the timeout due, read the answer first,
 * and took the slow sandbox for a quick one, without the line. Here the stall is made on purpose:
 * a timer callback that holds the event loop from just after the probe is sent until well
 * after the sandbox has answered (the sandbox is a process of its own, so it answers meanwhile).
 * Before the fix this run gave `true` and no line.
 */
import { describe, expect, it } from 'vitest';
import { usable } from '../../src/local-sandbox/attach.js';
import { startSvc } from '../helpers/long-running.js';
import { tempDir } from '../helpers/run-svc.js';

describe('the probe of a running sandbox', () => {
  it('calls a sandbox that answered after 1.5 s slow, though the answer was read before the timer', async () => {
    const env = { SVC_CONFIG_DIR: tempDir('svc-slow-probe-') };
    const fg = startSvc(['sandbox', '--latency', '1500', '--json'], { env });
    try {
      const info = JSON.parse((await fg.waitFor('stdout', /^\{.*\}$/m, 15_000))[0]!);
      const lines: string[] = [];
      const ctx = { info: (l: string) => lines.push(l), signal: new AbortController().signal };
      const started = Date.now();
      const probe = usable(ctx, { pid: fg.child.pid!, baseUrl: info.baseUrl, authUrl: info.authUrl, token: info.token });
      // The stall: from 300 ms (the request is out) to 3 s (the answer came at ~1.5 s). The thread
      // sleeps in Atomics.wait, which holds the event loop as a busy one would, without the CPU
      // (a busy loop here was ~2.5 of the file's CPU-s, taken from the files running beside it).
      setTimeout(() => {
        const left = 3000 - (Date.now() - started);
        if (left > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, left);
      }, 300);
      expect(await probe).toBe(true);
      expect(lines).toEqual([`the sandbox at ${info.baseUrl} (pid ${fg.child.pid}) is slow to answer; waiting for it`]);
    } finally {
      expect(await fg.stop('SIGTERM')).toBe(0);
    }
  }, 30_000);
});
