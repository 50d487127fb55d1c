/**
 * Tokens with punctuation (`!`, `$`, `:`, `=`…) are hidden whole wherever svc prints an error: a
 * hostile server echoes the request's bearer token, and one it made up, back in its error
 * documents; neither shows, in part or whole, on stderr or in a `--report` file. The single
 * reads run in this process (`svcInProcess`); the bulk runs are the built bin/svc.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputFile } from '../helpers/bulk.js';
import { expectCleanFailure } from '../helpers/reliability.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { runSvc, tempDir } from '../helpers/run-svc.js';
import { startTinyServer } from '../helpers/tiny-server.js';

const TOKEN = 'tok!with$odd:chars-0123';
const STRANGER = 'other!tok$en:xyz=/+.~';
/** Pieces of either token that a partial redaction leaves behind. */
const TAILS = ['!with', 'with$odd', 'odd:chars', 'chars-0123', 'tok$en', 'en:xyz'];

let echo: Awaited<ReturnType<typeof startTinyServer>>;
beforeAll(async () => {
  echo = await startTinyServer((q) => ({
    status: q.method === 'GET' ? 400 : 422,
    body: JSON.stringify({
      errors: [{ title: 'Rejected', detail: `you sent authorization=${q.headers.authorization}; we expected Bearer ${STRANGER}` }],
    }),
  }));
});
afterAll(() => echo.close());

const env = () => ({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: `${echo.url}/api/v2`, SVC_TOKEN: TOKEN });

describe('odd tokens are redacted whole', () => {
  it('an error that echoes them, with and without --verbose', async () => {
    for (const extra of [[], ['-v'], ['-o', 'json']]) {
      const r = await svcInProcess(['prospects', 'list', '--limit', '1', ...extra], { env: env() });
      expect(r.code, r.stderr).toBe(1);
      if (!extra.includes('-v')) expectCleanFailure(r, 1, /^error: .*authorization=Bearer \*\*\*; we expected Bearer \*\*\*/);
      for (const t of TAILS) expect([t, r.stderr]).not.toEqual([t, expect.stringContaining(t)]);
    }
    // The server did receive the token as given (the search looks at the right thing).
    expect(echo.received.some((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('a bulk run: the failed rows on stderr and in the --report file', async () => {
    const input = inputFile('odd.ndjson', '{"firstName":"A","emails":["a@odd.test"]}\n{"firstName":"B","emails":["b@odd.test"]}\n');
    const report = path.join(tempDir(), 'report.ndjson');
    const r = await runSvc(['prospects', 'create', '--input', input, '--report', report], { env: env() });
    expect(r.code, r.stderr).toBe(5);
    const lines = fs
      .readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string; error: string });
    expect(lines.map((l) => l.status)).toEqual(['failed', 'failed']);
    expect(lines[0]!.error).toMatch(/authorization=Bearer \*\*\*; we expected Bearer \*\*\*/);
    const written = fs.readFileSync(report, 'utf8') + r.stderr + r.stdout;
    for (const t of TAILS) expect([t, written]).not.toEqual([t, expect.stringContaining(t)]);

    // A journal that holds the token (an older svc, a hand edit): the rerun's report quotes the
    // journal in each skipped row's reason, redacted like its errors.
    const journal = `${input}.journal.ndjson`;
    const text = fs.readFileSync(journal, 'utf8');
    expect(text).toContain('Bearer ***');
    fs.writeFileSync(journal, text.replaceAll('Bearer ***', `Bearer ${TOKEN}`));
    const again = await runSvc(['prospects', 'create', '--input', input, '--report', report, '--skip-failed'], { env: env() });
    const skipped = fs
      .readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string; reason?: string });
    expect(
      skipped.map((l) => l.status),
      again.stderr,
    ).toEqual(['skipped', 'skipped']);
    expect(skipped[0]!.reason).toMatch(/^failed in an earlier run \(journal: .*Bearer \*\*\*/);
    const rerun = fs.readFileSync(report, 'utf8') + again.stderr + again.stdout;
    for (const t of TAILS) expect([t, rerun]).not.toEqual([t, expect.stringContaining(t)]);
  });
});
