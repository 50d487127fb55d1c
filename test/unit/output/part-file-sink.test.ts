/**
 * The stream an export's writer writes its part file through (PartFile.sink): chunks appended in
 * order, and a failed write (a full disk) surfaced to the export instead of leaving the writer
 * waiting for a drain that never comes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PartFile } from '../../../src/output/export-file.js';
import { writeOut } from '../../../src/output/io.js';

describe('PartFile.sink', () => {
  it('appends what the writer writes, in order, after what the part file keeps', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-part-'));
    const file = path.join(dir, 'x.ndjson.part');
    fs.writeFileSync(file, '{"id":1}\n{"id":2');
    const part = await PartFile.open(file, 9);
    const sink = part.sink();
    for (let i = 2; i < 2000; i++) await writeOut(sink, `{"id":${i}}\n`);
    await writeOut(sink, Buffer.from('{"id":2000}\n'));
    await sink.done();
    await part.finish(path.join(dir, 'x.ndjson'));
    const lines = fs.readFileSync(path.join(dir, 'x.ndjson'), 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    fs.rmSync(dir, { recursive: true });
  });

  it.runIf(fs.existsSync('/dev/full'))('a full disk fails the export instead of hanging it', async () => {
    const part = await PartFile.open('/dev/full', 0);
    const sink = part.sink();
    // More than the stream buffers: a writer that waited for drain would hang here.
    for (let i = 0; i < 100; i++) await writeOut(sink, 'x'.repeat(4096));
    expect(() => sink.check()).toThrow(/ENOSPC/);
    await expect(sink.done()).rejects.toThrow(/ENOSPC/);
    await part.close();
  });
});
