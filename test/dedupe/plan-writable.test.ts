/**
 * `svc dedupe apply PLAN` refuses a plan others may write (group or world): whoever can edit it
 * chooses whom apply deletes (a survivor swapped for its duplicate, a stranger added to a
 * cluster). svc writes plans 0600; one that others may write was carried out as is. In process,
 * nothing sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../helpers/run-svc.js';
import { startUnsent, type Unsent } from '../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

it('a plan others may write is refused with exit 2 before a request', async () => {
  const plan = path.join(tempDir('svc-plan-mode-'), 'plan.json');
  const clusters = [{ cluster: 1, survivor: { id: 1 }, duplicates: [{ id: 2 }], fill: {} }];
  fs.writeFileSync(plan, JSON.stringify({ plan: 'svc dedupe', version: 1, type: 'prospect', clusters }));
  for (const mode of [0o666, 0o620]) {
    fs.chmodSync(plan, mode);
    const r = await server.run(['dedupe', 'apply', plan, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`error: ${plan}: others may write it (mode ${mode.toString(8)})`);
    expect(r.stderr).toContain(`hint: check it has not been changed, then chmod 600 ${plan}`);
    expect(r.sent).toHaveLength(0);
  }
});
