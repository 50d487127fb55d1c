/**
 * report's usage errors, in-process: bad --by, a sort mixing rates and attributes, --limit 0, an
 * --html name that is not .html, --html - with anything else for stdout, an unknown --tz are one
 * error line each (with its hint), nothing sent. (The e2e tests keep a non-numeric id through the built
 * binary.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

describe('report sequences', () => {
  it('bad --by or a mixed sort: one usage error, nothing sent', async () => {
    for (const args of [
      ['--by', 'speed'],
      ['--sort', 'reply,name'],
      ['--limit', '0'],
    ]) {
      const r = await server.run(['report', 'sequences', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^error: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.sent).toHaveLength(0);
    }
  });
});

describe('report --tz', () => {
  it.each([
    ['mailings', 'Asia/Tokio', 'Asia/Tokyo'],
    ['mailings', 'new york', 'America/New_York'],
    ['sequences', 'Tokyo', 'Asia/Tokyo'],
    ['sequence 1', 'Mars/Olympus', undefined],
    ['prospect 1', 'EST+5', undefined],
    ['mailings', '', undefined],
  ])('report %s --tz %j: one usage error naming the fix, nothing sent', async (command, zone, near) => {
    const r = await server.run(['report', ...command.split(' '), '--tz', zone]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: --tz ${zone || '""'}: not a time zone\nhint: ${near ? `did you mean --tz ${near}? ` : ''}give an IANA name such as Asia/Tokyo or America/New_York, UTC, or local (the machine's zone)\n`,
    );
    expect(r.stdout).toBe('');
    expect(r.sent).toHaveLength(0);
  });
});

describe('report --html', () => {
  // `--html s.csv` wrote a page into a .csv without a word (a trial); export refuses such names.
  it.each([
    [
      ['sequences', '--html', 's.csv'],
      /^error: --html s\.csv: --html writes an HTML page, not \.csv\nhint: name the file \.html \(or \.htm\); the numbers as \.csv: -o csv > s\.csv\n$/,
    ],
    [
      ['mailings', '--html', 'out/r.txt'],
      /^error: --html out\/r\.txt: --html writes an HTML page, not \.txt\nhint: name the file \.html \(or \.htm\)\n$/,
    ],
    [['prospect', '1', '--html', '-', '--open'], /^error: --html - writes the page to stdout, which --open cannot open\n/],
    [
      ['sequences', '--html', '-', '-o', 'json'],
      /^error: --html - writes the page to stdout, where -o json prints the numbers: leave out one of them\n/,
    ],
    [
      ['mailings', '--html', '-', '--ascii'],
      /^error: --html - writes the page to stdout, where --ascii draws the chart: leave out one of them\n/,
    ],
    // A folder that is not there: refused before the report's requests (it failed after them, exit 1).
    [
      ['sequences', '--html', 'no-such-folder/r.html'],
      /^error: --html no-such-folder\/r\.html: no folder .*no-such-folder\nhint: make the folder first/,
    ],
    [['sequences', '--html', '/dev/null/r.html'], /^error: --html \/dev\/null\/r\.html: \/dev\/null is not a folder\n/],
  ])('%j: one usage error, nothing sent, no file', async (args, message) => {
    const r = await server.run(['report', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(r.sent).toHaveLength(0);
    expect(fs.existsSync(path.resolve(args[args.indexOf('--html') + 1]!))).toBe(false);
  });

  it('.html, .htm in any case and a name without extension (a device, a pipe) pass the check', async () => {
    for (const name of ['r.html', 'R.HTM', '/dev/null']) {
      const r = await server.run(['report', 'sequences', '--html', name]);
      expect(r.stderr).not.toMatch(/--html writes an HTML page/);
    }
  });
});
