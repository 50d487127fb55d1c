/**
 * `kill -9` of the process serving an org file: the records it acknowledged in its last moments
 * may be lost (the org is saved at most every 250 ms; README, "The sandbox"), but their ids are
 * never handed out again — the next owner's records cannot be mistaken for them by a bulk run's
 * journal or report. Ids stay consecutive across a clean restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSvc } from '../helpers/long-running.js';
import { tempDir } from '../helpers/run-svc.js';

interface Info {
  baseUrl: string;
  token: string;
}

async function createAccount(info: Info, name: string): Promise<number> {
  const res = await fetch(`${info.baseUrl}/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify({ data: { type: 'account', attributes: { name } } }),
  });
  expect(res.status).toBe(201);
  return Number(((await res.json()) as { data: { id: string | number } }).data.id);
}

async function serve(file: string, env: Record<string, string>) {
  const fg = startSvc(['sandbox', '--data', file, '--json'], { env });
  const info = JSON.parse((await fg.waitFor('stdout', /^\{.*\}$/m, 15_000))[0]!) as Info;
  return { fg, info };
}

describe('a killed sandbox owner', () => {
  it('never lets its successor reuse an id it acknowledged', async () => {
    const env = { SVC_CONFIG_DIR: tempDir('svc-kill-ids-') };
    const file = path.join(tempDir('svc-kill-org-'), 'org.json');
    const first = await serve(file, env);
    const acked: number[] = [];
    for (let i = 0; i < 12; i++) acked.push(await createAccount(first.info, `Acked${i}`));
    // Killed right after the last acknowledgement: within the save interval.
    first.fg.child.kill('SIGKILL');
    expect(await first.fg.exited).toBeNull();
    const second = await serve(file, env);
    try {
      const next = await createAccount(second.info, 'AfterKill');
      expect(acked).not.toContain(next);
      expect(next).toBeGreaterThan(Math.max(...acked));
    } finally {
      expect(await second.fg.stop('SIGTERM')).toBe(0);
    }
    // A clean stop records the exact next ids: the reservation is gone, ids stay consecutive.
    expect(fs.existsSync(`${file}.ids`)).toBe(false);
    const third = await serve(file, env);
    try {
      const a = await createAccount(third.info, 'Clean1');
      const b = await createAccount(third.info, 'Clean2');
      expect(b).toBe(a + 1);
    } finally {
      expect(await third.fg.stop('SIGTERM')).toBe(0);
    }
    const fourth = await serve(file, env);
    try {
      const saved = JSON.parse(fs.readFileSync(file, 'utf8')).store.nextIds.account as number;
      expect(await createAccount(fourth.info, 'Clean3')).toBe(saved);
    } finally {
      expect(await fourth.fg.stop('SIGTERM')).toBe(0);
    }
  }, 90_000);
});
