/**
 * `svc runs prune`: a removed record can never be undone, so prune is a destructive command like
 * a bulk delete — `--dry-run` lists and removes nothing, a terminal is asked (default no), off a
 * terminal it needs --yes, only this profile's runs unless --all, and a run its rerun would
 * continue is kept (a trial's `--profile a runs prune --older-than 0d --dry-run` removed every
 * profile's runs, exit 0). Records made here with the record writer; nothing is sent (the base URL
 * is never reached), so no sandbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { RunRecordWriter, runFile, runsDir, type RunMeta } from '../../src/bulk/run/run-record.js';
import { pruneHandler } from '../../src/commands/runs/prune.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../helpers/run-svc.js';
import { terminalContext } from '../helpers/terminal-context.js';

const BASE = 'http://127.0.0.1:9/api/v2';
let config: string;
let dir: string;
let env: NodeJS.ProcessEnv;
const DAY = 86_400_000;

/** A run record of `profile` started `ago` ms back; `end: false` leaves it cut short (killed). */
function record(id: string, profile: string, ago: number, opts: { end?: boolean; journal?: string; undoes?: string } = {}): string {
  const at = new Date(Date.now() - ago).toISOString();
  const meta: RunMeta = {
    k: 'meta',
    id,
    label: opts.undoes ? 'runs undo' : 'prospects update',
    argv: `svc --profile ${profile} prospects update --input x.csv`,
    profile,
    owner: { api: BASE, command: opts.undoes ? 'runs undo' : 'prospects update' },
    who: 'tester',
    at,
    ...(opts.journal ? { journal: opts.journal } : {}),
    ...(opts.undoes ? { undoes: opts.undoes } : {}),
  };
  const w = RunRecordWriter.create(dir, meta, Date.now);
  w.write({
    k: 'row',
    row: 1,
    key: '1',
    op: 'update',
    type: 'prospect',
    id: '21',
    before: { attributes: { title: 'A' }, relationships: {} },
  });
  if (opts.end !== false) {
    w.write({ k: 'done', row: 1, key: '1', status: 'updated' });
    w.write({ k: 'end', at, counts: { updated: 1 } });
  }
  w.close();
  return id;
}

const present = () =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.run.ndjson'))
    .map((f) => f.replace('.run.ndjson', ''))
    .sort();
const svc = (args: string[]) => runInProcess(args, env);

beforeEach(() => {
  config = tempDir('svc-prune-');
  dir = runsDir(path.join(config, 'data'));
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  env = baseEnv({ SVC_CONFIG_DIR: config, SVC_BASE_URL: BASE, SVC_TOKEN: 'test-token' });
  record('20260101-000000-0000a1', 'a', 40 * DAY);
  record('20260101-000000-0000a2', 'a', 60_000);
  record('20260101-000000-0000b1', 'b', 40 * DAY);
});

describe('svc runs prune', () => {
  it('--dry-run lists what it would remove (this profile only) and removes nothing', async () => {
    const r = await svc(['--profile', 'a', 'runs', 'prune', '--older-than', '0d', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string; profile: string }[]).map((x) => [x.id, x.profile])).toEqual([
      ['20260101-000000-0000a2', 'a'],
      ['20260101-000000-0000a1', 'a'],
    ]);
    expect(r.stderr).toMatch(
      /^would remove 2 run record\(s\) of profile "a" older than 0d \(0\.0 MB\); 1 kept: 1 of other profiles \(--all\) .*; nothing removed \(--dry-run\)\n$/,
    );
    expect(present()).toHaveLength(3);
  });

  it("works offline: no base URL needed to prune or list this profile's runs", async () => {
    // A review: prune (and runs list) built the connection for the profile's name, and a profile
    // without a base URL failed with "no API base URL".
    const offline = baseEnv({ SVC_CONFIG_DIR: config });
    const dry = await runInProcess(['--profile', 'a', 'runs', 'prune', '--older-than', '0d', '--dry-run'], offline);
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { id: string }[]).map((x) => x.id)).toEqual(['20260101-000000-0000a2', '20260101-000000-0000a1']);
    const list = await runInProcess(['--profile', 'b', 'runs', 'list', '-o', 'json'], offline);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { id: string }[]).map((x) => x.id)).toEqual(['20260101-000000-0000b1']);
  });

  it('off a terminal without --yes: refused, exit 2, nothing removed', async () => {
    const r = await svc(['--profile', 'a', 'runs', 'prune', '--older-than', '30d']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: refusing to remove 1 run record\(s\) without --yes \(not an interactive terminal\)\nhint: list them with --dry-run/,
    );
    expect(present()).toHaveLength(3);
  });

  it("--yes removes only the profile's runs older than the age; --all those of every profile", async () => {
    const r = await svc(['--profile', 'a', 'runs', 'prune', '--older-than', '30d', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^removed 1 run record\(s\) of profile "a" older than 30d \(0\.0 MB\); 2 kept: 1 newer, 1 of other profiles \(--all\)/,
    );
    expect(present()).toEqual(['20260101-000000-0000a2', '20260101-000000-0000b1']);
    const all = await svc(['--profile', 'a', 'runs', 'prune', '--older-than', '30d', '--all', '--yes']);
    expect(all.code, all.stderr).toBe(0);
    expect(present()).toEqual(['20260101-000000-0000a2']);
  });

  it('keeps a run its rerun would continue (and the run an unfinished undo takes back); its journal gone, it goes', async () => {
    const journal = path.join(config, 'x.csv.journal.ndjson');
    fs.writeFileSync(journal, '{"row":1}\n');
    record('20260101-000000-0000a3', 'a', 40 * DAY, { end: false, journal });
    // An undo of a1 cut short (running, or killed), with its journal beside a1's record.
    const undoJournal = runFile(dir, '20260101-000000-0000a1').replace(/\.run\.ndjson$/, '.undo.journal.ndjson');
    fs.writeFileSync(undoJournal, '{"row":1}\n');
    record('20260101-000000-0000a4', 'a', 1000, { end: false, journal: undoJournal, undoes: '20260101-000000-0000a1' });
    const r = await svc(['--profile', 'a', 'runs', 'prune', '--older-than', '0d', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^removed 1 run record\(s\) .*; 4 kept: 3 unfinished \(running its command again continues it: one run, one undo\), 1 of other profiles/,
    );
    expect(present()).toEqual(['20260101-000000-0000a1', '20260101-000000-0000a3', '20260101-000000-0000a4', '20260101-000000-0000b1']);
    expect(fs.existsSync(undoJournal)).toBe(true);
    fs.rmSync(journal);
    // The undo (newer than 30d) still keeps the run it takes back.
    expect((await svc(['--profile', 'a', 'runs', 'prune', '--older-than', '30d', '--yes'])).code).toBe(0);
    expect(present()).toEqual(['20260101-000000-0000a1', '20260101-000000-0000a4', '20260101-000000-0000b1']);
  });

  it('on a terminal it asks first, default no', async () => {
    const asked: [string, boolean | undefined][] = [];
    const run = async (answer: boolean) => {
      const { ctx } = terminalContext(env, {
        confirm: (message, def) => {
          asked.push([message, def]);
          return answer;
        },
        globals: { profile: 'a', baseUrl: BASE, token: 't', timeoutMs: 1000 },
      });
      await pruneHandler(ctx, { olderThan: '30d' });
      await ctx.close();
    };
    await run(false);
    expect(asked).toEqual([['Remove the records of 1 run(s) of profile "a"? They can no longer be undone.', false]]);
    expect(present()).toHaveLength(3);
    await run(true);
    expect(present()).toEqual(['20260101-000000-0000a2', '20260101-000000-0000b1']);
  });
});
