/**
 * Input files as spreadsheets and people write them, run in-process against the sandbox over
 * HTTP: Excel's blank rows (`;;;;`), a European decimal comma, one e-mail rule for every command,
 * a stray Windows-1252 byte in a UTF-8 file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp932, inputFile, ndjson } from '../helpers/bulk.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { baseEnv } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
beforeAll(async () => {
  // The scenarios make or pick their own records: 200 prospects (2,526 before, seeding a third of
  // the file's CPU for nothing a test used).
  ({ sb, env } = await sandboxWithEnv({ seed: 200 }));
});
afterAll(() => sb.close());

const svc = (args: string[]) => runInProcess(args, baseEnv(env()), { timeoutMs: 30_000 });

/** Prospects holding an address (any case). */
function holders(email: string): number[] {
  const out: number[] = [];
  for (const [id, p] of sb.store.table('prospect')) {
    const list = p.attributes['emails'];
    if (Array.isArray(list) && list.some((e) => String(e).toLowerCase() === email.toLowerCase())) out.push(id);
  }
  return out;
}

describe('shards on one machine', () => {
  it('a shard refused for the journal another shard holds is told to take a journal of its own', async () => {
    // Shards 1/2 and 2/2 started together met on the default journal; the hint said only "wait" (a trial).
    const file = inputFile('sharded.ndjson', '{"firstName":"Shard","lastName":"One"}\n{"firstName":"Shard","lastName":"Two"}\n');
    // The other shard, alive (this test's parent process), holds the default journal.
    fs.writeFileSync(`${file}.journal.ndjson.lock`, `${process.ppid}\n${os.hostname()}\n`);
    try {
      const r = await svc(['prospects', 'create', '--input', file, '--shard', '1/2']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`another svc run (pid ${process.ppid}) is using this journal`);
      expect(r.stderr).toContain(
        `hint: if the holder is another shard of this file: shards run at once on one machine each need a journal of their own from their first run (--journal ${file}.shard-1.journal.ndjson); a shard that has run before keeps its journal, or its rows are sent again`,
      );
    } finally {
      fs.rmSync(`${file}.journal.ndjson.lock`, { force: true });
    }
  });
});

describe("Excel's unnamed trailing column", () => {
  it('a header ending in a comma: the column is left out, said once; a row with a value there is refused, the others go', async () => {
    // Every command refused such a file ("column 4 of the header row has no name"), with no way
    // round it: --ignore-columns cannot name a column without a name (a trial).
    const file = inputFile(
      'trail.csv',
      'First Name,E-mail Address,Job Title,\r\nMia,Mia.Trail@Corp.test,CEO,\r\nRon,ron.trail@corp.test,CTO,\r\nEve,eve.trail@corp.test,CFO,oops\r\n',
    );
    const plan = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--plan', '-o', 'json']);
    // Row 3 would fail: the plan ends as the run does, exit 5.
    expect(plan.code, plan.stderr).toBe(5);
    expect(plan.stderr).toContain(
      `--input ${file}: column 4 of the header row has no name: left out (a row with a value there is refused)`,
    );
    expect(JSON.parse(plan.stdout).bill).toMatchObject({ creates: 2, failed: 1 });
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('row 3: (row): has a value in column 4, which has no name in the header row (name it, or clear it)');
    expect(holders('mia.trail@corp.test')).toHaveLength(1);
    expect(holders('ron.trail@corp.test')).toHaveLength(1);
    expect(holders('eve.trail@corp.test')).toEqual([]);
    const seq = [...sb.store.table('sequence').keys()][0]!;
    const box = [...sb.store.table('mailbox').keys()][0]!;
    const enrol = await svc(['enroll', '--sequence', String(seq), '--mailbox', String(box), '--input', file, '--by', 'email', '--dry-run']);
    expect(enrol.code, enrol.stderr).toBe(0);
    expect(
      enrol.stdout
        .trim()
        .split('\n')
        .filter((l) => JSON.parse(l).method === 'POST'),
    ).toHaveLength(2);
  });
});

describe("Excel's blank rows", () => {
  it('rows of delimiters only are skipped and counted as blank: exit 0, on the run and on the rerun', async () => {
    const file = inputFile(
      'blank.csv',
      'firstName;lastName;emails;title;company;workPhones;region;tags\n' +
        'Bea;Blank;bea@blank.test;CEO;;;;\n' +
        ';;;;;;;\n' +
        'Ben;Blank;ben@blank.test;CTO;;;;\n' +
        ';;;;;;;\n' +
        ' ; ;;;;;;\r\n',
    );
    for (const run of [1, 2]) {
      const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--report', `${file}.${run}.report`]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/: 2 rows: .*0 invalid, 3 blank \(skipped\)/);
      expect(r.stderr).toMatch(/\(2 of 2 rows in [\d.]+ s; 3 blank rows skipped\)/);
      expect(r.stderr).not.toMatch(/failed/);
    }
    expect(holders('bea@blank.test')).toHaveLength(1);
    expect(holders('ben@blank.test')).toHaveLength(1);
    // enroll reads the same file the same way.
    const seq = await svc(['sequences', 'create', '--attr', 'name=Blank rows', '-o', 'json']);
    const seqId = String((JSON.parse(seq.stdout) as { id: number }).id);
    const en = await svc(['enroll', '--sequence', seqId, '--mailbox', '1', '--input', file, '--by', 'email', '--yes']);
    expect(en.code, en.stderr).toBe(0);
    expect(en.stderr).toMatch(/3 blank rows \(every cell empty\) skipped/);
    expect(en.stderr).toMatch(/2 created \(2 of 2 rows in [\d.]+ s; 3 blank rows skipped\)/);
  });

  it('one row is "1 row", not "1 rows", in the plan line and the summary', async () => {
    const file = inputFile('one.csv', 'firstName,lastName,emails\nOna,One,ona@one.test\n,,\n');
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/: 1 row: 1 to /);
    expect(r.stderr).toMatch(/1 created \(1 of 1 row in [\d.]+ s; 1 blank row skipped\)/);
    expect(r.stderr).not.toMatch(/\b1 rows\b/);
  });

  it('create --input: blank rows keep their numbers, so the rows after them are reported as the spreadsheet numbers them', async () => {
    const file = inputFile('blank-create.csv', 'firstName,lastName,emails\n,,\nCal,Blank,cal@blank.test\n,,\nCid,Blank,cid@blank.test\n');
    const r = await svc(['prospects', 'create', '--input', file, '--report', `${file}.report`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/2 rows: 2 to create, 0 done by earlier runs, 0 invalid, 2 blank \(skipped\)/);
    expect(ndjson<{ row: number; status: string }>(`${file}.report`).map((l) => [l.row, l.status])).toEqual([
      [2, 'created'],
      [4, 'created'],
    ]);
    expect(holders('cal@blank.test')).toHaveLength(1);
    expect(holders('cid@blank.test')).toHaveLength(1);
  });
});

describe('lists in CSV: formula-safe after every ;, and exact through export → import', () => {
  it("tags ['vip', '=cmd…', 'a;b', 'end\\\\'] export neutralised, and the exported file re-imports as no change", async () => {
    const tags = ['vip', "=cmd|' /C calc'!A0", 'a;b', 'end\\', "'quoted"];
    const made = await svc(['prospects', 'create', '--attr', 'firstName=Semi', '--attr', 'emails=semi@colon.test', '-o', 'json']);
    expect(made.code, made.stderr).toBe(0);
    const id = Number((JSON.parse(made.stdout) as { id: number }).id);
    sb.store.get('prospect', id)!.attributes['tags'] = tags;
    const file = inputFile('semi.csv', '');
    const ex = await svc(['prospects', 'list', '--filter', `id=${id}`, '--columns', 'id,emails,tags', '-o', 'csv']);
    expect(ex.code, ex.stderr).toBe(0);
    // A spreadsheet whose list separator is `;` splits there: no piece starts a formula.
    const pieces = ex.stdout.split(/[;,\n]/).map((c) => c.replace(/^"/, ''));
    expect(pieces.filter((c) => /^[=+\-@\t\r]/.test(c))).toEqual([]);
    fs.writeFileSync(file, ex.stdout);
    const plan = await svc(['prospects', 'update', '--input', file, '--match', 'id', '--plan', '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    expect((JSON.parse(plan.stdout) as { bill: { unchanged: number; updates: number } }).bill).toMatchObject({ unchanged: 1, updates: 0 });
    // And written back, the record holds the same five tags.
    const r = await svc(['prospects', 'update', '--input', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(sb.store.get('prospect', id)!.attributes['tags']).toEqual(tags);
  });
});

describe('a stray Windows-1252 byte in a UTF-8 file', () => {
  it('stops before anything is sent, naming the line; --encoding utf-8 keeps every Zoë', async () => {
    const file = inputFile('mixed.csv', '');
    fs.writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('firstName,lastName,emails\nZoë,One,zoe1@mixed.test\n'),
        Buffer.from([0x4c, 0xeb, 0x61, 0x2c, 0x54, 0x77, 0x6f, 0x2c]),
        Buffer.from('lea@mixed.test\nZoë,Three,zoe3@mixed.test\n'),
      ]),
    );
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --input .+mixed\.csv: line 3 holds a byte that is not UTF-8 \(0xEB, .*\), while the file is UTF-8 elsewhere \(from line 2\)/m,
    );
    expect(r.stderr).toMatch(/^hint: fix line 3 .*--encoding utf-8 .*--encoding windows-1252/m);
    expect(sb.requests.slice(mark).filter((q) => q.method === 'POST')).toEqual([]);
    const ok = await svc(['prospects', 'create', '--input', file, '--encoding', 'utf-8']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(holders('zoe3@mixed.test').map((id) => sb.store.get('prospect', id)!.attributes['firstName'])).toEqual(['Zoë']);
    expect(holders('lea@mixed.test').map((id) => sb.store.get('prospect', id)!.attributes['firstName'])).toEqual(['L\uFFFDa']);
    const bad = await svc(['prospects', 'create', '--input', file, '--encoding', 'latin9']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--encoding latin9: expected utf-8, windows-1252, shift_jis, utf-16le or utf-16be/);
  });
});

describe('a Shift_JIS file of half-width katakana only (a trial)', () => {
  it('refused as before (not guessed: À–ß of Windows-1252 are the same bytes), but the hint names --encoding shift_jis with the line as it reads; given, the names are right', async () => {
    // ﾔﾏﾓﾄ and ｶ)ﾔﾏﾓﾄｼｮｳｼﾞ: one byte each in Shift_JIS (U+FF61–U+FF9F are 0xA1–0xDF). Two pairs of
    // them happen to be UTF-8 (ﾛｳ, ﾄｼ): the file was refused as UTF-8 with stray bytes, the hint
    // naming utf-8 and windows-1252, which both garble it.
    const kana = (t: string) =>
      Buffer.from([...t].map((c) => (c.charCodeAt(0) >= 0xff61 ? c.charCodeAt(0) - 0xff61 + 0xa1 : c.charCodeAt(0))));
    const file = inputFile('kana.csv', '');
    fs.writeFileSync(file, kana('firstName,lastName,title,emails\nﾀﾛｳ,ﾔﾏﾓﾄ,ｶ)ﾔﾏﾓﾄｼｮｳｼﾞ,taro@kana.test\n'));
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --input .+kana\.csv: line 2 holds a byte that is not UTF-8 \(0xC0, as Windows-1252 writes é, ë, – and Shift_JIS half-width katakana\)/m,
    );
    expect(r.stderr).toContain(
      '\nhint: fix line 2 (save the file as UTF-8), or choose: --encoding utf-8 (that byte becomes �), --encoding windows-1252 (UTF-8 text such as Zoë becomes ZoÃ«) or --encoding shift_jis (line 2 then reads "ﾀﾛｳ,ﾔﾏﾓﾄ,ｶ)ﾔﾏﾓﾄｼｮｳｼﾞ,taro@kana.test")\n',
    );
    expect(sb.requests.slice(mark).filter((q) => q.method === 'POST')).toEqual([]);
    const ok = await svc(['prospects', 'create', '--input', file, '--encoding', 'shift_jis']);
    expect(ok.code, ok.stderr).toBe(0);
    const [id] = holders('taro@kana.test');
    const a = sb.store.get('prospect', id!)!.attributes;
    expect([a['firstName'], a['lastName'], a['title']]).toEqual(['ﾀﾛｳ', 'ﾔﾏﾓﾄ', 'ｶ)ﾔﾏﾓﾄｼｮｳｼﾞ']);
  });
});

describe('a Shift_JIS file whose Japanese is one-kanji names (a trial)', () => {
  it('read as Shift_JIS, said so, and 林, 健 and 森 arrive intact: not Windows-1252, not refused as Mac Roman', async () => {
    // 林,健 were read as Windows-1252 and written as "—Ñ" and "Œ’", exit 0; 森's 0x90 (Mac Roman's ê)
    // was refused naming only "CSV UTF-8": only runs of two Japanese characters told Shift_JIS.
    const s4 = inputFile('s4.csv', '');
    fs.writeFileSync(s4, cp932('Email,First Name,Last Name\r\nken@s4.test,林,健\r\n'));
    const single = inputFile('single.csv', '');
    fs.writeFileSync(single, cp932('First Name,Last Name,Email\r\nKen,林,ken.hayashi@single.test\r\nJun,森,jun.mori@single.test\r\n'));
    for (const file of [s4, single]) {
      const r = await svc(['prospects', 'create', '--input', file]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/read as Shift_JIS \(not valid UTF-8\)/);
    }
    const names = (email: string) => {
      const a = sb.store.get('prospect', holders(email)[0]!)!.attributes;
      return [a['firstName'], a['lastName']];
    };
    expect(names('ken@s4.test')).toEqual(['林', '健']);
    expect(names('ken.hayashi@single.test')).toEqual(['Ken', '林']);
    expect(names('jun.mori@single.test')).toEqual(['Jun', '森']);
  });
});

describe('a European decimal comma in a number column', () => {
  it('read as a decimal in a ;-separated file (as Excel writes it there); refused with the fix in a comma-separated one', async () => {
    const semi = inputFile(
      'comma.csv',
      'firstName;emails;score\nDec;dec1@comma.test;4,5\nNeg;dec2@comma.test;-0,25\nInt;dec3@comma.test;7\n',
    );
    const r = await svc(['prospects', 'create', '--input', semi]);
    expect(r.code, r.stderr).toBe(0);
    const score = (email: string) => holders(email).map((id) => sb.store.get('prospect', id)!.attributes['score']);
    expect([score('dec1@comma.test'), score('dec2@comma.test'), score('dec3@comma.test')]).toEqual([[4.5], [-0.25], [7]]);

    const comma = inputFile('comma2.csv', 'firstName,emails,score\nDec,dec4@comma.test,"4,5"\nOk,dec5@comma.test,4.5\n');
    const r2 = await svc(['prospects', 'create', '--input', comma, '--report', `${comma}.r`]);
    expect(r2.code).toBe(5);
    expect(r2.stderr).toMatch(
      /row 1: score: "4,5" has a decimal comma: write 4\.5, or save the file ;-separated \(as spreadsheets do where the comma is the decimal separator\)/,
    );
    expect(holders('dec4@comma.test')).toEqual([]);
    expect(score('dec5@comma.test')).toEqual([4.5]);
  });

  it("the same in a custom number field named by its label (Lead Score, the org's numerical custom2)", async () => {
    const custom = (email: string) => holders(email).map((id) => sb.store.get('prospect', id)!.attributes['custom2']);
    const semi = inputFile('lead-score.csv', 'email;firstName;Lead Score\nb1@comma.test;Bo;4,5\n');
    const r = await svc(['prospects', 'upsert', '--input', semi, '--match', 'email']);
    expect(r.code, r.stderr).toBe(0);
    expect(custom('b1@comma.test')).toEqual(['4.5']);
    const comma = inputFile('lead-score2.csv', 'email,firstName,Lead Score\nb2@comma.test,Bo,"4,5"\n');
    const r2 = await svc(['prospects', 'upsert', '--input', comma, '--match', 'email', '--report', `${comma}.r`]);
    expect(r2.code).toBe(5);
    expect(r2.stderr).toMatch(/row 1: custom2 \(Lead Score\): "4,5" has a decimal comma: write 4\.5, or save the file ;-separated/);
    expect(holders('b2@comma.test')).toEqual([]);
    const attr = await svc(['prospects', 'create', '--attr', 'firstName=Cy', '--attr', 'Lead Score=4,5']);
    expect(attr.code).toBe(2);
    expect(attr.stderr).toMatch(/"4,5" has a decimal comma: write 4\.5/);
  });
});

describe('full-width digits in a number column (Japanese Excel, a trial)', () => {
  it('are read as their ASCII forms in number, integer and numerical custom fields, in files and flags; text fields keep them', async () => {
    // `custom2 (Lead Score): expected a number, got "８５"`, with no hint: a Japanese IME types
    // digits full-width. Read as NFKC reads ０–９ － ． ， ％; a title keeps its full-width 第１.
    const file = inputFile(
      'zenkaku.csv',
      'firstName,title,emails,score,Lead Score\nＡｉ,第１営業部　部長,z1@zenkaku.test,８５．５,８５\nKo,Ｂ,z2@zenkaku.test,－７,１２\n',
    );
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code, r.stderr).toBe(0);
    const attrs = (email: string) => sb.store.get('prospect', holders(email)[0]!)!.attributes;
    expect(attrs('z1@zenkaku.test')).toMatchObject({ firstName: 'Ａｉ', title: '第１営業部　部長', score: 85.5, custom2: '85' });
    expect(attrs('z2@zenkaku.test')).toMatchObject({ title: 'Ｂ', score: -7, custom2: '12' });
    // A ;-separated file's decimal comma, full-width too.
    const semi = inputFile('zenkaku-semi.csv', 'firstName;emails;score\nDe;z3@zenkaku.test;－０，２５\n');
    expect((await svc(['prospects', 'create', '--input', semi])).code).toBe(0);
    expect(attrs('z3@zenkaku.test')['score']).toBe(-0.25);
    // An integer field (an account's numberOfEmployees) and flags.
    const acct = await svc(['accounts', 'create', '--attr', 'name=全角 Inc', '--attr', 'numberOfEmployees=１２０', '-o', 'json']);
    expect(acct.code, acct.stderr).toBe(0);
    expect(JSON.parse(acct.stdout)).toMatchObject({ name: '全角 Inc', numberOfEmployees: 120 });
    const flag = await svc([
      'prospects',
      'create',
      '--attr',
      'firstName=Ｆｌａｇ',
      '--attr',
      'Lead Score=９',
      '--attr',
      'score=３',
      '-o',
      'json',
    ]);
    expect(flag.code, flag.stderr).toBe(0);
    expect(JSON.parse(flag.stdout)).toMatchObject({ firstName: 'Ｆｌａｇ', custom2: '9', score: 3 });
    // The decimal-comma rule as for ASCII (a comma file's `1,234` is refused with both readings), quoting what was typed.
    const grouped = await svc(['prospects', 'create', '--attr', 'firstName=Gr', '--attr', 'Lead Score=１，２３４']);
    expect(grouped.code).toBe(2);
    expect(grouped.stderr).toContain('"１，２３４" has a comma: write 1234 if it groups thousands');
    // Not a number still, full-width or not: refused quoting what was typed.
    const bad = await svc(['prospects', 'create', '--attr', 'firstName=No', '--attr', 'Lead Score=８５ｐｔ']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected a number, got "８５ｐｔ"');
  });
});

describe('one e-mail rule for every command and the sandbox', () => {
  it('upsert refuses not-an-email as enroll does; create --attr too; the sandbox answers 422', async () => {
    const file = inputFile('bad-email.csv', 'emails,firstName\nnot-an-email,Nope\ngood@rule.test,Yes\n');
    const r = await svc(['prospects', 'upsert', '--input', file, '--match', 'email', '--report', `${file}.r`]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/row 1: emails: "not-an-email" is not an e-mail address/);
    expect(holders('not-an-email')).toEqual([]);
    expect(holders('good@rule.test')).toHaveLength(1);

    const seq = await svc(['sequences', 'create', '--attr', 'name=Rule seq', '-o', 'json']);
    expect(seq.code, seq.stderr).toBe(0);
    const seqId = String((JSON.parse(seq.stdout) as { id: number }).id);
    const en = await svc(['enroll', '--sequence', seqId, '--mailbox', '1', '--input', file, '--by', 'email', '--yes']);
    expect(en.stderr).toMatch(/row 1: email: "not-an-email" is not an e-mail address/);

    const one = await svc(['prospects', 'create', '--attr', 'firstName=X', '--attr', 'emails=not-an-email']);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/emails: "not-an-email" is not an e-mail address/);

    // The sandbox, like the API, refuses it too.
    const res = await fetch(`${sb.baseUrl}/prospects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.token}`, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'prospect', attributes: { emails: ['not-an-email'] } } }),
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toMatch(/not an e-mail address/);
  });
});

describe('what Excel writes in other places (a trial)', () => {
  it('a German ;-file: 1.234,5 is 1234.5, two thousands marks are thousands, one alone is refused with both readings', async () => {
    const file = inputFile(
      'de.csv',
      'Vorname;E-Mail;Score\r\nJürgen;de1@marks.test;1.234,5\r\nÄnne;de2@marks.test;1.234.567\r\nOtto;de3@marks.test;2.500\r\n',
    );
    const r = await svc(['prospects', 'create', '--input', file, '--map', 'Vorname=firstName', '--report', `${file}.r`]);
    expect(r.code).toBe(5);
    const score = (email: string) => holders(email).map((id) => sb.store.get('prospect', id)!.attributes['score']);
    expect([score('de1@marks.test'), score('de2@marks.test'), score('de3@marks.test')]).toEqual([[1234.5], [1234567], []]);
    expect(r.stderr).toMatch(
      /row 3: score: "2\.500" is 2500 with \. as the thousands separator \(as this ;-separated file writes numbers\) or 2\.500 with it as the decimal point: write 2500, or 2,500 for the decimal/,
    );
  });

  it('a UTF-8 file with a byte order mark and a stray Windows-1252 byte stops as one without the mark does', async () => {
    const file = inputFile('bom-stray.csv', '');
    fs.writeFileSync(
      file,
      Buffer.concat([
        Buffer.from('\uFEFFfirstName,emails\nZoë,bom1@stray.test\n'),
        Buffer.from([0x5a, 0x6f, 0xeb]),
        Buffer.from(',bom2@stray.test\n'),
      ]),
    );
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --input .+bom-stray\.csv: line 3 holds a byte that is not UTF-8 \(0xEB,/m);
    expect(sb.requests.slice(mark).filter((q) => q.method === 'POST')).toEqual([]);
  });

  it("Excel for Mac's plain CSV (Mac Roman) is refused, naming the fix, instead of read as Windows-1252", async () => {
    // Hélène Lefèvre, Åsa in Mac Roman (é 0x8E, è 0x8F, Å 0x81), CR line ends.
    const file = inputFile('mac.csv', '');
    fs.writeFileSync(
      file,
      Buffer.from([
        ...Buffer.from('firstName,lastName,emails\rH'),
        0x8e,
        ...Buffer.from('l'),
        0x8f,
        ...Buffer.from('ne,Lef'),
        0x8f,
        ...Buffer.from('vre,mac@roman.test\r'),
      ]),
    );
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --input .+mac\.csv: line 2 holds a byte that is neither UTF-8 nor Windows-1252 \(0x8F, Mac Roman's è, as Excel/m,
    );
    expect(r.stderr).toMatch(/^hint: save the file as "CSV UTF-8"/m);
    expect(holders('mac@roman.test')).toEqual([]);
  });

  it('rows Excel wrote without their trailing empty cells (after row 16) are read with those cells empty', async () => {
    const rows = ['firstName,emails,title,Lead Score'];
    for (let i = 1; i <= 18; i++) rows.push(i <= 16 ? `P${i},trail${i}@kb.test,CEO,${i === 1 ? '50' : ''}` : `P${i},trail${i}@kb.test`);
    const file = inputFile('kb77295.csv', `${rows.join('\r\n')}\r\n`);
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(holders('trail18@kb.test').map((id) => sb.store.get('prospect', id)!.attributes['firstName'])).toEqual(['P18']);
    // Said, with the rows: a line break outside quotes makes short rows too (a review).
    expect(r.stderr).toContain(
      'warning: 2 rows shorter than the header (row 17, 18): their last cells read as empty, as Excel leaves them out; a line break outside quotes would split a row so: check with --dry-run\n',
    );
  });
});

describe('--map given several columns at once (a trial)', () => {
  it('is refused before anything is sent, with the --map per column to give instead (exit 2)', async () => {
    // `prospect has no field "firstName,Nom=lastName"` did not say --map is given once per column.
    const file = inputFile('fr.csv', 'Prénom,Nom,"Last, First",E-Mail\nA,B,C,fr@map.test\n');
    const mark = sb.requests.length;
    const r = await svc(['prospects', 'create', '--input', file, '--map', 'Prénom=firstName,Nom=lastName']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: --map "Prénom=firstName,Nom=lastName": one --map maps one column, not a comma-separated list\n' +
        'hint: give --map once per column: --map "Prénom=firstName" --map "Nom=lastName"\n',
    );
    // A header's own comma stays in its pair; a field's spaces are the shell's.
    const commas = await svc(['prospects', 'create', '--input', file, '--map', 'Last, First=lastName, E-Mail=emails']);
    expect(commas.code).toBe(2);
    expect(commas.stderr).toContain('hint: give --map once per column: --map "Last, First=lastName" --map "E-Mail=emails"\n');
    expect(sb.requests.slice(mark).filter((q) => q.method !== 'GET')).toEqual([]);
    expect(holders('fr@map.test')).toEqual([]);
  });
});

describe('lines tools write for Excel, and files joined (a trial)', () => {
  it('a first line sep=; names the delimiter and is not a header', async () => {
    const file = inputFile('sep.csv', 'sep=;\r\nfirstName;emails;title\r\nSep;sep1@excel.test;CEO\r\n');
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(holders('sep1@excel.test').map((id) => sb.store.get('prospect', id)!.attributes['title'])).toEqual(['CEO']);
  });

  it('a repeated header line (two exports joined with cat, byte order mark and all) is refused, not created', async () => {
    const one = '\uFEFFFirst Name,Last Name,Job Title\r\nCat,One,CEO\r\n';
    const file = inputFile('cat.csv', one + one);
    const r = await svc(['prospects', 'create', '--input', file, '--report', `${file}.r`]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/row 2: .*repeats the header row \(two files joined\? remove this line\)/);
    expect([...sb.store.table('prospect').values()].filter((p) => p.attributes['lastName'] === 'Last Name')).toEqual([]);
    expect([...sb.store.table('prospect').values()].filter((p) => p.attributes['firstName'] === 'Cat')).toHaveLength(2);
  });

  it('a header naming a column twice says how to get past it', async () => {
    const file = inputFile('dup.csv', 'firstName,emails,Notes,Notes\nDup,dup@head.test,a,b\n');
    const r = await svc(['prospects', 'create', '--input', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/column "Notes" appears twice in the header row; nothing was sent\nhint: rename one of them/);
  });

  it('a delete file without ids is refused whole, pointing at the ids', async () => {
    const file = inputFile('del.csv', '\uFEFFE-mail\r\nsoren@del.test\r\nanna@del.test\r\n');
    const r = await svc(['prospects', 'delete', '--input', file, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --input .+del\.csv: no row carries a record id, which delete rows need; nothing was sent\nhint: to delete by another column/m,
    );
    expect(fs.readdirSync(path.dirname(file))).toEqual(['del.csv']);
  });
});
