/** The loopback listener: 127.0.0.1 only, one flow, refusals that keep waiting, then closed. */
import http from 'node:http';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { successPage } from '../../../src/auth/callback-pages.js';
import { startLoopback } from '../../../src/auth/loopback.js';

function get(port: number, path: string, host = `127.0.0.1:${port}`): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
}

describe('loopback listener', () => {
  it('listens on 127.0.0.1 only, not on the other interfaces', async () => {
    const lb = await startLoopback({ port: 0, state: 'S' });
    try {
      expect(lb.redirectUri).toBe(`http://127.0.0.1:${lb.port}/callback`);
      // Not on the IPv6 loopback either: exactly 127.0.0.1.
      await expect(
        new Promise((resolve, reject) =>
          http.get({ host: '::1', port: lb.port, path: '/callback', timeout: 1000 }, resolve).on('error', reject),
        ),
      ).rejects.toMatchObject({ code: expect.stringMatching(/ECONNREFUSED|EADDRNOTAVAIL/) });
      const external = Object.values(os.networkInterfaces())
        .flat()
        .find((i) => i && i.family === 'IPv4' && !i.internal);
      if (external) {
        await expect(
          new Promise((resolve, reject) =>
            http.get({ host: external.address, port: lb.port, path: '/callback', timeout: 1000 }, resolve).on('error', reject),
          ),
        ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      }
    } finally {
      await lb.close();
    }
  });

  it('refuses wrong and missing state (and keeps waiting), takes the right one, then serves no more', async () => {
    const rejected: string[] = [];
    const lb = await startLoopback({ port: 0, state: 'good-state', onRejected: (r) => rejected.push(r) });
    expect((await get(lb.port, '/callback?code=c&state=bad')).status).toBe(400);
    expect((await get(lb.port, '/callback?code=c')).status).toBe(400);
    expect((await get(lb.port, '/elsewhere?code=c&state=good-state')).status).toBe(404);
    // A page of another site pointing the browser here with a foreign Host header is refused.
    expect((await get(lb.port, '/callback?code=c&state=good-state', 'evil.test')).status).toBe(400);
    expect(rejected).toEqual(['the state does not match this login', 'the redirect carries no state']);
    const pending = get(lb.port, '/callback?code=the-code&state=good-state');
    const accepted = await lb.accepted;
    expect(accepted.outcome).toEqual({ kind: 'code', code: 'the-code' });
    await accepted.respond(successPage('Ada'));
    const page = await pending;
    expect(page.status).toBe(200);
    expect(page.body).toContain('svc is now logged in as Ada.');
    await lb.close();
    await expect(get(lb.port, '/callback?code=x&state=good-state')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('escapes what it echoes', async () => {
    const lb = await startLoopback({ port: 0, state: 'S' });
    const a = get(lb.port, '/callback?error=%3Cscript%3E&state=S');
    const { outcome, respond } = await lb.accepted;
    expect(outcome).toEqual({ kind: 'error', error: '<script>' });
    const { errorPage } = await import('../../../src/auth/callback-pages.js');
    await respond(errorPage('<script>'));
    expect((await a).body).not.toContain('<script>');
  });

  it('a busy port is an error to report, not a hang', async () => {
    const lb = await startLoopback({ port: 0, state: 'S' });
    await expect(startLoopback({ port: lb.port, state: 'S' })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await lb.close();
  });
});
