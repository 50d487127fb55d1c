/**
 * Plays the browser of an OAuth login against the sandbox's consent page with plain HTTP: GET
 * the page, submit its form (a real form POST), follow the redirect to the loopback callback.
 * And `svc login --no-browser` driven to the end, for tests that need a logged-in profile.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestSandbox } from './sandbox.js';
import { startSvc, type Running } from './long-running.js';

/** Decodes the numeric entities the sandbox writes into attribute values. */
function unescapeHtml(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"');
}

/** The form of a consent page: its action and hidden fields. */
export function parseConsentForm(html: string, pageUrl: string): { action: URL; fields: URLSearchParams } {
  const form = /<form[^>]*method="post"[^>]*action="([^"]+)"/i.exec(html);
  if (!form) throw new Error(`no form on the consent page:\n${html}`);
  const fields = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields.append(unescapeHtml(m[1]!), unescapeHtml(m[2]!));
  return { action: new URL(unescapeHtml(form[1]!), pageUrl), fields };
}

/** What the browser ended on after submitting the form. */
export interface ConsentResult {
  /** The page the loopback listener answered (status and HTML). */
  status: number;
  html: string;
  /** URL of that page (the callback with code/error and state). */
  url: string;
}

/** GETs the authorize URL, submits Approve or Deny, follows the redirect to the callback. */
export async function playConsent(authorizeUrl: string, decision: 'approve' | 'deny'): Promise<ConsentResult> {
  const page = await fetch(authorizeUrl);
  const html = await page.text();
  expect(page.status, html).toBe(200);
  const { action, fields } = parseConsentForm(html, authorizeUrl);
  fields.set('decision', decision);
  // fetch submits like a browser: form-encoded body, then follows the 302 to 127.0.0.1.
  const res = await fetch(action, { method: 'POST', body: fields, redirect: 'follow' });
  return { status: res.status, html: await res.text(), url: res.url };
}

/** Reads the authorize URL that `svc login --no-browser` prints on a line of its own. */
export async function authorizeUrlOf(run: Pick<Running, 'waitFor'>): Promise<string> {
  const m = await run.waitFor('stderr', /^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m, 15_000);
  return m[1]!;
}

/** Env of a login against a sandbox: its URLs and client, a fresh config dir. */
export function loginEnv(sb: TestSandbox, configDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SVC_CONFIG_DIR: configDir,
    SVC_BASE_URL: sb.baseUrl,
    SVC_AUTH_URL: sb.authUrl,
    SVC_CLIENT_ID: sb.clientId,
    SVC_CLIENT_SECRET: sb.clientSecret,
    ...extra,
  };
}

/** Runs `svc login --no-browser --port 0` and approves it; resolves when svc has exited. */
export async function cliLogin(sb: TestSandbox, configDir: string, args: string[] = [], extra: Record<string, string> = {}) {
  const run = startSvc(['login', '--no-browser', '--port', '0', ...args], { env: loginEnv(sb, configDir, extra) });
  const url = await authorizeUrlOf(run);
  const consent = await playConsent(url, 'approve');
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr(), consent, url };
}

/** The stored config of a test's config dir. */
export function readConfig(configDir: string): { currentProfile?: string; profiles: Record<string, Record<string, any>> } {
  return JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8'));
}

/** Rewrites one profile of the stored config (tests that age or break a login). */
export function editProfile(configDir: string, name: string, patch: Record<string, unknown>): void {
  const file = path.join(configDir, 'config.json');
  const cfg = readConfig(configDir);
  cfg.profiles[name] = { ...cfg.profiles[name], ...patch };
  fs.writeFileSync(file, JSON.stringify(cfg, null, 2), { mode: 0o600 });
}
