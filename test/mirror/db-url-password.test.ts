/**
 * A --db password that holds an `@` (PostgreSQL takes it unencoded: the user part ends at the
 * last `@`) is hidden whole. The redaction stopped at its first `@`: `postgres://u:***@Leak99@host`
 * in error lines, `-o json` errors, sync's summary and the dedupe plan's `mirror`. In process, a
 * server that is not there (port 1): the error line names the URL.
 */
import { describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';

describe('--db password with an @', () => {
  it('is hidden whole in the error line, -o json and -v', async () => {
    const env = { SVC_CONFIG_DIR: tempDir('svc-dburl-') };
    for (const db of ['postgres://sync:Tail@Leak99@127.0.0.1:1/sales', 'postgres://a@b.example:Tail@Leak99@127.0.0.1:1/sales']) {
      for (const extra of [[], ['-o', 'json'], ['-v']]) {
        const r = await svcInProcess([...extra, 'sql', '--db', db, 'select 1'], { env });
        expect(r.code, r.stderr).not.toBe(0);
        expect(r.stderr).toContain('127.0.0.1:1/sales');
        expect(r.stdout + r.stderr).not.toContain('Leak99');
        expect(r.stdout + r.stderr).not.toContain('Tail');
      }
    }
  });
});
