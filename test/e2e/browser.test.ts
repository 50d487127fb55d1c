/**
 * The tests in a real headless Chromium (Debian's `chromium`, installed by .ci/run), one browser
 * for both (a launch is ~2 CPU-s, as much as the five tests together):
 * - `svc login --no-browser` finished by the browser: it opens the printed URL, clicks Approve or
 *   Deny on the sandbox's consent page, and lands on svc's loopback page.
 * - the `--html` report page rendered offline (every request but the page itself is refused) to a
 *   PNG: its SVG bars are there, visible, and sized as the numbers of `-o json` say.
 * The three report pages are opened in one tab in turn, the two logins in another (a tab is a
 * context and a renderer process of its own: the file's Chromium 3.4–4.4 → 2.3–3.1 CPU-s with
 * the reports' tab, 2.5–3.0 → 2.2–2.7 with the logins').
 * Chromium is found on PATH; without it these tests skip with a notice, or fail under
 * SVC_TEST_REQUIRE_PROGRAMS=1, as every program-dependent test does (helpers/programs.ts).
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { svcInProcess } from '../helpers/in-process-cli.js';
import { locate, requireProgram, without } from '../helpers/programs.js';
import { json, tempDir } from '../helpers/run-svc.js';
import type { TestSandbox } from '../helpers/sandbox.js';

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
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

let browser: Browser;
/** The tab the two logins are finished in, one after the other (header). */
let loginPage: Page | undefined;
/** The tab the report pages are opened in (render). */
let reportPage: Page | undefined;
/** Where the tab's refused requests are listed: the list of the page being rendered. */
let refused: string[] = [];
let svc: typeof svcInProcess;
// The report's sandbox and the env pointing svc at it.
let sb: TestSandbox;
let env: () => Record<string, string>;
const dir = tempDir();

/** Writes the page and the numbers of one report; opens the page offline; returns both. */
async function render(args: string[], name: string): Promise<{ page: Page; rows: any[]; png: Buffer; external: string[] }> {
  const file = path.join(dir, `${name}.html`);
  const r = await svc(['report', ...args, '--html', file, '-o', 'json'], { env: env() });
  expect(r.code, r.stderr).toBe(0);
  // One tab for the three pages, each opened in it in turn (header); what a page asked for
  // outside is listed from its own load.
  const external: string[] = [];
  if (!reportPage) {
    reportPage = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    await reportPage.route('**/*', (route) => {
      if (route.request().url().startsWith('file:')) return route.continue();
      refused.push(route.request().url());
      return route.abort();
    });
  }
  const page = reportPage;
  refused = external;
  await page.goto(`file://${file}`);
  const png = await page.screenshot({ fullPage: true, path: path.join(dir, `${name}.png`) });
  return { page, rows: json<any[]>(r), png, external };
}

/** Bars of the page: value and drawn size (px), in document order. */
async function bars(page: Page, selector: string, dim: 'width' | 'height') {
  return page.$$eval(
    selector,
    (els, d) =>
      els.map((e) => ({
        value: Number(e.getAttribute('data-value')),
        size: (e as unknown as { getBoundingClientRect(): Record<string, number> }).getBoundingClientRect()[d as string]!,
      })),
    dim,
  );
}

/** The login's helpers, imported in the set-up with the rest. */
let lx: typeof import('../helpers/long-running.js') &
  typeof import('../helpers/oauth.js') &
  typeof import('../helpers/in-process-login.js');
// The login's sandbox: its token endpoint issues at once (tokenIssueIntervalMs 0).
let loginSb: TestSandbox;

describe.skipIf(without('chromium', 'the tests in headless Chromium (login, report --html)'))('in headless Chromium', () => {
  beforeAll(async () => {
    requireProgram('chromium');
    // Imported here, not at the top: test/unit/programs.test.ts runs this file in a vitest of its
    // own where Chromium is missing and the tests skip, and there these imports (playwright-core,
    // svc's program and sandbox) were most of its CPU.
    const [{ chromium }, cli, { sandboxWithEnv }, { startSandbox }, running, oauth, login] = await Promise.all([
      import('playwright-core'),
      import('../helpers/in-process-cli.js'),
      import('../helpers/sandbox.js'),
      import('../../src/sandbox/index.js'),
      import('../helpers/long-running.js'),
      import('../helpers/oauth.js'),
      import('../helpers/in-process-login.js'),
    ]);
    svc = cli.svcInProcess;
    lx = { ...running, ...oauth, ...login };
    ({ sb, env } = await sandboxWithEnv({ seed: 900 }));
    loginSb = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 0 });
    browser = await chromium.launch({ executablePath: locate('chromium')!, args: ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await sb?.close();
    await loginSb?.close();
  });

  describe('login', () => {
    it('clicking Approve logs svc in; the tab says it can be closed', async () => {
      const dir = tempDir();
      const run = lx.startSvc(['login', '--no-browser', '--port', '0', '--pkce'], { env: lx.loginEnv(loginSb, dir) });
      const url = await lx.authorizeUrlOf(run);
      loginPage ??= await browser.newPage();
      const page = loginPage;
      await page.goto(url);
      await expect(page.locator('h1').first().textContent()).resolves.toContain('Authorize');
      await Promise.all([page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/), page.getByRole('button', { name: 'Approve' }).click()]);
      await expect(page.locator('h1').textContent()).resolves.toBe('Logged in');
      await expect(page.locator('body').textContent()).resolves.toContain('You can close this tab');
      expect(await run.exited, run.stderr()).toBe(0);
      expect(run.stderr()).toMatch(/Logged in to \S+ as Olive Owner/);
      const p = lx.readConfig(dir).profiles.default!;
      expect(p.accessToken).toBeTruthy();
      const status = await svc(['auth', 'status', '-o', 'json'], { env: { SVC_CONFIG_DIR: dir } });
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout).user).toMatchObject({ id: 1, name: 'Olive Owner' });
    });

    // svc's program in the test process (the login's listener as real as the binary's): the test
    // above and login.test.ts run bin/svc.
    it('clicking Deny ends svc with exit 3 and the tab says access was denied', async () => {
      const { run, first: firstSeen, stderr } = lx.startLoginInProcess(loginSb, tempDir());
      loginPage ??= await browser.newPage();
      const page = loginPage;
      const first = await firstSeen;
      expect(typeof first, `no authorize URL: ${stderr()}`).toBe('string');
      await page.goto(first as string);
      await Promise.all([page.waitForURL(/\/callback\?/), page.getByRole('button', { name: 'Deny' }).click()]);
      await expect(page.locator('h1').textContent()).resolves.toBe('Access denied');
      const r = await run;
      expect(r.threw, String(r.threw)).toBeUndefined();
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('access denied');
    });
  });

  describe('report --html', () => {
    it('sequences: one visible bar per sequence with a reply rate, lengths in proportion', async () => {
      const { page, rows, png, external } = await render(['sequences'], 'sequences');
      expect(external).toEqual([]);
      expect(png.subarray(0, 4).equals(PNG)).toBe(true);
      expect(png.length).toBeGreaterThan(5000);
      const b = await bars(page, 'table.chart rect.bar', 'width');
      const withRate = rows.filter((r) => r.replyRate > 0);
      expect(b).toHaveLength(withRate.length);
      expect(b.map((x) => x.value)).toEqual(withRate.map((r) => r.replyRate));
      const max = Math.max(...b.map((x) => x.value));
      const longest = Math.max(...b.map((x) => x.size));
      expect(longest).toBeGreaterThan(100);
      for (const x of b) expect(x.size).toBeCloseTo((x.value / max) * longest, 0);
    });

    it('funnel: per e-mail step four stages, bars follow the counts; template bars follow reply rates', async () => {
      const { page, rows, png } = await render(['sequence', '1'], 'funnel');
      expect(png.length).toBeGreaterThan(5000);
      const steps = rows.filter((r) => r.level === 'step' && r.stepType === 'auto_email');
      const expected = steps.flatMap((s) => [s.delivered, s.opened, s.clicked, s.replied]).filter((v) => v > 0);
      const b = await bars(page, 'svg.funnel rect.bar', 'width');
      expect(b.map((x) => x.value)).toEqual(expected);
      const max = Math.max(...rows.filter((r) => r.level === 'step').map((r) => r.delivered));
      const full = b.find((x) => x.value === max)!.size;
      for (const x of b) {
        expect(x.size).toBeGreaterThan(0);
        expect(x.size).toBeCloseTo((x.value / max) * full, 0);
      }
      const t = await bars(page, 'table.chart rect.bar', 'width');
      expect(t.map((x) => x.value)).toEqual(
        rows.filter((r) => r.level === 'template' && r.step === 1 && r.replyRate > 0).map((r) => r.replyRate),
      );
    });

    it('prospect: the histogram as columns, one per non-zero month and series, heights in proportion', async () => {
      const { page, rows } = await render(['prospect', '5'], 'prospect');
      const months = rows.filter((r) => r.kind === 'month');
      const expected = months.flatMap((m) => [m.inbound, m.outbound]).filter((v) => v > 0);
      const b = await bars(page, 'svg.columns rect.bar', 'height');
      expect(b.map((x) => x.value)).toEqual(expected);
      expect(b.length).toBeGreaterThan(0);
      const max = Math.max(...expected);
      const tallest = Math.max(...b.map((x) => x.size));
      for (const x of b) expect(x.size).toBeCloseTo((x.value / max) * tallest, 0);
    });
  });
});
