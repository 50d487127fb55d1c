/**
 * Helpers of the bulk-run and enroll tests: set-up calls straight to the sandbox, input files,
 * and what the sandbox's store holds afterwards.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestSandbox } from './sandbox.js';
import { tempDir } from './run-svc.js';

/** One JSON:API call to the sandbox with its admin token (test set-up, not the code under test). */
export async function call(sb: TestSandbox, method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${sb.baseUrl}/${p}`, {
    method,
    headers: { authorization: `Bearer ${sb.token}`, 'content-type': 'application/vnd.api+json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** Creates a ruleset and a sequence using it; returns the sequence id. */
export async function newSequence(sb: TestSandbox, ruleset: Record<string, unknown> = {}): Promise<number> {
  const rs = await call(sb, 'POST', 'rulesets', { data: { type: 'ruleset', attributes: { name: `rs ${Math.random()}`, ...ruleset } } });
  if (rs.status !== 201) throw new Error(`ruleset: ${JSON.stringify(rs.body)}`);
  const seq = await call(sb, 'POST', 'sequences', {
    data: {
      type: 'sequence',
      attributes: { name: `seq ${Math.random()}`, sequenceType: 'interval' },
      relationships: { ruleset: { data: { type: 'ruleset', id: rs.body.data.id } } },
    },
  });
  if (seq.status !== 201) throw new Error(`sequence: ${JSON.stringify(seq.body)}`);
  return Number(seq.body.data.id);
}

/**
 * A sequence that sends (enroll forecasts its e-mails): on, with one e-mail step. A new sequence
 * is off with no steps, and the API has no write that turns one on: the store is set directly.
 */
export async function liveSequence(sb: TestSandbox, ruleset: Record<string, unknown> = {}): Promise<number> {
  const id = await newSequence(sb, ruleset);
  const step = await call(sb, 'POST', 'sequenceSteps', {
    data: {
      type: 'sequenceStep',
      attributes: { stepType: 'auto_email', interval: 0 },
      relationships: { sequence: { data: { type: 'sequence', id } } },
    },
  });
  if (step.status !== 201) throw new Error(`sequence step: ${JSON.stringify(step.body)}`);
  sb.store.get('sequence', id)!.attributes['enabled'] = true;
  return id;
}

/** Enrolls one prospect directly (set-up). */
export async function enrollDirect(sb: TestSandbox, prospect: number, sequence: number, mailbox = 1): Promise<number> {
  const r = await call(sb, 'POST', 'sequenceStates', {
    data: {
      type: 'sequenceState',
      relationships: {
        prospect: { data: { type: 'prospect', id: prospect } },
        sequence: { data: { type: 'sequence', id: sequence } },
        mailbox: { data: { type: 'mailbox', id: mailbox } },
      },
    },
  });
  if (r.status !== 201) throw new Error(`enroll: ${JSON.stringify(r.body)}`);
  return Number(r.body.data.id);
}

/** Prospect ids of the sequence's states, one entry per state (duplicates show). */
export function stateProspects(sb: TestSandbox, sequence: number): number[] {
  const out: number[] = [];
  for (const rec of sb.store.table('sequenceState').values()) {
    const seq = rec.rels['sequence'];
    const p = rec.rels['prospect'];
    if (seq && !Array.isArray(seq) && seq.id === sequence && p && !Array.isArray(p)) out.push(p.id);
  }
  return out.sort((a, b) => a - b);
}

/** Ids of every prospect in the store. */
export function prospectIds(sb: TestSandbox): number[] {
  return [...sb.store.table('prospect').keys()];
}

/** First e-mail address of a prospect in the store. */
export function emailOf(sb: TestSandbox, id: number): string {
  const e = sb.store.get('prospect', id)?.attributes['emails'];
  return Array.isArray(e) ? String(e[0]) : '';
}

/** How many prospects hold each e-mail address now (an undo re-creates each deleted one once). */
export function emailHolders(sb: TestSandbox): Map<string, number> {
  const held = new Map<string, number>();
  for (const rec of sb.store.table('prospect').values()) {
    const e = rec.attributes['emails'];
    if (Array.isArray(e)) for (const x of e) held.set(String(x), (held.get(String(x)) ?? 0) + 1);
  }
  return held;
}

/** Writes a file in a fresh temp dir and returns its path. */
export function inputFile(name: string, text: string): string {
  const f = path.join(tempDir('svc-bulk-e2e-'), name);
  fs.writeFileSync(f, text);
  return f;
}

/** Parsed NDJSON lines of a file. */
export function ndjson<T = Record<string, unknown>>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

/** A small seeded PRNG (mulberry32) so that "random" kill points repeat run after run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Prospects with no sequence state at all (free of any exclusivity rule), lowest ids first. */
export function freeProspects(sb: TestSandbox, n: number, minId = 1): number[] {
  const busy = new Set<number>();
  for (const rec of sb.store.table('sequenceState').values()) {
    const p = rec.rels['prospect'];
    if (p && !Array.isArray(p)) busy.add(p.id);
  }
  const out = [...sb.store.table('prospect').keys()]
    .filter((id) => id >= minId && !busy.has(id))
    .sort((a, b) => a - b)
    .slice(0, n);
  if (out.length < n) throw new Error(`only ${out.length} free prospects`);
  return out;
}

/**
 * CP932 (Shift_JIS) bytes of the Japanese characters the tests write, from the JIS X 0208 table
 * (Node decodes Shift_JIS but has no encoder). Also `\u3000`, the full-width space.
 */
const CP932: Readonly<Record<string, readonly number[]>> = {
  山: [0x8e, 0x52],
  田: [0x93, 0x63],
  太: [0x91, 0xbe],
  郎: [0x98, 0x59],
  佐: [0x8d, 0xb2],
  藤: [0x93, 0xa1],
  花: [0x89, 0xd4],
  子: [0x8e, 0x71],
  鈴: [0x97, 0xe9],
  木: [0x96, 0xd8],
  営: [0x89, 0x63],
  業: [0x8b, 0xc6],
  部: [0x95, 0x94],
  長: [0x92, 0xb7],
  カ: [0x83, 0x4a],
  タ: [0x83, 0x5e],
  ダ: [0x83, 0x5f],
  ナ: [0x83, 0x69],
  ヤ: [0x83, 0x84],
  マ: [0x83, 0x7d],
  ー: [0x81, 0x5b],
  // One-kanji surnames and given names (林 reads "—Ñ" in Windows-1252, 健 "Œ’", 森 0x90 "X").
  林: [0x97, 0xd1],
  健: [0x8c, 0x92],
  森: [0x90, 0x58],
  '\u3000': [0x81, 0x40],
};

/** `text` in CP932, as Japanese Excel saves "CSV": ASCII as is, the characters of the table above. */
export function cp932(text: string): Buffer {
  const out: number[] = [];
  for (const c of text) {
    const code = c.charCodeAt(0);
    const bytes = code < 0x80 ? [code] : CP932[c];
    if (!bytes) throw new Error(`cp932: no bytes for ${c} in the test's table`);
    out.push(...bytes);
  }
  return Buffer.from(out);
}
