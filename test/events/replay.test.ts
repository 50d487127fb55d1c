/**
 * `svc events replay`: a one-hour window of past events (made at earlier times: the in-process
 * sandbox's store is given a clock set back) re-delivered to a receiver, exactly that window,
 * each signature verifying with `svc webhooks verify`; `--plan` counts and sends nothing; bad
 * input and a wrong secret are refused before anything is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { start, type Client } from '../helpers/sandbox.js';
import { eventually, indexEvents, startReceiver, watchInProcess, writes, type Receiver } from './helpers.js';

const SECRET = 'replay-secret';
const MIN = 60_000;

let c: Client;
let env: Record<string, string>;
let rx: Receiver;
const now = Date.now();
const since = new Date(now - 95 * MIN).toISOString();
const until = new Date(now - 35 * MIN).toISOString();
let inWindow: { id: string; name: string; updatedAt: string }[];

beforeAll(async () => {
  c = await start({ seed: 5 });
  env = { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token };
  rx = await startReceiver();
  // Changes at faked times: 3 h, 100 min, 90 min, 60 min, 40 min, 30 min and 20 min ago.
  const realNow = c.sb.store.now;
  try {
    for (const [ago, n] of [
      [180, 2],
      [100, 2],
      [90, 3],
      [60, 3],
      [40, 2],
      [30, 2],
      [20, 1],
    ] as const) {
      const at = now - ago * MIN;
      c.sb.store.now = () => at;
      await writes(c, n, 1);
    }
  } finally {
    c.sb.store.now = realNow;
  }
  const all = await indexEvents(c, '2000-01-01T00:00:00Z');
  inWindow = all.filter((e) => e.updatedAt + 'Z' >= since.slice(0, 19) + 'Z' && e.updatedAt + 'Z' <= until.slice(0, 19) + 'Z');
});
afterAll(async () => {
  await rx.close();
  await c.sb.close();
});

describe('events replay', () => {
  it('--plan counts the window and sends nothing', async () => {
    rx.got.length = 0;
    const r = await svcInProcess(['events', 'replay', '--since', since, '--until', until, '--to', rx.url, '--plan', '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ events: 8, since, until });
    expect(inWindow).toHaveLength(8);
    expect(rx.got).toHaveLength(0);
  });

  it('delivers exactly the one-hour window, in order, each signature verifying with svc webhooks verify', async () => {
    rx.got.length = 0;
    const r = await svcInProcess(
      ['events', 'replay', '--since', since, '--until', until, '--to', rx.url, '--secret', SECRET, '--rate', '50', '-o', 'json'],
      {
        env,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ delivered: 8, skipped: 0 });
    expect(rx.got.map((g) => String(g.headers['svc-event-id']))).toEqual(inWindow.map((e) => e.id));
    for (const g of rx.got) {
      const sig = String(g.headers['service-webhook-signature']);
      const ok = await svcInProcess(['webhooks', 'verify', '--secret', SECRET, '--signature', sig], { env, input: g.body });
      expect(ok.code, ok.stderr).toBe(0);
      const bad = await svcInProcess(['webhooks', 'verify', '--secret', 'not-it', '--signature', sig], { env, input: g.body });
      expect(bad.code).toBe(1);
      const body = JSON.parse(g.body);
      // The shape of a version-2 delivery of the change the event records.
      expect(body.data).toMatchObject({ type: 'account', attributes: { name: expect.stringMatching(/^bulk \d+$/) } });
      expect(body.meta.eventName).toBe('account.created');
    }
  });

  it('Ctrl-C mid-window exits 130 and says where to resume: from the first event not yet taken', async () => {
    rx.got.length = 0;
    const r = watchInProcess(['events', 'replay', '--since', since, '--until', until, '--to', rx.url, '--rate', '2', '-o', 'json'], env);
    await eventually(() => rx.got.length >= 2, 'two deliveries');
    r.interrupt();
    const { code } = await r.exited;
    const taken = rx.got.length;
    expect(code, r.out.stderr).toBe(130);
    expect(JSON.parse(r.out.stdout)).toMatchObject({ delivered: taken, interrupted: true });
    const next = inWindow[taken]!;
    expect(r.out.stderr).toContain(`interrupted: ${taken} delivered`);
    expect(r.out.stderr).toContain(`resume with --since ${next.updatedAt}.000Z --until ${until}`);
  });

  it('refuses a secret that is not the webhook’s for that receiver, before sending anything', async () => {
    const hook = await c.post('/webhooks', {
      data: { type: 'webhook', attributes: { url: rx.url, secret: 'the-right-one', resource: 'prospect', action: 'destroyed' } },
    });
    expect(hook.status, hook.text).toBe(201);
    rx.got.length = 0;
    const r = await svcInProcess(['events', 'replay', '--since', since, '--until', until, '--to', rx.url, '--secret', 'wrong'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--secret is not the secret of webhook \d+/);
    expect(r.stderr).not.toContain('the-right-one');
    expect(rx.got).toHaveLength(0);
  });

  it('refuses to send unsigned deliveries to a receiver whose webhook signs them (a trial: six 401s, then a resume hint that could not help)', async () => {
    const rx2 = await startReceiver();
    try {
      const hook = await c.post('/webhooks', {
        data: { type: 'webhook', attributes: { url: rx2.url, secret: 'signed-one', resource: 'account', action: 'created' } },
      });
      expect(hook.status, hook.text).toBe(201);
      const r = await svcInProcess(['events', 'replay', '--since', since, '--until', until, '--to', rx2.url], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^error: webhook \d+ for http:\/\/127\.0\.0\.1:\d+\/hooks signs its deliveries: pass its --secret \(or SVC_WEBHOOK_SECRET\): nothing was sent\n/,
      );
      expect(rx2.got).toHaveLength(0);
    } finally {
      await rx2.close();
    }
  });

  it('refuses bad times and targets with exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--since', '2099-01-01'], /--since 2099-01-01: that is in the future/],
      [['--since', 'last tuesday'], /--since last tuesday: expected a span back from now/],
      [['--since', '1h', '--until', '2h'], /--until 2h is before --since 1h/],
      [['--since', '1h', '--until', '2099-01-01T00:00:00Z'], /--until .*in the future/],
    ];
    for (const [args, message] of cases) {
      const r = await svcInProcess(['events', 'replay', ...args, '--to', rx.url], { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const far = await svcInProcess(['events', 'replay', '--since', '1h', '--to', 'http://hooks.example.com/in'], { env });
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/plain http goes only to this machine/);
  });
});
