/**
 * `events tail` on an 80-column terminal: each event one line no wider than it (a trial: lines of
 * 82 columns wrapped and split the event's `#id`), the time, the name, the record and the `#id`
 * kept, the relative age and the user given up first, then the prospect. Off a terminal the
 * lines stay whole. In process, against the sandbox over HTTP, with ids of six digits (the next
 * ids raised, as in an org that has made hundreds of thousands of records) and the longest event
 * names (`opportunityProspectRole_destroyed`); wide characters in test/events/units.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textWidth } from '../../src/output/terminal-text.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { start, type Client } from '../helpers/sandbox.js';

let c: Client;
let env: Record<string, string>;
/** The ids of the records the events are about. */
const IDS = { event: 123456, prospect: 234567, opportunity: 345678, opportunityProspectRole: 456789, mailing: 567890, user: 678901 };
/** Every event of the tail, as `-o ndjson` gives them: [id, name]. */
let all: [string, string][];

const rel = (type: string, id: unknown) => ({ data: { type, id: Number(id) } });

beforeAll(async () => {
  c = await start({ seed: 5 });
  env = { SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: c.sb.baseUrl, SVC_AUTH_URL: c.sb.authUrl, SVC_TOKEN: c.sb.token };
  c.sb.store.raiseNextIds(IDS);
  const user = await c.post('/users', {
    data: { type: 'user', attributes: { firstName: 'Wide', lastName: 'Ids', email: 'wide@example.com' } },
  });
  expect(user.status, user.text).toBe(201);
  // The events name their user: the one of the token that writes.
  const token = c.sb.issueToken({ userId: Number(user.body.data.id) });
  const post = async (path: string, body: unknown) => {
    const r = await c.post(path, body, token);
    expect(r.status, r.text).toBe(201);
    return r.body.data.id as number;
  };
  const prospect = await post('/prospects', { data: { type: 'prospect', attributes: { firstName: 'Ada', lastName: 'Lovelace' } } });
  const opportunity = await post('/opportunities', { data: { type: 'opportunity', attributes: { name: 'Wide deal' } } });
  const mailbox = (await c.get('/mailboxes?page[limit]=1')).body.data[0].id;
  const mailing = await post('/mailings', {
    data: {
      type: 'mailing',
      attributes: { subject: 'Hello', bodyHtml: 'Hello' },
      relationships: { prospect: rel('prospect', prospect), mailbox: rel('mailbox', mailbox) },
    },
  });
  const delivered = await c.req('POST', `${c.sb.authUrl}/_sandbox/mailings/${mailing}/deliver`);
  expect(delivered.status, delivered.text).toBe(200);
  const role = await post('/opportunityProspectRoles', {
    data: {
      type: 'opportunityProspectRole',
      attributes: { role: 'Champion' },
      relationships: { prospect: rel('prospect', prospect), opportunity: rel('opportunity', opportunity) },
    },
  });
  expect((await c.del(`/opportunityProspectRoles/${role}`, token)).status).toBe(204);
  const ndjson = await runInProcess(['events', 'tail', '--last', '20', '-o', 'ndjson'], env);
  all = ndjson.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: number; name: string })
    .map((e) => [String(e.id), e.name]);
});
afterAll(async () => {
  await c.sb.close();
});

/** The tail with stdout a terminal `columns` wide (stderr not: the cursor line is not looked at). */
async function tail(columns: number, ...args: string[]): Promise<string[]> {
  const r = await runInProcess(['events', 'tail', '--last', '20', ...args], env, { tty: true, columns });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.replace(/\n$/, '').split('\n');
}

describe('events tail on a terminal', () => {
  it('the events are there with six-digit ids and the longest names, and too wide for 80 columns whole', async () => {
    expect(all.map(([, name]) => name)).toEqual(
      expect.arrayContaining(['mailing_delivered', 'opportunityProspectRole_created', 'opportunityProspectRole_destroyed']),
    );
    expect(all.every(([id]) => Number(id) >= IDS.event)).toBe(true);
    const wide = await tail(200);
    expect(Math.max(...wide.map(textWidth))).toBeGreaterThan(100);
    // Wide enough, nothing is given up: the relative age, the prospect and the user.
    expect(wide.find((l) => l.includes('mailing_delivered'))).toMatch(
      new RegExp(
        // An event under a second old is "now" (a full run made it one).
        `^\\d\\d:\\d\\d:\\d\\d  (?:\\S+ ago|now) +mailing_delivered {7}mailing ${IDS.mailing}  prospect ${IDS.prospect}  user ${IDS.user}  #\\d{6}$`,
      ),
    );
  });

  it('at 80 columns each event is one line that fits, with its time, name, record and #id; the names in one column', async () => {
    const lines = await tail(80);
    expect(lines).toHaveLength(all.length);
    for (const [i, line] of lines.entries()) {
      const [id, name] = all[i]!;
      expect(textWidth(line), line).toBeLessThanOrEqual(80);
      expect(line, line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  ${name} .* #${id}$`));
      expect(line.indexOf(name), `${line}: the name's column`).toBe(10);
    }
    // The relative age went first (the time says it); then what still did not fit, the user.
    const delivered = all.find(([, name]) => name === 'mailing_delivered')![0];
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^\\d\\d:\\d\\d:\\d\\d  mailing_delivered {7}mailing ${IDS.mailing}  prospect ${IDS.prospect}  #${delivered}$`),
      ),
    );
    // The longest name whole; the record's type (the name says it) cut, its id kept.
    expect(lines.find((l) => l.includes('opportunityProspectRole_destroyed'))).toMatch(
      new RegExp(`^\\d\\d:\\d\\d:\\d\\d  opportunityProspectRole_destroyed  opportunityProspec… ${IDS.opportunityProspectRole}  #\\d{6}$`),
    );
  });

  it("the trial's tail of mailing events fits 80 columns with its #ids whole", async () => {
    const lines = await tail(80, '--name', 'mailing_*');
    const want = all.filter(([, name]) => name.startsWith('mailing_'));
    expect(lines.map((l) => l.split('  ').at(-1))).toEqual(want.map(([id]) => `#${id}`));
    for (const line of lines) expect(textWidth(line), line).toBeLessThanOrEqual(80);
  });

  it('at 40 columns too: the name cut last, the time and the ids kept', async () => {
    const lines = await tail(40);
    for (const [i, line] of lines.entries()) {
      expect(textWidth(line), line).toBeLessThanOrEqual(40);
      expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  .* \\d{6}  #${all[i]![0]}$`));
    }
  });

  it('the hint to continue puts its command whole on a line of its own at 80 columns (a trial: the cursor broken off)', async () => {
    const r = await runInProcess(['events', 'tail', '--last', '3'], env, { tty: true, stderrTty: true, columns: 80 });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.at(-2)).toMatch(/^3 events, times in \S+.*; continue with:$/);
    expect(lines.at(-1)).toMatch(/^ {2}svc events tail --since-cursor c2\.[\w-]+$/);
    expect(textWidth(lines.at(-1)!)).toBeGreaterThan(80);
  });

  it('off a terminal every line is whole, as before', async () => {
    const r = await runInProcess(['events', 'tail', '--last', '20', '--name', 'opportunityProspectRole_*', '-o', 'table'], env, {
      columns: 80,
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines)
      expect(line).toMatch(
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d  opportunityProspectRole_(created|destroyed)  opportunityProspectRole ${IDS.opportunityProspectRole}  prospect ${IDS.prospect}  user ${IDS.user}  #\\d{6}$`,
        ),
      );
  });
});
