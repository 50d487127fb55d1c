/**
 * Several `svc --sandbox` processes at once never lose each other's writes: one serves the
 * default org, the others use its server (sharing its webhooks) or take the org over when it
 * exits. The README's webhook example runs here as written, then the record is looked up.
 *
 * The tests share nothing (each its own config dir, so its own org, lock, port file and sandbox
 * processes on ports of their own) and wait side by side (describe.concurrent): the file's wall
 * is the take-over test's.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSvc } from '../helpers/long-running.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json, runSvc, tempDir } from '../helpers/run-svc.js';

function freshEnv(): Record<string, string> {
  return { SVC_CONFIG_DIR: tempDir('svc-shared-org-') };
}

async function findByFirstName(env: Record<string, string>, name: string): Promise<{ id: number }[]> {
  const r = await svcInProcess(['--sandbox', 'prospects', 'list', '--filter', `firstName=${name}`, '--all', '-o', 'json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return json<{ id: number }[]>(r);
}

function leftovers(env: Record<string, string>): string[] {
  const dir = path.join(env.SVC_CONFIG_DIR!, 'data');
  const clients = fs.existsSync(path.join(dir, 'sandbox-clients')) ? fs.readdirSync(path.join(dir, 'sandbox-clients')) : [];
  // The org and its port, plus what every command keeps: the shared rate budget's ledger and the
  // records of write runs (`svc runs`). Not the sandbox's state file, lock or clients.
  const kept = ['sandbox-org.json', 'sandbox-org.json.port', 'sandbox-clients', 'budget', 'runs'];
  return [...fs.readdirSync(dir).filter((f) => !kept.includes(f)), ...clients];
}

describe.concurrent('two svc --sandbox processes share one org', () => {
  it("the README's webhook example: the listener prints the new prospect, which is still there after it stops", async () => {
    const env = freshEnv();
    const name = `Ada${Date.now()}`;
    // svc --sandbox webhooks listen --register --events prospect.created,prospect.updated &
    const listener = startSvc(
      ['--sandbox', 'webhooks', 'listen', '--register', '--events', 'prospect.created,prospect.updated', '--port', '0'],
      { env },
    );
    try {
      await listener.waitFor('stderr', /Ready: listening on/, 15_000);
      // svc --sandbox prospects create --attr firstName=Ada
      const made = await svcInProcess(['--sandbox', 'prospects', 'create', '--attr', `firstName=${name}`, '-o', 'json'], { env });
      expect(made.code, made.stderr).toBe(0);
      const id = json<{ id: number }>(made).id;
      await listener.waitFor('stdout', new RegExp(`prospect\\.created\\s+prospect ${id}\\b[^\\n]*\\n\\s+firstName: ${name}`), 10_000);
    } finally {
      expect(await listener.stop('SIGTERM')).toBe(0);
    }
    expect(listener.stderr()).toMatch(/removed webhook \d+\nremoved webhook \d+/);
    const found = await findByFirstName(env, name);
    expect(found).toHaveLength(1);
    // Nothing left behind but the org and its port: no state file, no lock, no client entries.
    expect(leftovers(env)).toEqual([]);
  });

  it('a process still running when the owner exits takes the org over on the same port', async () => {
    const env = freshEnv();
    const name = `Zeb${Date.now()}`;
    const first = startSvc(['--sandbox', 'webhooks', 'listen', '--register', '--events', 'prospect.created', '--port', '0'], { env });
    await first.waitFor('stderr', /Ready: listening on/, 15_000);
    const second = startSvc(['--sandbox', '--verbose', 'webhooks', 'listen', '--register', '--events', 'prospect.created', '--port', '0'], {
      env,
    });
    try {
      const [, baseUrl] = (await second.waitFor('stderr', /using the sandbox at (\S+)/, 15_000)) as unknown as [string, string];
      await second.waitFor('stderr', /Ready: listening on/, 15_000);
      expect(await first.stop('SIGTERM')).toBe(0);
      await second.waitFor('stderr', new RegExp(`now serves the sandbox at ${baseUrl.replace(/[.?*+^$()[\]{}|\\/]/g, '\\$&')}`), 10_000);
      const made = await svcInProcess(['--sandbox', 'prospects', 'create', '--attr', `firstName=${name}`, '-o', 'json'], { env });
      expect(made.code, made.stderr).toBe(0);
      const id = json<{ id: number }>(made).id;
      // The second listener's webhook was kept in the org: it gets the delivery.
      await second.waitFor('stdout', new RegExp(`prospect\\.created\\s+prospect ${id}\\b`), 10_000);
    } finally {
      await first.stop('SIGTERM');
      expect(await second.stop('SIGTERM')).toBe(0);
    }
    expect(second.stderr()).toMatch(/removed webhook \d+/);
    expect(await findByFirstName(env, name)).toHaveLength(1);
    expect(leftovers(env)).toEqual([]);
  });

  it('four creates started at once with no sandbox running: all four records are kept', async () => {
    const env = freshEnv();
    const names = [0, 1, 2, 3].map((i) => `Par${i}x${Date.now()}`);
    const runs = await Promise.all(
      names.map((n) => runSvc(['--sandbox', 'accounts', 'create', '--attr', `name=${n}`, '-o', 'json'], { env })),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const ids = runs.map((r) => json<{ id: number }>(r).id);
    expect(new Set(ids).size).toBe(4);
    const listed = await svcInProcess(['--sandbox', 'accounts', 'list', '--all', '-o', 'json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const kept = json<{ name: string }[]>(listed).map((a) => a.name);
    for (const n of names) expect(kept).toContain(n);
    expect(leftovers(env)).toEqual([]);
  });

  // Found by a README recipe that failed once in a full run: another test's server had taken the
  // org's last port between two `svc --sandbox` commands, and the second stopped with "port … is
  // already in use" instead of starting on a free port (the sandbox's friendlier error had lost
  // the EADDRINUSE code that the fallback looked for).
  it("the org's last port taken by another program: the next command starts on a free port", async () => {
    const env = freshEnv();
    const first = await svcInProcess(['--sandbox', 'accounts', 'list', '--limit', '1', '-o', 'json'], { env });
    expect(first.code, first.stderr).toBe(0);
    const portFile = path.join(env.SVC_CONFIG_DIR!, 'data', 'sandbox-org.json.port');
    const last = Number(fs.readFileSync(portFile, 'utf8'));
    const squatter = net.createServer();
    await new Promise<void>((resolve, reject) => squatter.once('error', reject).listen(last, '127.0.0.1', resolve));
    try {
      const next = await svcInProcess(['--sandbox', 'accounts', 'list', '--limit', '1', '-o', 'json'], { env });
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).not.toMatch(/already in use/);
      expect(json<unknown[]>(next)).toEqual(json<unknown[]>(first));
      expect(Number(fs.readFileSync(portFile, 'utf8'))).not.toBe(last);
    } finally {
      await new Promise((r) => squatter.close(r));
    }
  });

  it('a `svc sandbox` started and stopped meanwhile does not hide the process serving the org', async () => {
    const env = freshEnv();
    const name = `Hid${Date.now()}`;
    const listener = startSvc(['--sandbox', 'webhooks', 'listen', '--register', '--events', 'prospect.created', '--port', '0'], { env });
    try {
      await listener.waitFor('stderr', /Ready: listening on/, 15_000);
      const fg = startSvc(['sandbox', '--json'], { env });
      await fg.waitFor('stdout', /"baseUrl"/, 15_000);
      expect(await fg.stop('SIGTERM')).toBe(0);
      const made = await svcInProcess(['--sandbox', 'prospects', 'create', '--attr', `firstName=${name}`, '-o', 'json'], {
        env,
        timeoutMs: 15_000,
      });
      expect(made.code, made.stderr).toBe(0);
      await listener.waitFor('stdout', new RegExp(`prospect\\.created\\s+prospect ${json<{ id: number }>(made).id}\\b`), 10_000);
    } finally {
      expect(await listener.stop('SIGTERM')).toBe(0);
    }
    expect(await findByFirstName(env, name)).toHaveLength(1);
  });
});
