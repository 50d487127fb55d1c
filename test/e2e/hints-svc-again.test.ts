/**
 * A hint that names an svc command names it as the user ran svc: with their `--sandbox`,
 * `--sandbox-data FILE` or `--profile NAME` (runtime/svc-again.ts). A new user's trial pasted
 * `svc runs list` from the hint of `svc --sandbox runs show nosuchrun` and got another profile's
 * "no recorded runs", exit 0. In process; nothing here needs a server but the sandbox's runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { RunRecordWriter, runsDir } from '../../src/bulk/run/run-record.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';

const config = () => ({ SVC_CONFIG_DIR: tempDir('svc-hints-again-') });

it('an unknown run: the hint lists the runs of the profile the user named', async () => {
  const env = config();
  const sandbox = await svcInProcess(['--sandbox', 'runs', 'show', 'nosuchrun'], { env });
  expect(sandbox.code).toBe(10);
  expect(sandbox.stderr).toBe(
    'error: no recorded run "nosuchrun"\nhint: svc --sandbox runs list shows the runs of this profile and their ids\n',
  );
  const profile = await svcInProcess(['--profile', 'work', 'runs', 'undo', '20260101-000000-0000ab'], { env });
  expect(profile.code).toBe(10);
  expect(profile.stderr).toContain('\nhint: svc --profile work runs list shows the runs of this profile and their ids\n');
  const data = await svcInProcess(['--sandbox-data', 'my org.json', 'runs', 'show', 'nosuchrun'], { env });
  expect(data.stderr).toContain("\nhint: svc --sandbox-data 'my org.json' runs list shows");
  const plain = await svcInProcess(['runs', 'show', 'nosuchrun'], { env });
  expect(plain.stderr).toContain('\nhint: svc runs list shows');
});

it('a record changed after svc wrote it: the hint names no command that refuses it the same way (runs show reads it through the same check)', async () => {
  const env = config();
  const dir = runsDir(path.join(env.SVC_CONFIG_DIR, 'data'));
  const id = '20260101-000000-0000cd';
  const w = RunRecordWriter.create(
    dir,
    {
      k: 'meta',
      id,
      label: 'prospects update',
      argv: 'svc --sandbox prospects update --input x.csv',
      profile: 'sandbox',
      owner: { api: 'http://127.0.0.1:1/api/v2', command: 'prospects update' },
      who: 'me',
      at: new Date().toISOString(),
    },
    Date.now,
  );
  w.close();
  const file = path.join(dir, `${id}.run.ndjson`);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"who":"me"', '"who":"you"'));
  for (const op of ['show', 'undo']) {
    const r = await svcInProcess(['--sandbox', 'runs', op, id], { env });
    expect(r.code, r.stderr).toBe(13);
    expect(r.stderr).toContain('was changed after svc wrote it');
    expect(r.stderr).not.toMatch(/runs show/);
    expect(r.stderr).toContain(
      '\nhint: nothing was sent; restore the file from a backup, or take the run back by hand: its lines (NDJSON) hold',
    );
  }
});

it('other hints that name a command: a setting, a login, the org schema, with the profile given', async () => {
  const env = config();
  const get = await svcInProcess(['--profile', 'work', 'config', 'get', 'output'], { env });
  expect(get.code).toBe(2);
  expect(get.stderr).toContain('\nhint: set it with `svc --profile work config set output VALUE`\n');
  // Not logged in: the login of the profile named, not of the default one.
  const list = await svcInProcess(['--profile', 'work', 'prospects', 'list'], {
    env: { ...env, SVC_BASE_URL: 'http://127.0.0.1:9/api/v2' },
  });
  expect(list.code).toBe(3);
  expect(list.stderr).toContain('\nhint: run `svc --profile work login`, set SVC_TOKEN');
  const label = await svcInProcess(['--profile', 'work', 'prospects', 'list', '--filter', 'Lead Score=5', '--dry-run'], {
    env: { ...env, SVC_BASE_URL: 'http://127.0.0.1:9/api/v2' },
  });
  expect(label.stderr).toContain("no org schema cached: `svc --profile work schema pull` reads your org's labels");
});

it('hints written below the commands (the mirror, the API client) name svc as the user ran it too', async () => {
  // A team's trial: after `svc --profile eu sql …`, the hint said `svc sync`, which syncs the
  // default profile's mirror, another file; `svc sync --rebuild` and `svc login --scopes …` alike.
  const env = config();
  const eu = await svcInProcess(['--profile', 'eu', 'sql', 'select 1'], { env });
  expect(eu.code).toBe(2);
  expect(eu.stderr).toMatch(/^hint: run `svc --profile eu sync` first$/m);
  const sandbox = await svcInProcess(['--sandbox', 'sql', 'select 1'], { env });
  expect(sandbox.stderr).toMatch(/^hint: run `svc --sandbox sync` first$/m);
  const plain = await svcInProcess(['sql', 'select 1'], { env });
  expect(plain.stderr).toMatch(/^hint: run `svc sync` first$/m);
  // A file named with --db: the sync that makes it names it too (the hint left it out, a trial).
  const named = await svcInProcess(['--sandbox', 'sql', '--db', 'my org.sqlite', 'select 1'], { env });
  expect(named.stderr).toMatch(/^hint: run `svc --sandbox sync --db '.*my org\.sqlite'` first$/m);
});

it('svc sql under a --profile that names no profile says so, not "run svc --profile NAME sync" (which refuses the name)', async () => {
  const env = config();
  fs.mkdirSync(env.SVC_CONFIG_DIR, { recursive: true });
  const made = await svcInProcess(['--profile', 'emea', 'config', 'set', 'output', 'json'], { env });
  expect(made.code, made.stderr).toBe(0);
  const r = await svcInProcess(['--profile', 'emeax', 'sql', 'select 1'], { env });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^error: no profile named "emeax" \(did you mean "emea"\?\)/m);
  expect(r.stderr).not.toMatch(/sync/);
});
