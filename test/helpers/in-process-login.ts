/**
 * `svc login --no-browser` driven to the end in the test process: {@link cliLogin}'s twin for
 * tests that need a logged-in profile and do not test the login's process (a spawn of bin/svc
 * per login was ~76 of a full run's spawns). The login's loopback listener, the sandbox's consent
 * page and the token exchange are as real as with the binary.
 */
import { runInProcess } from './in-process-cli.js';
import { loginEnv, playConsent } from './oauth.js';
import { baseEnv } from './run-svc.js';
import type { TestSandbox } from './sandbox.js';

/**
 * Starts `svc login --no-browser --port 0` in process: its run, and `first`, the authorize URL
 * it prints or, when it ends before printing one (refused, say), its result.
 */
export function startLoginInProcess(sb: TestSandbox, configDir: string, args: string[] = [], extra: Record<string, string> = {}) {
  let stderr = '';
  let found: (url: string) => void = () => {};
  const urlSeen = new Promise<string>((resolve) => {
    found = resolve;
  });
  const run = runInProcess(['login', '--no-browser', '--port', '0', ...args], baseEnv(loginEnv(sb, configDir, extra)), {
    timeoutMs: 30_000,
    onOutput: (stream, text) => {
      if (stream !== 'stderr') return;
      stderr += text;
      const m = /^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(stderr);
      if (m) found(m[1]!);
    },
  });
  return { run, first: Promise.race([urlSeen, run]), stderr: () => stderr };
}

/** Runs `svc login --no-browser --port 0` in process and approves it; resolves when it has returned. */
export async function cliLoginInProcess(sb: TestSandbox, configDir: string, args: string[] = [], extra: Record<string, string> = {}) {
  const { run, first } = startLoginInProcess(sb, configDir, args, extra);
  const url = await first;
  // A login that ends before printing its URL (refused, say) answers without a consent.
  if (typeof url !== 'string') return { code: url.code ?? null, stdout: url.stdout, stderr: url.stderr, consent: undefined, url: '' };
  const consent = await playConsent(url, 'approve');
  const r = await run;
  if (r.threw) throw r.threw;
  return { code: r.hung ? null : (r.code ?? 0), stdout: r.stdout, stderr: r.stderr, consent, url };
}
