/**
 * The announcement of a running `svc sandbox` (src/local-sandbox/state-file.ts): stopping the
 * newer of two running sandboxes announces the older again. It removed the announcement, and
 * `svc --sandbox` served an org of its own while the older one still ran (a trial).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { announceState, clearState, readState } from '../../src/local-sandbox/state-file.js';
import { tempDir } from '../helpers/run-svc.js';

const state = (pid: number, port: number) => ({
  pid,
  baseUrl: `http://127.0.0.1:${port}/api/v2`,
  authUrl: `http://127.0.0.1:${port}`,
  token: `t${port}`,
});

it('stopping the newer sandbox announces the older one again, while it still runs', () => {
  const env = { SVC_CONFIG_DIR: tempDir('svc-state-') };
  // The older is a live process other than this one (the test runner), the newer this one.
  announceState(env, state(process.ppid, 1111));
  announceState(env, state(process.pid, 2222));
  expect(readState(env)?.baseUrl).toBe('http://127.0.0.1:2222/api/v2');
  clearState(env, process.pid);
  expect(readState(env)).toEqual(state(process.ppid, 1111));
});

it('an older one that has stopped meanwhile is not announced again', () => {
  const env = { SVC_CONFIG_DIR: tempDir('svc-state-') };
  announceState(env, state(process.ppid, 1111));
  announceState(env, state(process.pid, 2222));
  // As if the older had stopped: its pid is dead now.
  const file = path.join(env.SVC_CONFIG_DIR, 'data', 'sandbox.json');
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  doc.previous.pid = 2 ** 22 + 17;
  fs.writeFileSync(file, JSON.stringify(doc));
  clearState(env, process.pid);
  expect(readState(env)).toBeUndefined();
  expect(fs.existsSync(file)).toBe(false);
});
