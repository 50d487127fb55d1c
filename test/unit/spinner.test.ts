/** The spinner: only on a terminal of known width, erases only its own line, gone before data. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { IO } from '../../src/output/io.js';
import { startSpinner } from '../../src/output/spinner.js';

function fakeIO(stderrColumns: number | undefined) {
  let err = '';
  let out = '';
  const stderr = new PassThrough();
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const stdout = new PassThrough();
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const io: IO = {
    stdout,
    stderr,
    stdin: new PassThrough(),
    stdoutIsTTY: true,
    stderrIsTTY: true,
    stdinIsTTY: false,
    color: true,
    columns: 80,
    stderrColumns,
  };
  return { io, err: () => err, out: () => out };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('startSpinner', () => {
  it('draws one line narrower than the terminal; the first data write erases it for good', async () => {
    const t = fakeIO(12);
    const s = startSpinner(t.io, 'Fetching prospects…');
    await tick(200);
    expect(t.err()).toMatch(/^\r[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Fetching \x1b\[K/); // 11 characters: never wraps
    const io = s.dataIO(t.io);
    io.stdout.write('[\n');
    const afterData = t.err();
    expect(afterData.endsWith('\r\x1b[K')).toBe(true);
    await tick(200);
    expect(t.err()).toBe(afterData);
    expect(t.out()).toBe('[\n');
    s.stop();
    expect(t.err()).toBe(afterData);
  });

  it('clear() erases the line before a message; stop() erases what is drawn, once', async () => {
    const t = fakeIO(80);
    const s = startSpinner(t.io, 'x');
    await tick(100);
    s.clear();
    expect(t.err().endsWith('\r\x1b[K')).toBe(true);
    s.stop();
    const n = t.err().length;
    s.stop();
    expect(t.err().length).toBe(n);
  });

  it('nothing at all on a terminal of zero or unknown width, or under CI', async () => {
    for (const [cols, env] of [
      [0, {}],
      [undefined, {}],
      [80, { CI: 'true' }],
    ] as const) {
      const t = fakeIO(cols);
      const s = startSpinner(t.io, 'x', env);
      await tick(100);
      s.stop();
      expect(t.err()).toBe('');
      expect(s.dataIO(t.io)).toBe(t.io);
    }
  });
});
