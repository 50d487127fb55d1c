/**
 * A sandbox in its own process, started through the product's own `svc sandbox --json`, so that
 * its CPU and memory are not the client's. Used by the start-up and listing benchmarks.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnv } from './measure.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SVC = join(ROOT, 'bin', 'svc');

/**
 * Starts `svc sandbox --seed N --json` and resolves with its connection once it prints it.
 * @returns `{ baseUrl, token, configDir, close() }`
 */
export async function startSandboxProcess({ seed, rateLimit = 1_000_000, timeoutMs = 120_000 } = {}) {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const args = [SVC, 'sandbox', '--json', '--rate-limit', String(rateLimit)];
  if (seed !== undefined) args.push('--seed', String(seed));
  const child = spawn(process.execPath, args, { env: benchEnv({ SVC_CONFIG_DIR: configDir }), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const info = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start in ${timeoutMs} ms: ${err}`)), timeoutMs);
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(JSON.parse(out.slice(0, nl)));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited ${code}: ${err}`));
    });
  });
  return {
    baseUrl: info.baseUrl,
    token: info.token,
    configDir,
    pid: child.pid,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
