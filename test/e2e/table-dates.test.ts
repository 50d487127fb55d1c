/**
 * Date-times in a table on an 80-column terminal stay readable with their `Z`: a trial (TZ
 * Australia/Sydney, 80 columns) saw `2026-11-30T14:06:…` in `list --columns
 * id,firstName,updatedAt,createdAt,touchedAt` and in `svc sql`, minutes and zone cut off, the
 * text cut to `first…`. Text gives way first; when the date-times with their seconds still do not
 * fit, they drop the seconds and keep the zone (`2026-11-30T14:06Z`); on a wide terminal they
 * stay whole. In process, against the sandbox over HTTP, stdout a TTY of the given width.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { textWidth } from '../../src/output/terminal-text.js';
import { runInProcess, svcInProcess } from '../helpers/in-process-cli.js';
import { tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  const made = await sandboxWithEnv();
  sb = made.sb;
  env = { ...made.env(), TZ: 'Australia/Sydney' };
  // Changed today, so that the trial's `updatedAt=7d..` lists them.
  for (const id of ['3', '4', '5', '6', '7']) {
    const r = await svcInProcess(['prospects', 'update', id, '--attr', 'title=VP of Sales'], { env });
    expect(r.code, r.stderr).toBe(0);
  }
});
afterAll(async () => {
  await sb?.close();
});

/** A zone-less API date-time as a table shows it: with its Z, to the second or to the minute. */
const shown = (t: string | null, seconds: boolean) => (t === null ? '' : `${seconds ? t : t.slice(0, 16)}Z`);

/** The lines of a table at `columns`, each checked to fit. */
async function table(args: string[], columns: number): Promise<string[]> {
  const r = await runInProcess(args, env, { tty: true, columns });
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stdout.trimEnd().split('\n');
  for (const l of lines) expect(textWidth(l), l).toBeLessThanOrEqual(columns);
  return lines;
}

interface Listed {
  id: number;
  firstName: string;
  updatedAt: string;
  createdAt: string;
  touchedAt: string | null;
}

it('list at 80 columns: date-times keep their minutes and Z, the text gives way first', async () => {
  const args = [
    'prospects',
    'list',
    '--filter',
    'updatedAt=7d..',
    '--limit',
    '5',
    '--columns',
    'id,firstName,updatedAt,createdAt,touchedAt',
  ];
  const json = await svcInProcess([...args, '-o', 'json'], { env });
  expect(json.code, json.stderr).toBe(0);
  const rows = JSON.parse(json.stdout) as Listed[];
  expect(rows).toHaveLength(5);
  const lines = await table(args, 80);
  // The whole header: the seconds gave back what the text needed.
  expect(lines[1]).toMatch(/│ id +│ firstName +│ updatedAt +│ createdAt +│ touchedAt +│/);
  for (const [i, p] of rows.entries()) {
    const cells = lines[2 + i]!.split('│').map((c) => c.trim());
    expect(cells.slice(1, 6)).toEqual([
      String(p.id),
      p.firstName,
      shown(p.updatedAt, false),
      shown(p.createdAt, false),
      shown(p.touchedAt, false),
    ]);
  }
  // On a wide terminal, whole to the second.
  const wide = await table(args, 120);
  for (const [i, p] of rows.entries()) expect(wide[2 + i]).toContain(`│ ${shown(p.updatedAt, true)} │ ${shown(p.createdAt, true)} │`);
});

it('sql at 80 columns: the mirror date-times keep their minutes and Z, the text gives way', async () => {
  const db = ['--db', path.join(tempDir(), 'org.sqlite')];
  const sync = await svcInProcess(['sync', ...db, 'prospects'], { env });
  expect(sync.code, sync.stderr).toBe(0);
  const q = 'select id,first_name,last_name,title,updated_at,touched_at,emails from prospects order by updated_at desc limit 5';
  const json = await svcInProcess(['sql', ...db, '-o', 'json', q], { env });
  const rows = JSON.parse(json.stdout) as { id: number; updated_at: string; touched_at: string | null }[];
  expect(rows).toHaveLength(5);
  const lines = await table(['sql', ...db, q], 80);
  expect(lines.join('\n')).toContain('…');
  for (const [i, p] of rows.entries())
    expect(lines[2 + i]).toMatch(new RegExp(`^│ ${p.id} +│.*│ ${shown(p.updated_at, false)} +│ ${shown(p.touched_at, false)} +│`));
  const wide = await table(['sql', ...db, q], 160);
  for (const [i, p] of rows.entries()) expect(wide[2 + i]).toContain(`│ ${shown(p.updated_at, true)} │`);
});

it("svc's own times for people (`runs list`, `runs show`) are to the second with their Z, as the API's are; json keeps the milliseconds", async () => {
  // `runs list -o table | less` showed `2026-11-30T16:07:03.938Z` beside the API's
  // `2026-06-17T07:01:45Z` (on a terminal it says how long ago).
  const json = await svcInProcess(['runs', 'list', '-o', 'json'], { env });
  expect(json.code, json.stderr).toBe(0);
  const runs = JSON.parse(json.stdout) as { id: string; when: string }[];
  expect(runs.length).toBeGreaterThan(0);
  for (const r of runs) expect(r.when).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  const piped = await svcInProcess(['runs', 'list', '-o', 'table'], { env });
  expect(piped.code, piped.stderr).toBe(0);
  for (const r of runs) {
    const line = piped.stdout.split('\n').find((l) => l.startsWith(r.id))!;
    expect(line).toMatch(new RegExp(`^${r.id} +${r.when.slice(0, 19)}Z +svc prospects update`));
  }
  // The header of `runs show` too.
  const shown1 = await svcInProcess(['runs', 'show', runs[0]!.id], { env });
  expect(shown1.stderr + shown1.stdout).toContain(` · ${runs[0]!.when.slice(0, 19)}Z · `);
});
