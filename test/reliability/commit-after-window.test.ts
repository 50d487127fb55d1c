/**
 * A backend that commits after the settle window (a gateway answers 504 at once, the backend
 * commits seconds after the last lookup): the row is reported `unknown` and never sent a second
 * time; the rerun, after the commit, finds it (created, recovered) and sends nothing. With
 * `--resend-unconfirmed` the user takes the other side of the trade: a create that never arrived
 * is sent again, once, right after a last lookup. In-process against the sandbox through the
 * fault proxy; `--settle 1` stands for the default 30 s.
 *
 * Time: the late commit lands at 2 s (was 2.5 s; the last lookup is at about 1.1 s) and the
 * waits for it poll for the record (up to 10 s) instead of sleeping a fixed 2–3.5 s. The tests run
 * at the same time (`describe.concurrent`), so that their windows and late commits overlap: each
 * has a fault proxy of its own in front of the one sandbox (its own rules, and the POSTs it
 * counts are its own) and rows of its own (its own emails, its own sequence).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { call, inputFile, ndjson, newSequence, stateProspects } from '../helpers/bulk.js';
import type { Fault } from '../helpers/fault-proxy.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { ownProxy, startRig, type Rig } from '../helpers/reliability.js';
import { baseEnv } from '../helpers/run-svc.js';
import { until } from '../helpers/sandbox.js';

let base: Rig;
beforeAll(async () => {
  base = await startRig({ seed: 2605 });
});
afterAll(() => base?.close());

/** 504 at 100 ms; the backend commits at 2 s, well after the 1 s window (lookups up to about 1.1 s). */
const LATE: Fault = { kind: 'late', failAfterMs: 100, commitAfterMs: 2000 };
/** 504 for a request that never reaches the backend. */
const LOST: Fault = { kind: 'answer', status: 504, headers: { 'content-type': 'text/html' }, body: '<h1>504 Gateway Time-out</h1>' };

/** Waits for the late commit (polls; a generous bound for a loaded machine). */
const committed = (has: () => boolean) => until(has, 10_000);
type Line = { row: number; status: string; id: number | null; error: string | null; recovered?: boolean };

/** Runs svc in-process through the proxy; `env` keeps one config dir across runs. */
const svc = (args: string[], env: Record<string, string>) =>
  runInProcess([...args, '--settle', '1', '--timeout', '5'], baseEnv(env), { timeoutMs: 30_000 });

/** Applies `fault` to the first request whose body holds `marker`. */
function once(rig: Rig, method: string, path: RegExp, marker: string, fault: Fault): () => void {
  let done = false;
  return rig.proxy.decide({ method, path }, (req) => {
    if (done || !req.body.includes(marker)) return undefined;
    done = true;
    return fault;
  });
}

const prospectsWith = (email: string) =>
  [...base.sb.store.table('prospect').values()].filter((p) => (p.attributes['emails'] as string[] | undefined)?.includes(email));
const posts = (rig: Rig, mark: number, path: RegExp) =>
  rig.proxy.since(mark).filter((e) => e.method === 'POST' && path.test(e.url.split('?')[0]!) && e.fault !== 'answer').length;

describe.concurrent('late commits past the window, each test with its own proxy', () => {
  describe('a create committed after the settle window', () => {
    it.for([
      ['create', [] as string[]],
      ['upsert', ['--match', 'email']],
    ] as const)(
      'prospects %s: unknown, not sent twice; the rerun after the commit finds it and sends nothing',
      { timeout: 60_000 },
      async ([op, extra], ctx) => {
        const { expect } = ctx;
        const rig = await ownProxy(base, ctx);
        const email = `late-${op}@window.test`;
        const file = inputFile(`${op}.csv`, `firstName,lastName,emails\nLate,Window,${email}\nOn,Time,ontime-${op}@window.test\n`);
        const env = rig.env();
        const remove = once(rig, 'POST', /^\/api\/v2\/prospects(\?|$)/, email, LATE);
        const mark = rig.proxy.log.length;
        const r = await svc(['prospects', op, '--input', file, ...extra, '--report', `${file}.1`], env);
        remove();
        expect(r.threw).toBeUndefined();
        expect(r.code, r.stderr).toBe(5);
        const lines = ndjson<Line>(`${file}.1`).sort((a, b) => a.row - b.row);
        expect(lines[0]).toMatchObject({ status: 'unknown', id: null });
        expect(lines[0]!.error).toMatch(/no record matching the row was found in the 1 s settle window; not sent again/);
        expect(lines[1]).toMatchObject({ status: 'created' });
        expect(r.stderr).toMatch(/a rerun looks them up again \(those it can\) and sends none of them twice; --resend-unconfirmed/);
        // The backend commits after the run has ended: one record, from the one request sent.
        await committed(() => prospectsWith(email).length > 0);
        expect(prospectsWith(email)).toHaveLength(1);
        expect(posts(rig, mark, /^\/api\/v2\/prospects$/)).toBe(2);

        const again = await svc(['prospects', op, '--input', file, ...extra, '--report', `${file}.2`], env);
        expect(again.code, again.stderr).toBe(0);
        expect(prospectsWith(email)).toHaveLength(1);
        expect(posts(rig, mark, /^\/api\/v2\/prospects$/)).toBe(2);
        const redo = ndjson<Line>(`${file}.2`).find((l) => l.row === 1)!;
        // An upsert's match finds it as a create's lookup does: created by the run, recovered (it
        // read "unchanged", skipped, and the run's record kept it unknown).
        expect(redo).toMatchObject({ status: 'created', id: prospectsWith(email)[0]!.id, recovered: true });
      },
    );

    it('a rerun before the commit still does not send it: unknown again, until the record shows', { timeout: 60_000 }, async (ctx) => {
      const { expect } = ctx;
      const rig = await ownProxy(base, ctx);
      const email = 'slow-rerun@window.test';
      const file = inputFile('slow.csv', `firstName,emails\nSlow,${email}\n`);
      const env = rig.env();
      const remove = once(rig, 'POST', /^\/api\/v2\/prospects(\?|$)/, email, { ...LATE, commitAfterMs: 4000 });
      const mark = rig.proxy.log.length;
      expect((await svc(['prospects', 'create', '--input', file], env)).code).toBe(5);
      remove();
      const again = await svc(['prospects', 'create', '--input', file, '--report', `${file}.r`], env);
      expect(again.code, again.stderr).toBe(5);
      expect(ndjson<Line>(`${file}.r`)[0]!.error).toMatch(
        /could not confirm this create, and no record matching the row was found by a lookup now/,
      );
      await committed(() => prospectsWith(email).length > 0);
      expect(prospectsWith(email)).toHaveLength(1);
      expect(posts(rig, mark, /^\/api\/v2\/prospects$/)).toBe(1);
    });

    it('--resend-unconfirmed: a create that never arrived is sent again once, after the last lookup', { timeout: 60_000 }, async (ctx) => {
      const { expect } = ctx;
      const rig = await ownProxy(base, ctx);
      const email = 'lost@window.test';
      const file = inputFile('lost.csv', `firstName,emails\nLost,${email}\n`);
      const remove = once(rig, 'POST', /^\/api\/v2\/prospects(\?|$)/, email, LOST);
      const r = await svc(['prospects', 'create', '--input', file, '--resend-unconfirmed', '--report', `${file}.r`], rig.env());
      remove();
      expect(r.code, r.stderr).toBe(0);
      expect(ndjson<Line>(`${file}.r`)[0]).toMatchObject({ status: 'created' });
      expect(prospectsWith(email)).toHaveLength(1);
    });
  });

  describe('an enrolment committed after the settle window', () => {
    it('unknown, not sent twice; the rerun finds it in the sequence', { timeout: 60_000 }, async (ctx) => {
      const { expect } = ctx;
      const rig = await ownProxy(base, ctx);
      const seq = await newSequence(rig.sb, { permitDuplicateProspects: 'allow' });
      const made = await call(rig.sb, 'POST', 'prospects', {
        data: { type: 'prospect', attributes: { firstName: 'Enrol', lastName: 'Late' } },
      });
      const pid = Number(made.body.data.id);
      const file = inputFile('enrol.csv', `id\n${pid}\n`);
      const env = rig.env();
      const remove = once(rig, 'POST', /^\/api\/v2\/sequenceStates(\?|$)/, `"id":${pid}`, LATE);
      const mark = rig.proxy.log.length;
      const r = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--yes', '--report', `${file}.1`], env);
      remove();
      expect(r.code, r.stderr).toBe(5);
      expect(ndjson<Line>(`${file}.1`)[0]!.error).toMatch(/not found in the sequence in the 1 s settle window; not sent again/);
      await committed(() => stateProspects(rig.sb, seq).length > 0);
      expect(stateProspects(rig.sb, seq)).toEqual([pid]);
      const again = await svc(['enroll', '--sequence', String(seq), '--mailbox', '1', '--input', file, '--yes'], env);
      expect(again.code, again.stderr).toBe(0);
      expect(stateProspects(rig.sb, seq)).toEqual([pid]);
      expect(posts(rig, mark, /^\/api\/v2\/sequenceStates$/)).toBe(1);
    });
  });
});
