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

  it('a --map to no field names the field meant: a typo, or a header name such as Job Title (a Paris trial: no hint at all)', async () => {
    const env = baseEnv(sbEnv());
    const csv = file('fr.csv', 'Prénom;Fonction;E-mail\nZoë;Acheteuse;zoe@example.com\n');
    const typo = await runInProcess(
      ['prospects', 'create', '--input', csv, '--map', 'Prénom=fistName', '--map', 'Fonction=title', '--dry-run'],
      env,
    );
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--map "Prénom=fistName": prospect has no field "fistName" \(did you mean "firstName"\?\)/);
    const header = await runInProcess(
      ['prospects', 'create', '--input', csv, '--map', 'Prénom=firstName', '--map', 'Fonction=Job Title', '--dry-run'],
      env,
    );
    expect(header.code).toBe(2);
    expect(header.stderr).toMatch(/--map "Fonction=Job Title": prospect has no field "Job Title" \(did you mean "title"\?\)/);
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

/** Labels custom fields of prospects in this profile's schema cache, as `svc schema pull` would have them. */
async function labelCustomFields(env: NodeJS.ProcessEnv, labels: Record<string, string>): Promise<void> {
  const pull = await runInProcess(['schema', 'pull'], env);
  expect(pull.code, pull.stderr).toBe(0);
  const cache = fs.readdirSync(env.SVC_CONFIG_DIR!).find((f) => f.startsWith('schema.'))!;
  const cachePath = path.join(env.SVC_CONFIG_DIR!, cache);
  const schema = JSON.parse(fs.readFileSync(cachePath, 'utf8'));
  for (const [name, label] of Object.entries(labels))
    schema.types.prospect.customFields[name] = { name, type: 'string', required: false, label, definition: null };
  fs.writeFileSync(cachePath, JSON.stringify(schema));
}

// Headers in Japanese, Cyrillic or Greek were all read as one empty name (only a-z and 0-9 were
// kept): a --map key matched every such column, and two such labels were one (a trial).
describe('headers in other scripts', () => {
  it('a --map key that is no header of the file applies to no other column: the unmapped one stops the run', async () => {
    const env = baseEnv(sbEnv());
    const csv = file('one.csv', 'Email,部署\r\ny@example.jp,営業部\r\n');
    const mark = sb.requests.length;
    const r = await runInProcess(['prospects', 'create', '--input', csv, '--map', '会社名=company', '--report', '-'], env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/column "部署" is not a field of prospect; nothing was sent/);
    expect(r.stderr).toMatch(/hint: say which field it holds with --map "部署=FIELD"/);
    expect(r.stderr).toMatch(/--map: .*one\.csv has no column "会社名"/);
    expect(r.stderr).not.toContain('部署 → company');
    expect(received(sb, mark, 'prospects').filter((q) => q.method !== 'GET')).toHaveLength(0);
  });

  it('a mapped Japanese column is read as its field, and the other Japanese column is named unknown', async () => {
    const env = baseEnv(sbEnv());
    const two = file('two.csv', 'Email,会社名,部署\r\nx@example.jp,株式会社ＡＢＣ,営業部\r\n');
    const refused = await runInProcess(['prospects', 'create', '--input', two, '--map', '会社名=company', '--dry-run'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/column "部署" is not a field of prospect; nothing was sent/);
    expect(refused.stderr).not.toMatch(/all set company/);

    const one = file('mapped.csv', 'Email,会社名\r\nj1@example.jp,株式会社ＡＢＣ\r\n');
    // Full-width letters in the map key are the header's half-width ones.
    const r = await runInProcess(['prospects', 'create', '--input', one, '--map', '会社名=company'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('columns read as: Email → emails, 会社名 → company');
    expect(await prospectByEmail(env, 'j1@example.jp')).toMatchObject({ company: '株式会社ＡＢＣ' });
    const wide = file('wide.csv', 'Email,Ｃｏｍｐａｎｙ Ｎａｍｅ\r\nj4@example.jp,ＤＥＦ\r\n');
    const w = await runInProcess(['prospects', 'create', '--input', wide], env);
    expect(w.code, w.stderr).toBe(0);
    expect(await prospectByEmail(env, 'j4@example.jp')).toMatchObject({ company: 'ＤＥＦ' });
  });

  it('a map file with Japanese keys maps each column to its own field, spelled as loosely as ASCII keys', async () => {
    const env = baseEnv(sbEnv());
    // The export writes half-width katakana (ﾒｰﾙ); the map file does not.
    const csv = file('names.csv', '姓,名,ﾒｰﾙ\r\n山田,太郎,j2@example.jp\r\n');
    const map = file('map.json', JSON.stringify({ メール: 'emails', 姓: 'lastName', 名: 'firstName' }));
    const r = await runInProcess(['prospects', 'create', '--input', csv, '--map', map], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('columns read as: 姓 → lastName, 名 → firstName, ﾒｰﾙ → emails');
    expect(r.stderr).not.toContain('has no column');
    expect(await prospectByEmail(env, 'j2@example.jp')).toMatchObject({ lastName: '山田', firstName: '太郎' });
  });

  it('Cyrillic and Greek headers stay apart: mapped ones are read, the others named unknown', async () => {
    const env = baseEnv(sbEnv());
    const csv = file('ru.csv', 'Фамилия,Имя,Почта,Επώνυμο\nИванова,Анна,ru1@example.com,x\n');
    const mark = sb.requests.length;
    const refused = await runInProcess(['prospects', 'create', '--input', csv, '--map', 'фамилия=lastName', '--map', 'ПОЧТА=emails'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/columns "Имя", "Επώνυμο" are not fields of prospect; nothing was sent/);
    expect(received(sb, mark, 'prospects').filter((q) => q.method !== 'GET')).toHaveLength(0);
    const r = await runInProcess(
      [
        'prospects',
        'create',
        '--input',
        csv,
        '--map',
        'фамилия=lastName',
        '--map',
        'ПОЧТА=emails',
        '--map',
        'Имя=firstName',
        '--map',
        'ΕΠΏΝΥΜΟ=custom5',
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(await prospectByEmail(env, 'ru1@example.com')).toMatchObject({ lastName: 'Иванова', firstName: 'Анна', custom5: 'x' });
  });

  it('a header equal to a Japanese custom-field label is read as that field, and two such labels stay two', async () => {
    const env = baseEnv(sbEnv());
    await labelCustomFields(env, { custom9: '業種', custom10: '従業員数' });
    const csv = file('labels.csv', 'Email,業種,従業員数\r\nj3@example.jp,製造業,120\r\n');
    const r = await runInProcess(['prospects', 'create', '--input', csv], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('業種 → custom9 (label "業種"), 従業員数 → custom10 (label "従業員数")');
    expect(await prospectByEmail(env, 'j3@example.jp')).toMatchObject({ custom9: '製造業', custom10: '120' });
    const unknown = file('unlabelled.csv', 'Email,部署\r\nj5@example.jp,営業部\r\n');
    const u = await runInProcess(['prospects', 'create', '--input', unknown], env);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/column "部署" is not a field of prospect/);
  });
});
