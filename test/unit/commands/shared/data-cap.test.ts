/**
 * `--data` is read up to the API's limit on a request body (10 MiB) and no further: a device that
 * never ends (`@/dev/urandom`), a large file or stdin is a usage error naming the fix, quickly,
 * with nothing sent. In-process against a recording server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/run-svc.js';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

const CAP =
  /^error: --data .+: more than 10 MiB, the most the API takes in one request body\nhint: send one record per request, or several with --input FILE \(bulk\)\n$/;

it('--data @/dev/urandom stops at the cap: exit 2, nothing sent', async () => {
  const started = Date.now();
  const r = await server.run(['prospects', 'create', '--data', '@/dev/urandom'], undefined, { timeoutMs: 20_000 });
  expect(r.hung).toBeUndefined();
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(CAP);
  expect(r.sent).toEqual([]);
  expect(Date.now() - started).toBeLessThan(10_000);
});

it('a file or stdin past 10 MiB is refused; one under it is read', async () => {
  const file = path.join(tempDir(), 'big.json');
  fs.writeFileSync(file, `{"firstName": "${'a'.repeat(10 * 1024 * 1024)}"}`);
  const big = await server.run(['api', 'POST', 'prospects', '--data', `@${file}`]);
  expect(big.code, big.stderr).toBe(2);
  expect(big.stderr).toMatch(CAP);
  const stdin = await server.run(['api', 'POST', 'prospects', '--data', '-'], undefined, {
    input: `{"firstName": "${'a'.repeat(10 * 1024 * 1024)}"}`,
  });
  expect(stdin.code, stdin.stderr).toBe(2);
  expect(stdin.stderr).toMatch(CAP);
  expect(server.received).toEqual([]);
  // Under the cap the body is read and sent (the recording server answers 400).
  fs.writeFileSync(file, `{"data": {"type": "prospect", "attributes": {"firstName": "${'a'.repeat(9 * 1024 * 1024)}"}}}`);
  const under = await server.run(['api', 'POST', 'prospects', '--data', `@${file}`]);
  expect(under.stderr).not.toMatch(/more than 10 MiB/);
  expect(under.sent).toHaveLength(1);
});
