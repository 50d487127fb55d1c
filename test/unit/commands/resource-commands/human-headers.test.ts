/**
 * Bulk input with headers as people write them (`First Name`, `E-mail`, `Company`, `Job Title`,
 * `Phone`, `Account Name`, a custom-field label), `--map` for the rest, and the refusals of what
 * cannot be read one way: in-process against a real sandbox over HTTP, checking what it stored
 * and what it received.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../../../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../../../helpers/sandbox.js';

let sb: TestSandbox;
let sbEnv: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env: sbEnv } = await sandboxWithEnv());
});
afterAll(async () => {
  await sb?.close();
});

function file(name: string, text: string): string {
  const f = path.join(tempDir(), name);
  fs.writeFileSync(f, text);
  return f;
}

/** The prospect with this address, as `list -o json` prints it. */
async function prospectByEmail(env: NodeJS.ProcessEnv, email: string): Promise<Record<string, unknown>> {
  const r = await runInProcess(['prospects', 'list', '--filter', `emails=${email}`, '--include', 'account', '-o', 'json'], env);
  expect(r.code, r.stderr).toBe(0);
  const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

describe('headers as people write them', () => {
  it('upsert reads First Name, E-mail, Company, Job Title, Phone, Mobile, Account Name and a label; --plan shows the mapping', async () => {
    const env = baseEnv(sbEnv());
    const csv = file(
      'leads.csv',
      'First Name,Last Name,E-mail,Company,Job Title,Phone,Mobile,Account Name,Lead Score\n' +
        'Ada,Lovelace,ada.h@example.com,Acme,CEO,+1 555 0100,+1 555 0101,Atlas Systems,41\n',
    );
    const mark = sb.requests.length;
    const plan = await runInProcess(['prospects', 'upsert', '--input', csv, '--match', 'email', '--plan'], env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain(
      'columns read as: First Name → firstName, Last Name → lastName, E-mail → emails, Company → company, Job Title → title, Phone → workPhones, Mobile → mobilePhones, Account Name → account (by name), Lead Score → custom2 (label "Lead Score")',
    );
    expect(received(sb, mark, 'prospects').filter((q) => q.method !== 'GET')).toHaveLength(0);

    const run = await runInProcess(['prospects', 'upsert', '--input', csv, '--match', 'email'], env);
    expect(run.code, run.stderr).toBe(0);
    const p = await prospectByEmail(env, 'ada.h@example.com');
    expect(p).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      company: 'Acme',
      title: 'CEO',
      workPhones: ['+1 555 0100'],
      mobilePhones: ['+1 555 0101'],
      custom2: '41',
    });
    expect((p.account as { name?: string }).name).toBe('Atlas Systems');
  });

  it('create reads lower-case and upper-case spellings (company vs Company alike)', async () => {
    const env = baseEnv(sbEnv());
    const csv = file('people.csv', 'first name,EMAIL ADDRESS,company,job_title\nBo,bo.h@example.com,Blue Foods,CTO\n');
    const r = await runInProcess(['prospects', 'create', '--input', csv], env);
    expect(r.code, r.stderr).toBe(0);
    expect(await prospectByEmail(env, 'bo.h@example.com')).toMatchObject({ firstName: 'Bo', company: 'Blue Foods', title: 'CTO' });
  });

  it('--map reads the columns no rule knows: pairs, and a JSON file', async () => {
    const env = baseEnv(sbEnv());
    const csv = file('odd.csv', 'Vorname,Mail,Punkte\nCy,cy.h@example.com,7\n');
    const refused = await runInProcess(['prospects', 'create', '--input', csv], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/columns "Vorname", "Punkte" are not fields of prospect; nothing was sent/);
    expect(refused.stderr).toMatch(/hint: say which field each holds with --map/);
    const map = file('map.json', JSON.stringify({ Punkte: 'Lead Score' }));
    const r = await runInProcess(['prospects', 'create', '--input', csv, '--map', 'Vorname=firstName', '--map', map], env);
    expect(r.code, r.stderr).toBe(0);
    expect(await prospectByEmail(env, 'cy.h@example.com')).toMatchObject({ firstName: 'Cy', custom2: '7' });
  });

  it('two columns for one field, a header that could be two fields and a --map to no field are usage errors; nothing is sent', async () => {
    const env = baseEnv(sbEnv());
    const twice = file('twice.csv', 'Email,E-mail\nd@example.com,d@example.com\n');
    const mark = sb.requests.length;
    const r = await runInProcess(['prospects', 'create', '--input', twice], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --input .*twice\.csv: columns "Email" and "E-mail" all set emails/m);
    // `Name` reads as prospect's read-only full name: refused, not dropped with its data.
    const named = file('named.csv', 'Name,E-mail\nAda Lovelace,al@example.com\n');
    const n = await runInProcess(['prospects', 'create', '--input', named], env);
    expect(n.code).toBe(2);
    expect(n.stderr).toMatch(/column "Name" reads as name, which is read-only on prospect: say which field it holds with --map Name=FIELD/);
    const bad = file('bad.csv', 'Zork\nx\n');
    const m = await runInProcess(['prospects', 'create', '--input', bad, '--map', 'Zork=nosuchfield'], env);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/--map Zork=nosuchfield: prospect has no field "nosuchfield"/);
    expect(received(sb, mark, 'prospects').filter((q) => q.method === 'POST')).toHaveLength(0);
  });

  it('a header that is both a label and a synonym names both', async () => {
    const env = baseEnv(sbEnv());
    // Label a custom field "Phone" in this org's schema cache: "Phone" is then workPhones or it.
    const pull = await runInProcess(['schema', 'pull'], env);
    expect(pull.code, pull.stderr).toBe(0);
    const cache = fs.readdirSync(env.SVC_CONFIG_DIR!).find((f) => f.startsWith('schema.'))!;
    const cachePath = path.join(env.SVC_CONFIG_DIR!, cache);
    const schema = JSON.parse(fs.readFileSync(cachePath, 'utf8'));
    schema.types.prospect.customFields.custom9 = { name: 'custom9', type: 'string', required: false, label: 'Phone', definition: null };
    fs.writeFileSync(cachePath, JSON.stringify(schema));
    const csv = file('phone.csv', 'Phone\n+1 555 0102\n');
    const r = await runInProcess(['prospects', 'create', '--input', csv], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/column "Phone" could be custom9 \(label "Phone"\) or workPhones: say which with --map Phone=custom9/);
  });

  it('enroll reads the same headers (Email Address)', async () => {
    const env = baseEnv(sbEnv());
    const csv = file('enroll.csv', 'Email Address\nada.h@example.com\n');
    const r = await runInProcess(['enroll', '--sequence', '1', '--mailbox', '1', '--input', csv, '--by', 'email', '--dry-run'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"email":"ada.h@example.com"');
  });
});
