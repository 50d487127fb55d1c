/**
 * `kill -9` of the process serving an org file: every change it acknowledged survives (each is
 * in the change log beside the file before its answer leaves; README, "The sandbox"), so a bulk
 * run's journal never records as done a record the org lost, and a rerun does each row once. No
 * id is ever handed out again — the next owner's records cannot be mistaken for a killed run's
 * by its journal or report. Ids stay consecutive across a clean restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { startSvc } from '../helpers/long-running.js';
import { spawnSvc, tempDir } from '../helpers/run-svc.js';

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
    // Killed right after the last acknowledgement: within the save interval (the log has it).
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

  it('loses none of the writes it acknowledged: a bulk create killed while it serves the org, then rerun, makes each row once', async () => {
    const env = { SVC_CONFIG_DIR: tempDir('svc-kill-rows-') };
    const input = path.join(tempDir('svc-kill-rows-in-'), 'kill.csv');
    const rows = 250;
    fs.writeFileSync(input, `First Name,E-mail\n${Array.from({ length: rows }, (_, i) => `P${i},p${i}@kill.test\n`).join('')}`);
    const journal = `${input}.sandbox.journal.ndjson`;
    const created = (): { row: number; id: number }[] => {
      let text = '';
      try {
        text = fs.readFileSync(journal, 'utf8');
      } catch {}
      return text
        .split('\n')
        .filter((l) => l.includes('"status":"created"'))
        .map((l) => JSON.parse(l) as { row: number; id: number });
    };
    // bin/svc serves the org itself (no other svc runs) and is killed mid-run, within the save
    // interval of the rows it acknowledged last.
    const run = spawnSvc(['--sandbox', 'prospects', 'create', '--input', input], { env });
    run.stdout!.resume();
    run.stderr!.resume();
    const exited = new Promise<NodeJS.Signals | null>((r) => run.on('exit', (_, signal) => r(signal)));
    const until = Date.now() + 30_000;
    while (created().length < 100 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    run.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const done = created();
    expect(done.length).toBeGreaterThanOrEqual(100);
    expect(done.length).toBeLessThan(rows);
    // Another process serves the org now: it holds every record the journal says was created.
    const list = async () => {
      const r = await svcInProcess(['--sandbox', 'prospects', 'list', '--all', '-o', 'json', '--query', '[].[id, emails[0]]'], { env });
      expect(r.code, r.stderr).toBe(0);
      return new Map((JSON.parse(r.stdout) as [number, string][]).filter((p) => p[1]?.endsWith('@kill.test')));
    };
    const held = await list();
    expect(done.filter((d) => held.get(d.id) !== `p${d.row - 1}@kill.test`)).toEqual([]);
    // The rerun skips those, looks up the rows whose answers the kill cut, sends the rest: each row once.
    const rerun = await svcInProcess(['--sandbox', 'prospects', 'create', '--input', input, '--settle', '1', '--resend-unconfirmed'], {
      env,
    });
    expect(rerun.code, rerun.stderr).toBe(0);
    const emails = [...(await list()).values()].sort();
    expect(emails).toEqual(Array.from({ length: rows }, (_, i) => `p${i}@kill.test`).sort());
  }, 90_000);
});
