/**
 * Names instead of ids. `svc enroll`: a sequence by name, a mailbox by address, unknown and
 * ambiguous names refused with candidates (nothing enrolled), the summary printed before the
 * first write with its delivery forecast, and on a terminal the searchable picker and the
 * confirmation. `--rel name=name:<value>` / `email:<value>` on single writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { BIN, tempDir } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { call, freeProspects, liveSequence, newSequence, stateProspects } from '../helpers/bulk.js';
import { sh, TmuxSession } from '../helpers/tmux.js';
import { without } from '../helpers/programs.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 410 }));
});
afterAll(async () => {
  for (const s of sessions) s.kill();
  await sb.close();
});

// Off a terminal the process plays no part: svc's program in the test process. The picker and
// the confirmation below run the built bin/svc on a terminal (tmux).
const svc = (args: string[], extra: Record<string, string> = {}) => svcInProcess(args, { env: { ...env(), ...extra } });

/** A sequence named `name`: off with no steps as made, or `live` (on, one e-mail step). */
async function named(name: string, live = false): Promise<number> {
  const id = live ? await liveSequence(sb) : await newSequence(sb);
  expect((await call(sb, 'PATCH', `sequences/${id}`, { data: { type: 'sequence', id, attributes: { name } } })).status).toBe(200);
  return id;
}

async function mailboxEmail(id: number): Promise<string> {
  return String((await call(sb, 'GET', `mailboxes/${id}`)).body.data.attributes.email);
}

/** The mailbox that an enrolment created in the store points to. */
function stateMailboxes(sequence: number): number[] {
  const out: number[] = [];
  for (const rec of sb.store.table('sequenceState').values()) {
    const seq = rec.rels['sequence'];
    const mb = rec.rels['mailbox'];
    if (seq && !Array.isArray(seq) && seq.id === sequence && mb && !Array.isArray(mb)) out.push(mb.id);
  }
  return out;
}

describe('names instead of ids', () => {
  it('a sequence by name (case and spaces ignored) and a mailbox by address; the summary names both', async () => {
    const seq = await named(`Outbound Q4 ${Date.now()}`, true);
    const name = (await call(sb, 'GET', `sequences/${seq}`)).body.data.attributes.name as string;
    const email = await mailboxEmail(2);
    const [p1, p2] = freeProspects(sb, 2, 50) as [number, number];
    const mark = sb.requests.length;
    const r = await svc([
      'enroll',
      '--sequence',
      `  ${name.toUpperCase()} `,
      '--mailbox',
      email.toUpperCase(),
      '--prospect',
      `${p1},${p2}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(stateProspects(sb, seq)).toEqual([p1, p2].sort((a, b) => a - b));
    expect(stateMailboxes(seq)).toEqual([2, 2]);
    expect(r.stderr).toContain(`enroll into sequence "${name}" (id ${seq}) from mailbox ${email} (id 2)`);
    expect(r.stderr).toMatch(/rows: 2 · already enrolled: 0 · to enroll: 2/);
    expect(r.stderr).toMatch(
      /delivery: the first e-mails of 2 new enrolment\(s\) can all go out today \(mailbox limits: 500\/day, 5,000\/week\)/,
    );
    // The lookups are reads of the lists with sparse fields, before any write.
    const sent = received(sb, mark);
    const firstPost = sent.findIndex((q) => q.method === 'POST');
    const lookups = sent.slice(0, firstPost).filter((q) => q.path === '/api/v2/sequences' || q.path === '/api/v2/mailboxes');
    expect(lookups.length).toBeGreaterThanOrEqual(2);
    expect(lookups[0]!.query.parsed).toMatchObject({ 'fields[sequence]': 'name' });
    expect(sent.filter((q) => q.method === 'POST')).toHaveLength(2);
  });

  it('an ambiguous sequence name is refused with both ids; nothing is enrolled', async () => {
    const name = `Twin ${Date.now()}`;
    const a = await named(name);
    const b = await named(name.toLowerCase());
    const mark = sb.requests.length;
    const r = await svc(['enroll', '--sequence', name, '--mailbox', '1', '--prospect', '5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`error: --sequence "${name}": 2 sequences have that name: id ${a} .*; id ${b} `));
    expect(r.stderr).toMatch(/give the id instead/);
    expect(received(sb, mark).filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('an unknown name is refused with "did you mean" candidates; an unknown address too', async () => {
    const seq = await named(`Webinar follow-up ${Date.now()}`);
    const mark = sb.requests.length;
    const r = await svc(['enroll', '--sequence', 'webinar', '--mailbox', '1', '--prospect', '5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: --sequence "webinar": no sequence has that name/);
    expect(r.stderr).toMatch(new RegExp(`did you mean: id ${seq} "Webinar follow-up`));
    const m = await svc(['enroll', '--sequence', String(seq), '--mailbox', 'nobody@nowhere.test', '--prospect', '5']);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/error: --mailbox "nobody@nowhere.test": no mailbox has that email/);
    expect(m.stderr).toMatch(/mailboxes: id 1 "/);
    expect(received(sb, mark).filter((q) => q.method !== 'GET')).toEqual([]);
    expect(stateProspects(sb, seq)).toEqual([]);
  });

  it('the forecast follows the mailbox limits: 7 new at 2/day and 5/week take 8 days', async () => {
    expect(
      (
        await call(sb, 'PATCH', 'mailboxes/3', {
          data: { type: 'mailbox', id: 3, attributes: { maxMailingsPerDay: 2, maxMailingsPerWeek: 5 } },
        })
      ).status,
    ).toBe(200);
    const seq = await liveSequence(sb);
    const ids = freeProspects(sb, 8, 200);
    await call(sb, 'POST', 'sequenceStates', {
      data: {
        type: 'sequenceState',
        relationships: {
          prospect: { data: { type: 'prospect', id: ids[0] } },
          sequence: { data: { type: 'sequence', id: seq } },
          mailbox: { data: { type: 'mailbox', id: 3 } },
        },
      },
    });
    const r = await svc(['enroll', '--sequence', String(seq), '--mailbox', '3', '--prospect', ids.join(','), '--prospect', String(ids[1])]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/rows: 9 · already enrolled: 1 · to enroll: 7 · duplicate rows: 1/);
    expect(r.stderr).toMatch(/the first e-mails of 7 new enrolment\(s\) can all go out within 8 days \(mailbox limits: 2\/day, 5\/week\)/);
    // Without a terminal the summary comes before the run and no question is asked.
    expect(r.stderr.indexOf('delivery:')).toBeLessThan(r.stderr.indexOf('enroll: 7 created'));
  });

  it('a sequence that is off or has no steps: the summary says nothing will be sent, not a forecast (a trial)', async () => {
    const [p] = freeProspects(sb, 1, 240) as [number];
    const delivery = async (seq: number) => {
      const r = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--prospect', String(p), '--dry-run']);
      expect(r.code, r.stderr).toBe(0);
      return r.stderr.match(/^ *delivery: .*$/m)?.[0].trim();
    };
    // As `svc sequences create` makes one: off, no steps.
    expect(await delivery(await newSequence(sb))).toBe('delivery: nothing will be sent: the sequence is off and has no steps');
    const off = await liveSequence(sb);
    sb.store.get('sequence', off)!.attributes['enabled'] = false;
    expect(await delivery(off)).toBe('delivery: nothing will be sent: the sequence is off');
    const empty = await newSequence(sb);
    sb.store.get('sequence', empty)!.attributes['enabled'] = true;
    expect(await delivery(empty)).toBe('delivery: nothing will be sent: the sequence has no steps');
    expect(await delivery(await liveSequence(sb))).toMatch(/^delivery: the first e-mails of 1 new enrolment\(s\) can all go out today/);
  });
});

describe('--rel by name or e-mail', () => {
  it('name:<value> and email:<value> become the ids of the one matching record', async () => {
    const acct = await call(sb, 'POST', 'accounts', { data: { type: 'account', attributes: { name: `Rel Target ${Date.now()}` } } });
    const acctId = Number(acct.body.data.id);
    const acctName = acct.body.data.attributes.name as string;
    const user = (await call(sb, 'GET', 'users/2')).body.data.attributes.email as string;
    const mark = sb.requests.length;
    const r = await svc([
      'prospects',
      'create',
      '--attr',
      'firstName=Rel',
      '--rel',
      `account=name:${acctName.toLowerCase()}`,
      '--rel',
      `owner=email:${user}`,
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const post = received(sb, mark).find((q) => q.method === 'POST')!;
    expect(JSON.parse(post.body).data.relationships).toEqual({
      account: { data: { type: 'account', id: acctId } },
      owner: { data: { type: 'user', id: 2 } },
    });
    const lookups = received(sb, mark).filter((q) => q.method === 'GET');
    expect(lookups.map((q) => q.path)).toEqual(['/api/v2/accounts', '/api/v2/accounts', '/api/v2/users']);
    expect(lookups[0]!.query.parsed).toMatchObject({ 'filter[name]': acctName.toLowerCase(), 'fields[account]': 'name' });
    expect(JSON.parse(r.stdout).account).toBe(acctId);
  });

  it('an ambiguous or unknown name, or a type that cannot be searched by name: exit 2, nothing written', async () => {
    const name = `Dup Co ${Date.now()}`;
    const a = await call(sb, 'POST', 'accounts', { data: { type: 'account', attributes: { name } } });
    const b = await call(sb, 'POST', 'accounts', { data: { type: 'account', attributes: { name } } });
    const mark = sb.requests.length;
    const dup = await svc(['prospects', 'create', '--attr', 'firstName=X', '--rel', `account=name:${name}`]);
    expect(dup.code).toBe(2);
    expect(dup.stderr).toMatch(
      new RegExp(
        `--rel account=name: "${name}": 2 accounts have that name: id ${a.body.data.id} "${name}"; id ${b.body.data.id} "${name}"`,
      ),
    );
    const none = await svc(['prospects', 'update', '1', '--rel', 'account=name:No Such Company Anywhere']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no account has that name/);
    const seq = await svc(['sequence-states', 'create', '--rel', 'sequence=name:Inbound', '--rel', 'prospect=1', '--rel', 'mailbox=1']);
    expect(seq.code).toBe(2);
    expect(seq.stderr).toMatch(
      /--rel sequence=name:Inbound: sequences cannot be found by name \(no filterable name attribute\); give an id/,
    );
    expect(received(sb, mark).filter((q) => q.method !== 'GET')).toEqual([]);
  });
});

describe.skipIf(without('tmux', 'the picker tests'))('on a terminal', () => {
  function term(args: string, extra: Record<string, string> = {}): TmuxSession {
    const s = new TmuxSession(`${sh(process.execPath)} ${sh(BIN)} ${args}; echo "[exit $?]"; sleep 30`, {
      width: 140,
      env: { ...env(), SVC_CONFIG_DIR: tempDir(), TERM: 'xterm-256color', CI: '', ...extra },
    });
    sessions.push(s);
    return s;
  }

  it('a missing --sequence or --mailbox opens a searchable list; the summary is confirmed before anything is sent', async () => {
    const stamp = Date.now().toString(36);
    const seq = await named(`Picker target ${stamp}`);
    const [p] = freeProspects(sb, 1, 300) as [number];
    const email = await mailboxEmail(2);
    const s = term(`enroll --prospect ${p}`);
    await s.waitFor(/Which sequence\?/);
    s.send('-l', stamp);
    // The pointer on it: the list is filtered (the name may show in the unfiltered list too, and
    // an Enter before the filter applies picks the first record). Made as `sequences create`
    // makes one, off and without steps: the list marks it, the summary and question say so (a trial).
    await s.waitFor(new RegExp(`❯ Picker target ${stamp} \\(id ${seq}\\) · off`));
    const mark = sb.requests.length;
    s.send('Enter');
    await s.waitFor(/Which mailbox\?/);
    s.send('-l', email.slice(0, 6));
    await s.waitFor(new RegExp(`❯ ${email.replace(/\./g, '\\.')} \\(id 2\\)`));
    s.send('Enter');
    const screen = await s.waitFor(/Enroll 1 prospect\(s\) anyway\? \(y\/N\)/);
    expect(screen).toContain(`from mailbox ${email} (id 2)`);
    expect(screen).toContain(`enroll into sequence "Picker target ${stamp}" (id ${seq})`);
    expect(screen).toMatch(/rows: 1 · already enrolled: 0 · to enroll: 1/);
    expect(screen).toContain('delivery: nothing will be sent: the sequence is off and has no steps');
    expect(screen).not.toContain('can all go out');
    expect(received(sb, mark).filter((q) => q.method === 'POST')).toEqual([]);
    s.send('y');
    s.send('Enter');
    await s.waitFor(/\[exit 0\]/);
    expect(stateProspects(sb, seq)).toEqual([p]);
    expect(stateMailboxes(seq)).toEqual([2]);
  });

  it('answering no sends nothing; --yes asks nothing', async () => {
    const seq = await liveSequence(sb);
    const [p] = freeProspects(sb, 1, 320) as [number];
    const s = term(`enroll --sequence ${seq} --mailbox 1 --prospect ${p}`);
    await s.waitFor(/Enroll 1 prospect\(s\)\? \(Y\/n\)/);
    s.send('n');
    s.send('Enter');
    expect(await s.waitFor(/\[exit 0\]/)).toMatch(/nothing was enrolled/);
    expect(stateProspects(sb, seq)).toEqual([]);
    const y = term(`enroll --sequence ${seq} --mailbox 1 --prospect ${p} --yes`);
    expect(await y.waitFor(/\[exit \d+\]/)).toMatch(/\[exit 0\]/);
    expect(stateProspects(sb, seq)).toEqual([p]);
  });

  it('Ctrl-C in the picker: exit 130, nothing sent', async () => {
    const s = term('enroll --mailbox 1 --prospect 5');
    await s.waitFor(/Which sequence\?/);
    const mark = sb.requests.length;
    s.send('C-c');
    const screen = await s.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/error: interrupted at the prompt: nothing was done/);
    expect(screen).toMatch(/\[exit 130\]/);
    expect(received(sb, mark)).toEqual([]);
  });

  it('in CI a missing --sequence is an error, not a picker', async () => {
    const s = term('enroll --mailbox 1 --prospect 5', { CI: 'true' });
    const screen = await s.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/error: --sequence is required/);
    expect(screen).toMatch(/\[exit 2\]/);
  });
});
