/**
 * `svc report` rules people read the numbers by, against the sandbox over HTTP (in-process): ids
 * are numbers in every report's JSON as in `list`; a partial first or last week is marked (and
 * given its days in JSON); `--ascii` draws the chart in a pipe too and is refused with a machine
 * format; the histogram's bottom row is not labelled 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: () => Record<string, string>;
beforeAll(async () => {
  ({ sb, env } = await sandboxWithEnv({ seed: 400 }));
});
afterAll(() => sb?.close());

async function svc(argv: string[], code = 0) {
  const r = await runInProcess(argv, { ...env(), NO_COLOR: '1' }, { timeoutMs: 30_000, columns: 100 });
  expect(r.threw, String(r.threw)).toBeUndefined();
  expect(r.code, `${argv.join(' ')}\n${r.stderr}`).toBe(code);
  return r;
}
const rowsOf = (r: { stdout: string }) => JSON.parse(r.stdout) as Record<string, unknown>[];
const DAY = 86_400_000;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);

describe('report JSON ids', () => {
  it('are numbers, as list writes them, in every report', async () => {
    const listed = rowsOf(await svc(['sequences', 'list', '--all', '-o', 'json']));
    expect(typeof listed[0]!['id']).toBe('number');
    const seqs = rowsOf(await svc(['report', 'sequences', '-o', 'json']));
    expect(seqs.map((r) => r['id']).sort()).toEqual(listed.map((r) => r['id']).sort());
    const busiest = [...seqs].sort((a, b) => Number(b['delivered']) - Number(a['delivered']))[0]!;
    const funnel = rowsOf(await svc(['report', 'sequence', String(busiest['id']), '-o', 'json']));
    expect(funnel.length).toBeGreaterThan(0);
    for (const r of funnel) {
      expect(typeof r['stepId'], JSON.stringify(r)).toBe('number');
      if (r['level'] === 'template') expect(typeof r['templateId']).toBe('number');
    }
    const state = rowsOf(await svc(['sequence-states', 'list', '--filter', 'state=active', '--limit', '1', '-o', 'json']))[0]!;
    const prospect = rowsOf(await svc(['report', 'prospect', String(state['prospect']), '-o', 'json']));
    expect(prospect[0]).toMatchObject({ kind: 'prospect', id: state['prospect'] });
    const states = prospect.filter((r) => r['kind'] === 'sequenceState');
    expect(states.length).toBeGreaterThan(0);
    for (const s of states) {
      expect(typeof s['id']).toBe('number');
      expect(typeof s['sequence']).toBe('number');
    }
  });
});

describe('report mailings --by week', () => {
  it('marks a first and a last week the range covers in part, with their days in JSON', async () => {
    // From a Wednesday four weeks back to the Friday of the week after: 5 days, then whole weeks, then 5.
    const now = Date.now();
    const today = Math.floor(now / DAY) * DAY;
    const monday = today - ((new Date(today).getUTCDay() + 6) % 7) * DAY - 28 * DAY;
    const from = monday + 2 * DAY;
    const to = monday + 21 * DAY + 4 * DAY;
    const range = `deliveredAt=${ymd(from)}..${ymd(to)}`;
    const rows = rowsOf(await svc(['report', 'mailings', '--by', 'week', '--filter', range, '-o', 'json']));
    expect(rows.map((r) => [r['group'], r['days']])).toEqual([
      [ymd(monday), 5],
      [ymd(monday + 7 * DAY), 7],
      [ymd(monday + 14 * DAY), 7],
      [ymd(monday + 21 * DAY), 5],
    ]);
    const drawn = await svc(['report', 'mailings', '--by', 'week', '--filter', range, '-o', 'table']);
    expect(drawn.stdout).toMatch(new RegExp(`^ {2}${ymd(monday)}\\* `, 'm'));
    expect(drawn.stdout).toMatch(new RegExp(`^ {2}${ymd(monday + 7 * DAY)} `, 'm'));
    expect(drawn.stdout).toMatch(new RegExp(`^ {2}${ymd(monday + 21 * DAY)}\\* `, 'm'));
    expect(drawn.stdout.replace(/\s+/g, ' ')).toContain(
      `* a partial week: the range covers only 5 of the 7 days of ${ymd(monday)} and 5 of the 7 days of ${ymd(monday + 21 * DAY)}`,
    );
    // By day nothing is marked and rows carry no days.
    const byDay = rowsOf(await svc(['report', 'mailings', '--by', 'day', '--filter', range, '-o', 'json']));
    expect(byDay.every((r) => !('days' in r))).toBe(true);
  });
});

describe('report --ascii', () => {
  it('draws the chart in a pipe (no -o), with # bars; with --html the page and the drawing', async () => {
    const r = await svc(['report', 'sequences', '--ascii']);
    expect(r.stdout).toMatch(/^Sequences: \d+/);
    expect(r.stdout).toMatch(/#/);
    expect(r.stdout).not.toMatch(/[█▏▎▍▌▋▊▉]/);
    const file = path.join(tempDir(), 'r.html');
    const both = await svc(['report', 'mailings', '--ascii', '--html', file]);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/<svg/);
    expect(both.stdout).toMatch(/^Mailings by day/);
  });

  it('with a machine format is one usage error, nothing sent', async () => {
    for (const format of [['-o', 'json'], ['-o', 'csv'], ['-o', 'ndjson'], ['--json'], ['--query', 'length(@)']]) {
      const mark = sb.requests.length;
      const r = await svc(['report', 'sequences', '--ascii', ...format], 2);
      expect(r.stderr).toMatch(
        /^error: --ascii draws the chart; -o (json|csv|ndjson) prints the numbers it is drawn from: leave out one of them\n/,
      );
      expect(received(sb, mark)).toEqual([]);
    }
  });
});

describe('report prospect histogram', () => {
  it('labels 0 on the axis, not on the bottom row where columns of 1 stand', async () => {
    const people = rowsOf(await svc(['prospects', 'list', '--limit', '200', '--fields', 'contactHistogram', '-o', 'json']));
    const one = people.find((p) => JSON.stringify(p['contactHistogram'] ?? []).match(/[[,]1[\],]/));
    expect(one, 'a prospect with a month of 1 contact').toBeDefined();
    const r = await svc(['report', 'prospect', String(one!['id']), '--ascii']);
    const chart = r.stdout.split('\n');
    const axis = chart.findIndex((l) => /^ *0 \+-+$/.test(l));
    expect(axis).toBeGreaterThan(0);
    // The row above the axis holds the smallest columns and carries no label.
    expect(chart[axis - 1]).toMatch(/^ +\|/);
    expect(chart[axis - 1]).toMatch(/[#=]/);
  });
});
