/**
 * `svc <resource> create|update|delete|<action>` against a real sandbox: round trips, what the
 * server received (in-process: svcInProcess runs the real program without a process), every action of the spec, client-side validation (exit 2, nothing sent: one
 * case here through the binary, the others and --dry-run in-process in
 * test/unit/commands/resource-commands/write-usage.test.ts), server refusals.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { json, runSvc, tempDir } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 20 }));
});
afterAll(() => sb.close());

const svc = (args: string[], input?: string) => svcInProcess(args, { env: env(), input });
type Rec = Record<string, unknown> & { id: number };

async function firstId(resource: string, filter?: string): Promise<number> {
  const r = await svc([resource, 'list', '--limit', '1', '-o', 'json', ...(filter ? ['--filter', filter] : [])]);
  const rows = json<Rec[]>(r);
  expect(rows.length, `${resource} ${filter ?? ''}: ${r.stderr}`).toBeGreaterThan(0);
  return rows[0]!.id;
}

describe('create / update / delete round trip', () => {
  let accountId: number;
  let prospectId: number;

  it('creates an account, then a prospect linked to it, with typed attributes', async () => {
    const a = await svc([
      'accounts',
      'create',
      '--attr',
      'name=Round Trip Ltd',
      '--attr',
      'numberOfEmployees=42',
      '--attr',
      'named=true',
      '-o',
      'json',
    ]);
    expect(a.code, a.stderr).toBe(0);
    accountId = json<Rec>(a).id;
    expect(json<Rec>(a)).toMatchObject({ name: 'Round Trip Ltd', numberOfEmployees: 42, named: true });

    const mark = sb.requests.length;
    const p = await svc([
      'prospects',
      'create',
      '--attr',
      'firstName=Ada',
      '--attr',
      'lastName=Lovelace',
      '--attr',
      'title=CEO',
      '--attr',
      'emails=ada@example.com,ada@lovelace.dev',
      '--rel',
      `account=${accountId}`,
      '-o',
      'json',
    ]);
    expect(p.code, p.stderr).toBe(0);
    prospectId = json<Rec>(p).id;
    const sent = received(sb, mark, 'prospects').find((r) => r.method === 'POST')!;
    expect(sent.headers['content-type']).toBe('application/vnd.api+json');
    expect(JSON.parse(sent.body)).toEqual({
      data: {
        type: 'prospect',
        attributes: { firstName: 'Ada', lastName: 'Lovelace', title: 'CEO', emails: ['ada@example.com', 'ada@lovelace.dev'] },
        relationships: { account: { data: { type: 'account', id: accountId } } },
      },
    });
    expect(sent.query.raw).not.toMatch(/include/);
    expect(json<Rec>(p)).toMatchObject({ firstName: 'Ada', account: accountId });
  });

  it('update sends only what was given, and --rel name=null unlinks', async () => {
    const mark = sb.requests.length;
    const u = await svc(['prospects', 'update', String(prospectId), '--attr', 'title=CTO', '--rel', 'account=null', '-o', 'json']);
    expect(u.code, u.stderr).toBe(0);
    const sent = received(sb, mark, 'prospects').find((r) => r.method === 'PATCH')!;
    expect(JSON.parse(sent.body)).toEqual({
      data: { type: 'prospect', id: prospectId, attributes: { title: 'CTO' }, relationships: { account: { data: null } } },
    });
    expect(json<Rec>(u)).toMatchObject({ title: 'CTO', account: null, firstName: 'Ada' });
  });

  it('--data takes a flat record from stdin and a JSON:API document from a string', async () => {
    const a = await svc(
      ['accounts', 'update', String(accountId), '--data', '-', '-o', 'json'],
      JSON.stringify({ id: accountId, type: 'account', industry: 'Rockets', updatedAt: '2020-01-01T00:00:00' }),
    );
    expect(a.code, a.stderr).toBe(0);
    expect(json<Rec>(a).industry).toBe('Rockets');
    const b = await svc([
      'accounts',
      'update',
      String(accountId),
      '--data',
      JSON.stringify({ data: { type: 'account', attributes: { locality: 'Paris' } } }),
      '-o',
      'json',
    ]);
    expect(json<Rec>(b).locality).toBe('Paris');
    // A file a Windows editor saved starts with a byte order mark (refused, a trial).
    const file = path.join(tempDir('svc-data-'), 'bom.json');
    fs.writeFileSync(file, `\uFEFF${JSON.stringify({ industry: 'Boats' })}\r\n`);
    const c = await svc(['accounts', 'update', String(accountId), '--data', `@${file}`, '-o', 'json']);
    expect(c.code, c.stderr).toBe(0);
    expect(json<Rec>(c).industry).toBe('Boats');
    // Windows PowerShell 5.1's Out-File writes UTF-16 with its mark (a review).
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify({ industry: 'Ships' }), 'utf16le')]));
    const d = await svc(['accounts', 'update', String(accountId), '--data', `@${file}`, '-o', 'json']);
    expect(d.code, d.stderr).toBe(0);
    expect(json<Rec>(d).industry).toBe('Ships');
    // Windows PowerShell's Set-Content writes Windows-1252: refused, not sent with its é as � (a review).
    fs.writeFileSync(file, Buffer.from([...Buffer.from('{"industry":"Caf'), 0xe9, ...Buffer.from('"}')]));
    const e = await svc(['accounts', 'update', String(accountId), '--data', `@${file}`]);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(
      /^error: --data \(.+bom\.json\): not UTF-8 text \(Windows-1252\?\); nothing was sent\nhint: save it as UTF-8/m,
    );
  });

  it('delete refuses without --yes when not interactive, then deletes', async () => {
    const mark = sb.requests.length;
    const refused = await svc(['prospects', 'delete', String(prospectId)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/without --yes/);
    expect(received(sb, mark, 'prospects')).toHaveLength(0);
    const ok = await svc(['prospects', 'delete', String(prospectId), '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    // Not a terminal: the result as one JSON line for scripts.
    expect(ok.stdout).toMatch(/^\{[^\n]*\}\n$/);
    expect(JSON.parse(ok.stdout)).toEqual({ id: Number(prospectId), type: 'prospect', deleted: true });
    const gone = await svc(['prospects', 'get', String(prospectId)]);
    expect(gone.code).toBe(1);
  });
});

describe('client-side validation: exit 2, field named, nothing sent', () => {
  it('a read-only attribute: prospect name', async () => {
    const mark = sb.requests.length;
    // Through the binary: the exit code of the real process.
    const r = await runSvc(['prospects', 'create', '--attr', 'name=Full Name'], { env: env() });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/prospect name: is read-only/);
    expect(sb.requests.length).toBe(mark);
  });

  it('unknown attributes pass through to the server', async () => {
    const mark = sb.requests.length;
    await svc(['prospects', 'create', '--attr', 'firstName=X', '--attr', 'favouriteColour=blue']);
    const sent = received(sb, mark, 'prospects').find((r) => r.method === 'POST');
    expect(JSON.parse(sent!.body).data.attributes.favouriteColour).toBe('blue');
  });
});

describe('--dry-run', () => {
  it('prints the body with write-only and sensitive values masked, and sends nothing', async () => {
    // A trial: `mailboxes update 1 --attr password=… --dry-run` printed the password in clear.
    const mark = sb.requests.length;
    const upd = await svc([
      'mailboxes',
      'update',
      '1',
      '--attr',
      'password=hunter2-ÄÖ',
      '--attr',
      'smtpPassword=s3cr3t-pw',
      '--attr',
      'userName=ops',
      '--dry-run',
    ]);
    expect(upd.code, upd.stderr).toBe(0);
    expect(upd.stdout).toMatch(/^PATCH http:\/\/\S+\/mailboxes\/1\n\{/);
    const body = JSON.parse(upd.stdout.slice(upd.stdout.indexOf('\n') + 1));
    expect(body.data.attributes).toEqual({ password: '***', smtpPassword: '***', username: 'ops' });
    const hook = await svc([
      'webhooks',
      'create',
      '--attr',
      'url=https://example.test/h',
      '--attr',
      'secret=whsec-very-secret',
      '--dry-run',
    ]);
    expect(hook.code, hook.stderr).toBe(0);
    expect(hook.stdout).toContain('"secret": "***"');
    for (const r of [upd, hook]) expect(r.stdout + r.stderr).not.toMatch(/hunter2|s3cr3t-pw|whsec-very-secret/);
    expect(sb.requests.slice(mark).filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

describe('--dry-run and --plan of a file', () => {
  it('print secret values as ***, for an update and an upsert alike', async () => {
    // A review: `mailboxes update --input … --dry-run` and `upsert --plan` printed "password":"hunter2".
    const dir = tempDir();
    const byId = path.join(dir, 'mb.csv');
    fs.writeFileSync(byId, 'id,password,username\n1,hunter2-ÄÖ,ops\n');
    const byMail = path.join(dir, 'mb2.csv');
    fs.writeFileSync(byMail, 'email,password,smtpPassword,username\nmb-new@example.test,hunter2-ÄÖ,s3cr3t-pw,ops\n');
    const mark = sb.requests.length;
    const runs = [
      await svc(['mailboxes', 'update', '--input', byId, '--dry-run']),
      await svc(['mailboxes', 'upsert', '--input', byMail, '--match', 'email', '--plan']),
      await svc(['mailboxes', 'upsert', '--input', byMail, '--match', 'email', '--plan', '-o', 'json']),
    ];
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/"?password"?: "\*\*\*"|"password":"\*\*\*"/);
      expect(r.stdout + r.stderr).not.toMatch(/hunter2|s3cr3t-pw/);
    }
    expect(sb.requests.slice(mark).filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

describe('server refusals', () => {
  it('422 from the server → exit 1 with the pointer', async () => {
    const r = await svc(['prospects', 'create', '--attr', 'firstName=X', '--attr', 'favouriteColour=blue']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\/data\/attributes\/favouriteColour/);
  });
});

describe('actions', () => {
  let stateId: number;

  it('sequence-states: create → active; pause → paused; resume → active; finish → finished', async () => {
    const prospect = await firstId('prospects');
    const mailbox = await firstId('mailboxes');
    const seq = await svc(['sequences', 'create', '--attr', 'name=Actions test', '--attr', 'sequenceType=interval', '-o', 'json']);
    expect(seq.code, seq.stderr).toBe(0);
    const seqId = json<Rec>(seq).id;
    const step = await svc([
      'sequence-steps',
      'create',
      '--attr',
      'stepType=auto_email',
      '--attr',
      'interval=0',
      '--rel',
      `sequence=${seqId}`,
      '-o',
      'json',
    ]);
    expect(step.code, step.stderr).toBe(0);
    const created = await svc([
      'sequence-states',
      'create',
      '--rel',
      `prospect=${prospect}`,
      '--rel',
      `sequence=${seqId}`,
      '--rel',
      `mailbox=${mailbox}`,
      '-o',
      'json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    stateId = json<Rec>(created).id;
    expect(json<Rec>(created).state).toBe('active');
    const pause = await svc(['sequence-states', 'pause', String(stateId), '-o', 'json']);
    expect(json<Rec>(pause).state).toBe('paused');
    const resume = await svc(['sequence-states', 'resume', String(stateId), '-o', 'json']);
    expect(json<Rec>(resume).state).toBe('active');
    const finish = await svc(['sequence-states', 'finish', String(stateId), '-o', 'json']);
    expect(json<Rec>(finish).state).toBe('finished');
  });

  it('an action whose condition fails → 422, exit 1', async () => {
    const r = await svc(['sequence-states', 'pause', String(stateId)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/validationError|422/);
  });

  it('tasks: mark-complete with a note, snooze', async () => {
    const task = await firstId('tasks', 'state=incomplete');
    const mark = sb.requests.length;
    const done = await svc(['tasks', 'mark-complete', String(task), '--param', 'completionNote=called back', '-o', 'json']);
    expect(done.code, done.stderr).toBe(0);
    expect(json<Rec>(done).state).toBe('completed');
    expect(decodeURIComponent(received(sb, mark, 'tasks')[0]!.query.raw)).toBe('actionParams[completionNote]=called back');
    const other = await firstId('tasks', 'state=incomplete');
    const snooze = await svc(['tasks', 'snooze', String(other), '-o', 'json']);
    expect(snooze.code, snooze.stderr).toBe(0);
  });

  it.each(['test-send', 'test-sync', 'error-sync'])('mailboxes %s', async (action) => {
    const mailbox = await firstId('mailboxes');
    const mark = sb.requests.length;
    const r = await svc(['mailboxes', action, String(mailbox), '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const camel = action.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    expect(received(sb, mark, 'mailboxes')[0]).toMatchObject({ method: 'POST', path: `/api/v2/mailboxes/${mailbox}/actions/${camel}` });
  });

  it('an action given a parameter it does not accept → 400 from the server, exit 1', async () => {
    const task = await firstId('tasks', 'state=incomplete');
    const r = await svc(['tasks', 'snooze', String(task), '--param', 'bogus=1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/400|not accept|parameter/i);
  });
});
