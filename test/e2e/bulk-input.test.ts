/**
 * Bulk input as spreadsheets write it, against the sandbox: `;`-separated UTF-8 with a BOM,
 * Excel's "Unicode text" (UTF-16 LE, tabs), Windows-1252 with CRLF and quoted line breaks,
 * Japanese Excel's "CSV" (Shift_JIS);
 * columns resolved before the first write (unknown ones refused with nothing sent,
 * `--ignore-columns`); the circuit breaker (`--max-failures`); and `--failed` fed back in. The
 * usage errors of --max-failures and --failed are checked in-process in
 * test/unit/commands/resource-commands/bulk-usage.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { cp932, emailOf, freeProspects, inputFile, ndjson, newSequence, stateProspects } from '../helpers/bulk.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 31 }));
});
afterAll(() => sb.close());

const svc = (args: string[], e = env()) => svcInProcess(args, { env: e });

/** Prospects whose first address ends with a marker. */
function marked(marker: string) {
  return [...sb.store.table('prospect').values()]
    .filter((p) => String((p.attributes['emails'] as string[] | undefined)?.[0] ?? '').endsWith(marker))
    .sort((a, b) => a.id - b.id);
}

const posts = (mark: number) => received(sb, mark, 'prospects').filter((q) => q.method === 'POST');

/** UTF-16 LE with its byte order mark, as Excel's "Unicode text" writes it. */
function utf16le(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}

/** Windows-1252 bytes of a Latin-1 text (ë is 0xEB in both). */
function cp1252(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

describe('input as spreadsheets write it', () => {
  it('a ;-separated UTF-8 file with a BOM: the columns are split at ; and the values arrive intact', async () => {
    const file = inputFile(
      'eu.csv',
      '\uFEFFfirstName;lastName;title;emails\nZoë;Müller;"Head; Sales";zoe@eu.test\nJosé;Núñez;CTO;jose@eu.test\n',
    );
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/';'-separated \(from the header line; --delimiter to change\)/);
    expect(r.stderr).not.toMatch(/read as/);
    expect(posts(mark)).toHaveLength(2);
    expect(marked('@eu.test').map((p) => [p.attributes['firstName'], p.attributes['lastName'], p.attributes['title']])).toEqual([
      ['Zoë', 'Müller', 'Head; Sales'],
      ['José', 'Núñez', 'CTO'],
    ]);
  });

  it("Excel's Unicode text (UTF-16 LE, tabs) with CJK text is created correctly", async () => {
    const file = path.join(path.dirname(inputFile('x', '')), 'unicode.txt');
    fs.writeFileSync(file, utf16le('firstName\tlastName\temails\r\n太郎\t山田\ttaro@u16.test\r\nZoë\t"O\'Brien"\tzoe@u16.test\r\n'));
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/read as UTF-16 LE, tab-separated/);
    expect(marked('@u16.test').map((p) => [p.attributes['firstName'], p.attributes['lastName']])).toEqual([
      ['太郎', '山田'],
      ['Zoë', "O'Brien"],
    ]);
  });

  it('UTF-16 BE by its mark, and a forced --delimiter', async () => {
    const le = Buffer.from('firstName|emails\nBé|be@u16be.test\n', 'utf16le');
    // Byte-swap LE into BE.
    const be = Buffer.alloc(le.length);
    for (let i = 0; i < le.length; i += 2) [be[i], be[i + 1]] = [le[i + 1]!, le[i]!];
    const file = inputFile('be.csv', '');
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
    const r = await svc(['prospects', 'create', '--input', file, '--delimiter', '|']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/read as UTF-16 BE, '\|'-separated/);
    expect(marked('@u16be.test').map((p) => p.attributes['firstName'])).toEqual(['Bé']);
  });

  it('Windows-1252 with CRLF and a quoted line break: read as such, and said so', async () => {
    const file = inputFile('win.csv', '');
    fs.writeFileSync(
      file,
      cp1252('firstName,lastName,title,emails\r\nZoë,Brontë,"Line one\r\nline two",zoe@w1252.test\r\nAnaïs,Noël,CEO,anais@w1252.test\r\n'),
    );
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/read as Windows-1252 \(not valid UTF-8\)/);
    expect(marked('@w1252.test').map((p) => [p.attributes['firstName'], p.attributes['lastName'], p.attributes['title']])).toEqual([
      ['Zoë', 'Brontë', 'Line one\r\nline two'],
      ['Anaïs', 'Noël', 'CEO'],
    ]);
  });
});

describe("Japanese Excel's CSV (Shift_JIS, CP932)", () => {
  it('upsert --match email and create read it as Shift_JIS, said so, and the names arrive intact', async () => {
    // Refused as UTF-8 with stray bytes, and the hint's --encoding windows-1252 wrote mojibake (a trial).
    const pre = await svc(['prospects', 'create', '--input', inputFile('pre.csv', 'firstName,lastName,emails\nOld,Name,taro@sjis.test\n')]);
    expect(pre.code, pre.stderr).toBe(0);
    const file = inputFile('sjis.csv', '');
    fs.writeFileSync(
      file,
      cp932(
        'lastName,firstName,title,emails\r\n山田,太郎,営業部\u3000部長,taro@sjis.test\r\n佐藤,花子,,hanako@sjis.test\r\nヤマダ,カタカナ,,kana@sjis.test\r\n',
      ),
    );
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/read as Shift_JIS \(not valid UTF-8\)/);
    expect(r.stderr).toMatch(/: 2 created, 1 updated \(3 of 3 rows/);
    expect(received(sb, mark, 'prospects').filter((q) => q.method === 'POST' || q.method === 'PATCH')).toHaveLength(3);
    const names = () =>
      marked('@sjis.test').map((p) => [p.attributes['lastName'], p.attributes['firstName'], p.attributes['title'] ?? null]);
    expect(names()).toEqual([
      ['山田', '太郎', '営業部\u3000部長'],
      ['佐藤', '花子', null],
      ['ヤマダ', 'カタカナ', null],
    ]);
    // create reads it the same way, and --encoding sjis (a name users type) forces it.
    const again = inputFile('sjis2.csv', '');
    fs.writeFileSync(again, cp932('lastName,firstName,emails\r\n鈴木,花子,suzuki@sjis2.test\r\n'));
    for (const args of [[], ['--encoding', 'sjis']]) {
      const c = await svc(['prospects', 'create', '--input', again, '--journal', `${again}.${args.length}.journal`, ...args]);
      expect(c.code, c.stderr).toBe(0);
      expect(c.stderr).toMatch(args.length ? /read as Shift_JIS \(--encoding\)/ : /read as Shift_JIS \(not valid UTF-8\)/);
    }
    expect(marked('@sjis2.test').map((p) => [p.attributes['lastName'], p.attributes['firstName']])).toEqual([
      ['鈴木', '花子'],
      ['鈴木', '花子'],
    ]);
  });
});

describe('columns resolved before the first write', () => {
  it('an unknown header is refused with a near miss, exit 2, nothing written; --ignore-columns leaves it out', async () => {
    const file = inputFile('typo.csv', 'firstName,tittle,emails,Favourite Colour\nTy,CEO,ty@typo.test,blue\n');
    const e = env();
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file], e);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /error: --input .*typo\.csv: 2 columns "tittle" \(did you mean title\?\), "Favourite Colour" are not fields of prospect; nothing was sent/,
    );
    expect(r.stderr).toMatch(/--ignore-columns tittle,'Favourite Colour'/);
    // The only requests: the schema, pulled once because the profile had none.
    expect(
      sb.requests
        .slice(mark)
        .map((q) => `${q.method} ${q.path}`)
        .sort(),
    ).toEqual(['GET /api/v2/schema/openapi.json', 'GET /api/v2/types']);
    expect(marked('@typo.test')).toHaveLength(0);
    // --dry-run refuses it too (it sent nothing before either, but showed nothing wrong).
    const dry = await svc(['prospects', 'create', '--input', file, '--dry-run'], e);
    expect(dry.code).toBe(2);

    const ok = await svc(['prospects', 'create', '--input', file, '--ignore-columns', 'tittle,Favourite Colour'], e);
    expect(ok.code, ok.stderr).toBe(0);
    const made = marked('@typo.test');
    expect(made).toHaveLength(1);
    expect(made[0]!.attributes['title']).toBeUndefined();
  });

  it('a ;-file read with a forced comma is one long column: refused, the hint names --delimiter', async () => {
    const file = inputFile('semi.csv', 'firstName;lastName;title\nA;B;C\n');
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file, '--delimiter', ',']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/column "firstName;lastName;title" is not a field of prospect/);
    expect(r.stderr).toMatch(/give --delimiter/);
    expect(posts(mark)).toHaveLength(0);
  });

  it('a custom-field label header before `schema pull`: the schema is pulled once and the label maps', async () => {
    const file = inputFile('score.csv', 'firstName,emails,Lead Score\nLe,le@score.test,7\n');
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/pulling the org schema/);
    expect(marked('@score.test')[0]!.attributes['custom2']).toBe('7');
  });
});

describe('circuit breaker', () => {
  it('400 rows refused alike stop after about 20 requests: exit 1, what to fix, journaled', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => `P${i},p${i}@brk.test,999999`).join('\n');
    const file = inputFile('brk.csv', `firstName,emails,account.id\n${rows}\n`);
    const journal = `${file}.journal.ndjson`;
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code).toBe(1);
    const sent = posts(mark).length;
    expect(sent).toBeGreaterThanOrEqual(20);
    expect(sent).toBeLessThanOrEqual(24);
    expect(r.stderr).toMatch(
      /error: stopped after 20 rows in a row were refused with the same error \(\d+ rows not tried\): HTTP 422 .*No account with id 999999/,
    );
    expect(r.stderr).toMatch(/fix what the error names \(first in row \d+\), then run the same command again/);
    expect(r.stderr).toMatch(/--max-failures N/);
    const lines = ndjson<{ status: string }>(journal).filter((l) => l.status === 'failed');
    expect(lines).toHaveLength(sent);
    // --max-failures 0 never stops: 30 rows, 30 requests.
    const small = inputFile('brk30.csv', `firstName,emails,account.id\n${rows.split('\n').slice(0, 30).join('\n')}\n`);
    const m2 = sb.requests.length;
    const all = await svc(['prospects', 'create', '--input', small, '--max-failures', '0']);
    expect(all.code).toBe(5);
    expect(posts(m2)).toHaveLength(30);
  });

  it('different errors in a row do not trip it', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => (i % 2 ? `Q${i},q${i}@mix.test,999999` : `Q${i},q${i}@mix.test,1`)).join('\n');
    const file = inputFile('mix.csv', `firstName,emails,account.id\n${rows}\n`);
    const r = await svc(['prospects', 'create', '--input', file, '--max-failures', '3', '--concurrency', '1']);
    expect(r.code).toBe(5);
    expect(marked('@mix.test')).toHaveLength(15);
  });
});

describe('--failed', () => {
  it('writes the failed rows in the input format (;, BOM, columns) plus error; fixed and fed back, the run completes', async () => {
    const text =
      '\uFEFFfirstName;emails;account.id\nA1;a1@fail.test;1\nA2;a2@fail.test;999999\nA3;a3@fail.test;1\nA4;"a4@fail.test";888888\nA5;a5@fail.test;2\n';
    const file = inputFile('fail.csv', text);
    const failed = path.join(path.dirname(file), 'failed.csv');
    const r = await svc(['prospects', 'create', '--input', file, '--failed', failed]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/2 failed row\(s\) written to .*failed\.csv with an error column/);
    const out = fs.readFileSync(failed, 'utf8');
    expect(out.startsWith('\uFEFF')).toBe(true);
    const lines = out.slice(1).trimEnd().split(/\r?\n/);
    expect(lines[0]).toBe('firstName;emails;account.id;error');
    expect(lines.slice(1).map((l) => l.split(';').slice(0, 3).join(';'))).toEqual(['A2;a2@fail.test;999999', 'A4;a4@fail.test;888888']);
    expect(lines[1]).toMatch(/;HTTP 422 .*No account with id 999999/);
    expect(marked('@fail.test')).toHaveLength(3);

    // One edit (the account ids), one command.
    fs.writeFileSync(failed, out.replace(/;(999999|888888);/g, ';3;'));
    const again = await svc(['prospects', 'create', '--input', failed, '--failed', failed + '.2']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/2 created/);
    const made = marked('@fail.test');
    expect(made.map((p) => p.attributes['firstName'])).toEqual(['A1', 'A3', 'A5', 'A2', 'A4']);
    expect(made.filter((p) => p.attributes['firstName'] === 'A2')[0]!.rels['account']).toEqual({ type: 'account', id: 3 });
    // Nothing of the error column was sent as an attribute.
    expect(made.every((p) => !('error' in p.attributes))).toBe(true);
  });

  it('NDJSON input: failed objects with an error member', async () => {
    const file = inputFile(
      'f.ndjson',
      [
        { firstName: 'N1', emails: ['n1@nd-fail.test'], account: 999999 },
        { firstName: 'N2', emails: ['n2@nd-fail.test'] },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n') + '\n',
    );
    const failed = `${file}.failed.ndjson`;
    const r = await svc(['prospects', 'create', '--input', file, '--failed', failed]);
    expect(r.code).toBe(5);
    const rows = ndjson<Record<string, unknown>>(failed);
    expect(rows).toEqual([
      { firstName: 'N1', emails: ['n1@nd-fail.test'], account: 999999, error: expect.stringMatching(/No account with id 999999/) },
    ]);
  });
});

describe('enroll --input', () => {
  it('a tab-separated UTF-16 export with extra columns; --failed holds the unknown address; fixed and fed back, all enrolled', async () => {
    const seq = await newSequence(sb);
    const ids = freeProspects(sb, 3);
    // The seeded statistics opt some prospects out: these must be enrollable.
    for (const id of ids)
      Object.assign(sb.store.get('prospect', id)!.attributes, { optedOut: false, optedOutAt: null, emailsOptStatus: null });
    const emails = ids.map((id) => emailOf(sb, id));
    const file = path.join(path.dirname(inputFile('x', '')), 'people.txt');
    // Spelled as spreadsheets do: `E-mail` is the email column.
    const lines = ['Name\tE-mail\tNote', `A\t${emails[0]}\tfirst`, 'B\tnobody@nowhere.test\t"two\nlines"', `C\t${emails[2]}\tthird`];
    fs.writeFileSync(file, utf16le(lines.join('\r\n') + '\r\n'));
    const failed = path.join(path.dirname(file), 'failed.txt');
    const r = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--by', 'email', '--failed', failed]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/read as UTF-16 LE, tab-separated/);
    expect(stateProspects(sb, seq)).toEqual([ids[0], ids[2]]);
    const out = fs.readFileSync(failed, 'utf8');
    // UTF-8 with a BOM (the input was not plain UTF-8), tabs, the original columns and an error.
    expect(out).toBe(
      `\uFEFFName\tE-mail\tNote\terror\r\nB\tnobody@nowhere.test\t"two\nlines"\tnot found: no prospect has the address nobody@nowhere.test\r\n`,
    );
    fs.writeFileSync(failed, out.replace('nobody@nowhere.test\t', `${emails[1]}\t`));
    const again = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', failed, '--by', 'email']);
    expect(again.code, again.stderr).toBe(0);
    expect(stateProspects(sb, seq)).toEqual(ids);
  });
});
