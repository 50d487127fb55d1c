/**
 * A date written day first, as a German Excel and people in Europe write it (`30.11.2026`,
 * `30/11/2026`), is refused wherever svc reads a date from a user — a filter, a report's range,
 * `--since`, `--attr` of a date or date-time field, a date cell of an `--input` file — and the one
 * line says how to write it (src/api-time.ts `isoDateFix`): the ISO date it reads as when there is
 * no doubt (dotted, or a day above 12), only the form when `05/06/2026` could be either day
 * (a trial in Berlin: the refusals named no fix). In process, nothing sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/run-svc.js';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

/** The run's stderr, after checking it is one usage error and nothing was sent. */
async function refused(args: string[]): Promise<string> {
  const r = await server.run(args);
  expect(r.code, r.stderr).toBe(2);
  expect(r.sent).toHaveLength(0);
  return r.stderr;
}

describe('a day-first date is refused with the ISO date it means', () => {
  it.each([
    [
      ['prospects', 'list', '--filter', 'createdAt=30.11.2026'],
      'filter "createdAt=30.11.2026": write dates as YYYY-MM-DD: 30.11.2026 → 2026-11-30',
    ],
    [
      ['prospects', 'list', '--filter', 'updatedAt=30/11/2026..'],
      'filter "updatedAt=30/11/2026..": write dates as YYYY-MM-DD: 30/11/2026 → 2026-11-30',
    ],
    [
      ['report', 'mailings', '-o', 'json', '--filter', 'deliveredAt=01.11.2026..30.11.2026'],
      'filter "deliveredAt=01.11.2026..30.11.2026": write dates as YYYY-MM-DD: 01.11.2026 → 2026-11-01',
    ],
    [['events', 'tail', '--since', '30.11.2026'], '--since 30.11.2026: write dates as YYYY-MM-DD: 30.11.2026 → 2026-11-30'],
    [
      ['prospects', 'create', '--attr', 'dateOfBirth=1.2.1980', '--dry-run'],
      'prospect dateOfBirth: write dates as YYYY-MM-DD: 1.2.1980 → 1980-02-01',
    ],
    [
      ['tasks', 'create', '--attr', 'action=email', '--attr', 'dueAt=30.11.2026 14:30', '--dry-run'],
      'task dueAt: write date-times as YYYY-MM-DDThh:mm:ss: 30.11.2026 14:30 → 2026-11-30T14:30:00',
    ],
  ])('%j', async (args, line) => {
    const stderr = await refused(args);
    expect(stderr.split('\n')[0]).toBe(`error: ${line}`);
  });

  it('in a date cell of an --input file, the row says it', async () => {
    const file = path.join(tempDir(), 'birthdays.csv');
    fs.writeFileSync(file, 'id,dateOfBirth\n1,30.11.1980\n');
    const r = await server.run(['prospects', 'update', '--input', file, '--dry-run']);
    expect(r.sent).toHaveLength(0);
    expect(r.stderr).toMatch(/^row 1: dateOfBirth: write dates as YYYY-MM-DD: 30\.11\.1980 → 1980-11-30$/m);
  });

  it('05/06/2026 could be either day: the form is named, no date guessed', async () => {
    const stderr = await refused(['prospects', 'list', '--filter', 'createdAt=05/06/2026']);
    const first = stderr.split('\n')[0]!;
    expect(first).toMatch(/^error: filter "createdAt=05\/06\/2026": write dates as YYYY-MM-DD \(05\/06\/2026: /);
    expect(first).not.toMatch(/2026-0[56]-0[56]/);
  });

  // A day no month has (32, 99) is no date to name: the form alone, as a usage error. The check
  // built an ISO text of it and asked Date for it back, which threw "Invalid time value" past
  // the error handling (exit 1, "unexpected failure") in every place that reads a date.
  it.each([
    [['prospects', 'list', '--filter', 'createdAt=32.11.2026'], 'filter "createdAt=32.11.2026": write dates as YYYY-MM-DD'],
    [['events', 'tail', '--since', '99.11.2026'], '--since 99.11.2026: write dates as YYYY-MM-DD'],
    [['prospects', 'create', '--attr', 'dateOfBirth=40.1.1980', '--dry-run'], 'prospect dateOfBirth: write dates as YYYY-MM-DD'],
  ])('a day past 31 is refused with the form: %j', async (args, line) => {
    const stderr = await refused(args);
    expect(stderr.split('\n')[0]).toBe(`error: ${line}`);
  });
});
