/**
 * `svc login` in a real terminal (tmux): the client credentials asked for when missing (never
 * the user's API key), and the redirect URL pasted back when the browser runs elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { parseConsentForm, readConfig } from '../helpers/oauth.js';
import { BIN, tempDir } from '../helpers/run-svc.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { sh, TmuxSession } from '../helpers/tmux.js';
import { requireProgram, without } from '../helpers/programs.js';

let sb: TestSandbox;
const sessions: TmuxSession[] = [];
beforeAll(async () => {
  requireProgram('tmux');
  sb = await startSandbox({ port: 0, seed: 5, tokenIssueIntervalMs: 0 });
});
afterAll(async () => {
  for (const s of sessions) s.kill();
  await sb?.close();
});

function term(args: string, env: Record<string, string>): TmuxSession {
  // Wide enough that the authorize URL stays on one screen line.
  const s = new TmuxSession(`${sh(process.execPath)} ${sh(BIN)} ${args}; echo "[exit $?]"; sleep 30`, {
    width: 500,
    height: 40,
    env: { TERM: 'xterm-256color', ...env },
  });
  sessions.push(s);
  return s;
}

/** Approves in "another browser" and returns where it was redirected (the callback URL). */
async function approveElsewhere(authorizeUrl: string): Promise<string> {
  const page = await fetch(authorizeUrl);
  const { action, fields } = parseConsentForm(await page.text(), authorizeUrl);
  fields.set('decision', 'approve');
  const res = await fetch(action, { method: 'POST', body: fields, redirect: 'manual' });
  expect(res.status).toBe(302);
  return res.headers.get('location')!;
}

describe.skipIf(without('tmux', 'the terminal login test'))('login in a terminal', () => {
  it('asks for the client id and secret, then accepts the pasted redirect URL', async () => {
    const dir = tempDir();
    const s = term('login --no-browser --port 0 --scopes prospects.all', { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sb.baseUrl });
    const prompt = await s.waitFor(/OAuth client id/);
    expect(prompt).toContain('never your password or API key');
    expect(prompt).not.toMatch(/api key:/i);
    s.send('-l', sb.clientId);
    s.send('Enter');
    await s.waitFor(/OAuth client secret/);
    s.send('-l', sb.clientSecret);
    s.send('Enter');
    const screen = await s.waitFor(/paste the address/);
    expect(screen).not.toContain(sb.clientSecret); // masked while typed
    const url = /^(http:\/\/\S+\/oauth\/authorize\?\S+)\s*$/m.exec(screen)![1]!;
    const redirect = await approveElsewhere(url);
    // A pasted URL with a wrong state is refused and svc keeps waiting.
    s.send('-l', redirect.replace(/state=[^&]+/, 'state=forged'));
    s.send('Enter');
    await s.waitFor(/refused the pasted URL: the state does not match/);
    s.send('-l', redirect);
    s.send('Enter');
    const done = await s.waitFor(/\[exit \d+\]/);
    expect(done).toContain('[exit 0]');
    expect(done).toMatch(/Logged in to \S+ as Olive Owner/);
    const p = readConfig(dir).profiles.default!;
    expect(p).toMatchObject({
      clientId: sb.clientId,
      clientSecret: sb.clientSecret,
      scopes: 'prospects.all',
      tokenScopes: 'prospects.all',
    });
  });
});
