/**
 * Relative days on a custom date field (one the org schema types as a date): `today`, `7d..`
 * were sent as written (`filter[custom4]=today`) and matched nothing, while the registry's date
 * fields had them turned into days (a trial, in Australia/Sydney). In process, against the
 * sandbox over HTTP, whose org labels prospect custom4 "Last Event Attended", a date.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiDateTime } from '../../src/api-time.js';
import { defaultOrg } from '../../src/sandbox/data/org.js';
import { zoneNamed, addDays } from '../../src/time-zone.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: Record<string, string>;
/** Today in Sydney, where the trial ran: ahead of UTC, so a UTC day would be the wrong one. */
const today = zoneNamed('Australia/Sydney').date(Date.now());

beforeAll(async () => {
  const made = await sandboxWithEnv();
  sb = made.sb;
  env = { ...made.env(), TZ: 'Australia/Sydney' };
  expect((await svcInProcess(['schema', 'pull'], { env })).code).toBe(0);
  const r = await svcInProcess(['prospects', 'update', '7', '--attr', `Last Event Attended=${today}`], { env });
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await sb?.close();
});

/** The ids a filter lists, and the filter[custom4] (or `field`) the sandbox received for it. */
async function listed(filter: string, on = sb, field = 'custom4', e = env): Promise<{ ids: number[]; sent: string | undefined }> {
  const mark = on.requests.length;
  const r = await svcInProcess(['prospects', 'list', '--filter', filter, '--all', '-o', 'json', '--query', '[].id'], { env: e });
  expect(r.code, r.stderr).toBe(0);
  const sent = received(on, mark, 'prospects')
    .map((q) => new URLSearchParams(q.query.raw).get(`filter[${field}]`))
    .find((v) => v !== null);
  return { ids: JSON.parse(r.stdout) as number[], sent: sent ?? undefined };
}

it('turns today, 7d.. and 2w..yesterday on a custom date field into local days, by label or by name', async () => {
  for (const name of ['Last Event Attended', 'custom4']) {
    const t = await listed(`${name}=today`);
    expect(t.sent).toBe(today);
    expect(t.ids).toContain(7);
    const week = await listed(`${name}=7d..`);
    expect(week.sent).toBe(`${addDays(today, -7)}..inf`);
    expect(week.ids).toContain(7);
    const before = await listed(`${name}=2w..yesterday`);
    expect(before.sent).toBe(`${addDays(today, -14)}..${addDays(today, -1)}`);
    expect(before.ids).not.toContain(7);
  }
});

it('refuses an impossible date on it before anything is sent', async () => {
  const r = await svcInProcess(['prospects', 'list', '--filter', 'Last Event Attended=2026-02-30'], { env });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/"2026-02-30" is not a valid date on custom4/);
});

it('turns them into the UTC instants of local days on a custom date-time field', async () => {
  const org = defaultOrg();
  org.customFields['prospect']!['custom5'] = { type: 'date_time', required: false, label: 'Last Seen', definition: null };
  const made = await sandboxWithEnv({ org });
  try {
    const e = { ...made.env(), TZ: 'Australia/Sydney' };
    expect((await svcInProcess(['schema', 'pull'], { env: e })).code).toBe(0);
    const sydney = zoneNamed('Australia/Sydney');
    const start = sydney.startOf(today);
    // An hour into today in Sydney: still yesterday's date in UTC, as the API writes it.
    const seen = apiDateTime(start + 3_600_000).slice(0, 19);
    const r = await svcInProcess(['prospects', 'update', '7', '--attr', `Last Seen=${seen}`], { env: e });
    expect(r.code, r.stderr).toBe(0);
    const t = await listed('Last Seen=today', made.sb, 'custom5', e);
    expect(t.sent).toBe(`${apiDateTime(start)}..${apiDateTime(sydney.startOf(addDays(today, 1)) - 1000)}`);
    expect(t.ids).toContain(7);
    const y = await listed('custom5=yesterday', made.sb, 'custom5', e);
    expect(y.sent).toBe(`${apiDateTime(sydney.startOf(addDays(today, -1)))}..${apiDateTime(start - 1000)}`);
    expect(y.ids).not.toContain(7);
  } finally {
    await made.sb.close();
  }
});
