/**
 * `webhooks listen --forward-to`: deliveries go to the app over real HTTP with their body and
 * signature, never with the webhook's cleanup token (which removes the webhook and is never
 * shown); plain http goes only to this machine (a remote http URL is a usage error, nothing listens).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiverDid } from '../../../src/events/deliveries.js';
import { forwardDelivery, forwardTargetProblem } from '../../../src/webhooks/forward.js';
import { runInProcess } from '../../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../../helpers/run-svc.js';

let app: http.Server;
let url: URL;
const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
beforeAll(async () => {
  app = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
  url = new URL(`http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`);
});
afterAll(() => new Promise<void>((r) => app.close(() => r())));

describe('forwarding', () => {
  it('passes body and signature on, never the cleanup token', async () => {
    const body = Buffer.from('{"data":{"type":"prospect","id":7}}');
    const r = await forwardDelivery(url, body, {
      'content-type': 'application/vnd.api+json',
      'service-webhook-signature': 'abc123',
      'service-webhook-cleanup-token': 'ct-secret-never-shown',
      host: 'example.test',
    });
    expect(r).toMatchObject({ status: 202 });
    expect(got).toHaveLength(1);
    expect(got[0]!.body).toBe(body.toString());
    expect(got[0]!.headers['service-webhook-signature']).toBe('abc123');
    expect(got[0]!.headers['service-webhook-cleanup-token']).toBeUndefined();
    expect(JSON.stringify(got[0]!.headers)).not.toContain('ct-secret-never-shown');
  });

  it('plain http only to this machine; https anywhere', () => {
    for (const ok of ['http://localhost:3000/hooks', 'http://127.0.0.1/', 'http://[::1]:8080/x', 'https://app.example.com/hooks'])
      expect(forwardTargetProblem(new URL(ok)), ok).toBeUndefined();
    for (const bad of [
      'http://app.example.com/hooks',
      'http://10.0.0.5:3000/',
      'http://127.evil.example/',
      'http://localhost.evil.example/',
    ])
      expect(forwardTargetProblem(new URL(bad)), bad).toMatch(/^plain http goes only to this machine/);
  });

  it('listen --forward-to a remote http URL: exit 2 naming the https URL, before listening', async () => {
    const dir = tempDir();
    const r = await runInProcess(
      ['webhooks', 'listen', '--port', '0', '--forward-to', 'http://app.example.com/hooks'],
      baseEnv({ SVC_CONFIG_DIR: dir }),
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      'error: --forward-to http://app.example.com/hooks: plain http goes only to this machine (localhost, 127.0.0.1, [::1]); use https://app.example.com/hooks\n',
    );
    expect(r.stderr).not.toMatch(/Ready: listening/);
  });
});

describe('what a receiver did, as the retry lines say it', () => {
  it('a status is an answer; no connection is "could not be reached", not "answered ECONNREFUSED"', () => {
    expect(receiverDid({ status: 503, ms: 4 })).toBe('answered 503');
    // The catch-up's line read "…/hooks answered ECONNREFUSED (attempt 1)" (a trial).
    expect(receiverDid({ error: 'ECONNREFUSED', ms: 1 })).toBe('could not be reached (ECONNREFUSED)');
  });
});
