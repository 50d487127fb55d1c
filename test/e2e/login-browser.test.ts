/**
 * `svc login --no-browser` finished by a real browser: headless Chromium (Debian's `chromium`,
 * installed by .ci/run) opens the printed URL, clicks Approve on the consent page, and lands on
 * svc's loopback page.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { startSvc } from '../helpers/long-running.js';
import { authorizeUrlOf, loginEnv, readConfig } from '../helpers/oauth.js';
import { locate, requireProgram, without } from '../helpers/programs.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { startLoginInProcess } from '../helpers/in-process-login.js';
import { tempDir } from '../helpers/run-svc.js';
import type { TestSandbox } from '../helpers/sandbox.js';

const CHROMIUM = locate('chromium') ?? 'chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let sb: TestSandbox;
let browser: Browser;
beforeAll(async () => {
  requireProgram('chromium');
  sb = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
afterAll(async () => {
  await browser?.close();
  await sb?.close();
});

describe.skipIf(without('chromium', 'the browser login tests'))('login in headless Chromium', () => {
  it('clicking Approve logs svc in; the tab says it can be closed', async () => {
    const dir = tempDir();
    const run = startSvc(['login', '--no-browser', '--port', '0', '--pkce'], { env: loginEnv(sb, dir) });
    const url = await authorizeUrlOf(run);
    const page = await browser.newPage();
    try {
      await page.goto(url);
      await expect(page.locator('h1').first().textContent()).resolves.toContain('Authorize');
      await Promise.all([page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/), page.getByRole('button', { name: 'Approve' }).click()]);
      await expect(page.locator('h1').textContent()).resolves.toBe('Logged in');
      await expect(page.locator('body').textContent()).resolves.toContain('You can close this tab');
    } finally {
      await page.close();
    }
    expect(await run.exited, run.stderr()).toBe(0);
    expect(run.stderr()).toMatch(/Logged in to \S+ as Olive Owner/);
    const p = readConfig(dir).profiles.default!;
    expect(p.accessToken).toBeTruthy();
    const status = await svcInProcess(['auth', 'status', '-o', 'json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).user).toMatchObject({ id: 1, name: 'Olive Owner' });
  });

  // svc's program in the test process (the login's listener as real as the binary's): the test
  // above and login.test.ts run bin/svc.
  it('clicking Deny ends svc with exit 3 and the tab says access was denied', async () => {
    const { run, first: firstSeen, stderr } = startLoginInProcess(sb, tempDir());
    const page = await browser.newPage();
    try {
      const first = await firstSeen;
      expect(typeof first, `no authorize URL: ${stderr()}`).toBe('string');
      await page.goto(first as string);
      await Promise.all([page.waitForURL(/\/callback\?/), page.getByRole('button', { name: 'Deny' }).click()]);
      await expect(page.locator('h1').textContent()).resolves.toBe('Access denied');
    } finally {
      await page.close();
    }
    const r = await run;
    expect(r.threw, String(r.threw)).toBeUndefined();
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('access denied');
  });
});
