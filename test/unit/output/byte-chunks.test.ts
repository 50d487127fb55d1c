/**
 * ByteChunks (ndjson's byte path): what is written comes out in order and whole — a piece never
 * ends inside a character or a copied range — however large each part is, with waits for drain.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ByteChunks } from '../../../src/output/byte-chunks.js';

function sink() {
  const pieces: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, cb) {
      pieces.push(chunk);
      setImmediate(cb);
    },
  });
  return { out, pieces };
}

describe('ByteChunks', () => {
  it('writes text and byte ranges in order, in pieces that each decode on their own', async () => {
    const { out, pieces } = sink();
    const chunks = new ByteChunks();
    const unit = Buffer.from('{"name":"山田 太郎","x":1}', 'utf8');
    const page = Buffer.concat(Array.from({ length: 5000 }, () => unit));
    const expected: string[] = [];
    for (let i = 0; i < 600; i++) {
      const t = i % 7 === 0 ? '👩‍💻'.repeat(i * 10) : `line ${i} é`;
      chunks.text(t);
      expected.push(t);
      // Whole units of the page: ranges of whole characters.
      const start = unit.length * (i % 50);
      const end = start + unit.length * (i % 40 === 0 ? 3000 : 1 + (i % 3));
      chunks.bytes(page, start, end);
      expected.push(page.subarray(start, end).toString('utf8'));
      if (chunks.full) await chunks.writeTo(out);
    }
    await chunks.writeTo(out, true);
    expect(pieces.length).toBeGreaterThan(10);
    expect(Buffer.concat(pieces).toString('utf8')).toBe(expected.join(''));
    // Text parts are never split between pieces (copied ranges may hold any bytes a page holds).
    const texts = pieces.map((p) => p.toString('utf8'));
    expect(texts.join('')).toBe(expected.join(''));
  });

  it('writes nothing for nothing', async () => {
    const { out, pieces } = sink();
    await new ByteChunks().writeTo(out, true);
    expect(pieces).toEqual([]);
  });
});
