/** Where a stopped export continues: the last whole record of a part file, whatever cut it. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resumePoint } from '../../../src/output/export-file.js';
import { tempDir } from '../../helpers/run-svc.js';

function file(text: string | Buffer): string {
  const p = path.join(tempDir('svc-export-'), 'x.part');
  fs.writeFileSync(p, text);
  return p;
}

describe('resumePoint (CSV)', () => {
  const whole = '\ufeffid,firstName,personalNote1\n1,Zoë,"line one\nline two, with ""quotes"""\n2,Ann,\n';
  it('finds the last whole record past quoted line breaks, with the header and BOM', async () => {
    const p = await resumePoint(file(whole), 'csv');
    expect(p).toEqual({ offset: Buffer.byteLength(whole), lastId: '2', records: 2, header: 'id,firstName,personalNote1', bom: true });
  });
  it('a record cut inside a quoted cell (its line break included) is not whole', async () => {
    const cut = whole + '3,Bo,"first line\nsecond';
    const p = await resumePoint(file(cut), 'csv');
    expect(p.offset).toBe(Buffer.byteLength(whole));
    expect(p.lastId).toBe('2');
  });
  it('a record cut before its line break is not whole; CRLF files read the same', async () => {
    expect((await resumePoint(file(whole + '3,B'), 'csv')).lastId).toBe('2');
    const crlf = 'id,x\r\n7,a\r\n8,b\r\n';
    expect(await resumePoint(file(crlf), 'csv')).toMatchObject({
      lastId: '8',
      records: 2,
      header: 'id,x',
      bom: false,
      offset: crlf.length,
    });
  });
  it('a header alone, or a cut header, continues from the start', async () => {
    const p = await resumePoint(file('id,x\n'), 'csv');
    expect(p).toMatchObject({ offset: 5, records: 0, header: 'id,x' });
    expect(p.lastId).toBeUndefined();
    expect(await resumePoint(file('id,x'), 'csv')).toEqual({ offset: 0, records: 0, bom: false });
  });
  it('reads across chunk boundaries (a large file)', async () => {
    let text = 'id,note\n';
    for (let i = 1; i <= 20_000; i++) text += `${i},"a, b\n""c"""\n`;
    const p = await resumePoint(file(text + '20001,"x'), 'csv');
    expect(p).toMatchObject({ lastId: '20000', records: 20_000, offset: Buffer.byteLength(text) });
  });
});

describe('resumePoint (NDJSON)', () => {
  it('the last whole line; a cut line is dropped', async () => {
    const whole = '{"id":1,"n":"a\\nb"}\n{"id":2}\n';
    expect(await resumePoint(file(whole + '{"id":3,"n"'), 'ndjson')).toEqual({ offset: whole.length, lastId: '2', records: 2, bom: false });
  });
  it('reads across chunk boundaries: lines longer than a chunk, accents cut between chunks, CRLF', async () => {
    let text = '';
    for (let i = 1; i <= 40; i++) text += `${JSON.stringify({ id: i, note: 'é'.repeat(i * 997) })}${i % 2 ? '\r\n' : '\n'}`;
    const p = await resumePoint(file(`${text}{"id":41,"note":"éé`), 'ndjson');
    expect(p).toEqual({ offset: Buffer.byteLength(text), lastId: '40', records: 40, bom: false });
  });
  it('counts whole lines that are no records (a CSV part read as NDJSON)', async () => {
    expect((await resumePoint(file('id,x\n1,a\n'), 'ndjson')).unreadable).toBe(2);
  });
});
