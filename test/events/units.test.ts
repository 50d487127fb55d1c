/**
 * The pure parts of events tail, catch-up and replay: time flags, `--every`, `--name` globs, the
 * cursor word and its order, relative times of the one-line view and its widths (wide characters
 * two columns; the sandbox's events have ASCII names alone: test/events/tail-width.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { compareKeys, CursorState, decodeCursor, encodeCursor } from '../../src/events/cursor.js';
import { expandNameGlobs } from '../../src/events/names.js';
import { parseEvery } from '../../src/events/pace.js';
import { parseTimeFlag } from '../../src/events/since.js';
import { relativeTime } from '../../src/output/relative-time.js';
import { textWidth } from '../../src/output/terminal-text.js';
import { eventView } from '../../src/commands/events/tail-view.js';
import { zoneNamed } from '../../src/time-zone.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');

describe('time flags', () => {
  const sydney = { zone: () => zoneNamed('Australia/Sydney') };
  const utc = { zone: () => zoneNamed('UTC') };
  it('reads spans back from now and date-times (zone-less is UTC)', () => {
    expect(parseTimeFlag('2h', '--since', NOW, sydney)).toBe(NOW - 7_200_000);
    expect(parseTimeFlag('90s', '--since', NOW, sydney)).toBe(NOW - 90_000);
    expect(parseTimeFlag('2026-11-28T09:00:00', '--since', NOW, sydney)).toBe(Date.parse('2026-11-28T09:00:00Z'));
    expect(parseTimeFlag('2026-11-28T09:00:00+09:00', '--since', NOW, sydney)).toBe(Date.parse('2026-11-28T00:00:00Z'));
  });
  it("reads a day as one of the zone's: --since its first instant, --until its last (a trial: UTC's in Sydney)", () => {
    expect(parseTimeFlag('2026-11-28', '--since', NOW, utc)).toBe(Date.parse('2026-11-28T00:00:00Z'));
    expect(parseTimeFlag('2026-11-27', '--since', NOW, sydney)).toBe(Date.parse('2026-11-26T13:00:00Z'));
    expect(parseTimeFlag('2026-11-27', '--until', NOW, { ...sydney, end: true })).toBe(Date.parse('2026-11-27T13:00:00Z') - 1);
    // At 12:00 UTC it is 23:00 on the 28th in Sydney: today and yesterday are the zone's.
    expect(parseTimeFlag('today', '--since', NOW, sydney)).toBe(Date.parse('2026-11-27T13:00:00Z'));
    expect(parseTimeFlag('Yesterday', '--since', NOW, sydney)).toBe(Date.parse('2026-11-26T13:00:00Z'));
    expect(parseTimeFlag('today', '--since', NOW, utc)).toBe(Date.parse('2026-11-28T00:00:00Z'));
  });
  it("takes the date of today in the zone, though UTC's day has not begun; a day not over ends now", () => {
    // 14:00 UTC on the 30th is 01:00 on 1 December in Sydney (the trial's moment).
    const at = Date.parse('2026-11-30T14:00:00Z');
    expect(parseTimeFlag('2026-12-01', '--since', at, sydney)).toBe(Date.parse('2026-11-30T13:00:00Z'));
    expect(parseTimeFlag('2026-12-01', '--until', at, { ...sydney, end: true })).toBe(at);
    expect(parseTimeFlag('today', '--until', at, { ...sydney, end: true })).toBe(at);
    expect(parseTimeFlag('2026-12-02', '--since', at, sydney)).toEqual({ problem: expect.stringMatching(/in the future/) });
  });
  it('refuses the future and what is no time', () => {
    expect(parseTimeFlag('2026-11-29', '--since', NOW, utc)).toEqual({ problem: expect.stringMatching(/in the future/) });
    for (const bad of ['last week', '2h ago', '', '-2h', '2026-13-45', '12:00'])
      expect(parseTimeFlag(bad, '--since', NOW, sydney), bad).toEqual({ problem: expect.stringMatching(/expected a span/) });
  });
  it('refuses a day the calendar does not have, instead of rolling it into the next month (a trial: 2026-02-30 read as 2 March)', () => {
    for (const bad of ['2026-02-30', '2026-11-31', '2026-02-29T10:00:00Z', '2026-11-27T24:00'])
      expect(parseTimeFlag(bad, '--since', NOW, utc), bad).toEqual({ problem: `--since ${bad}: no such date or time` });
    expect(parseTimeFlag('2028-02-29', '--until', Date.parse('2028-03-01T00:00:00Z'), { ...utc, end: true })).toBe(
      Date.parse('2028-03-01T00:00:00Z') - 1,
    );
  });
});

describe('--every', () => {
  it('takes a share or an interval', () => {
    expect(parseEvery('2%')).toEqual({ share: 0.02 });
    expect(parseEvery('30s')).toEqual({ intervalMs: 30_000 });
    expect(parseEvery('500ms')).toEqual({ intervalMs: 500 });
    for (const bad of ['0%', '101%', '10ms', '2', 'often']) expect(() => parseEvery(bad), bad).toThrow(/--every/);
  });
});

describe('--name globs', () => {
  it('expands against the known names and takes the webhook spelling', () => {
    expect(expandNameGlobs(['task_*'])).toEqual({
      names: ['task_created', 'task_updated', 'task_destroyed', 'task_completed'],
      unknown: [],
    });
    expect(expandNameGlobs(['prospect.created', 'custom_thing'])).toEqual({
      names: ['prospect_created', 'custom_thing'],
      unknown: ['custom_thing'],
    });
    // The service's names are lower case: a name typed otherwise is sent as it writes it (a review).
    expect(expandNameGlobs(['Prospect_Created', 'Task.Completed'])).toEqual({ names: ['prospect_created', 'task_completed'], unknown: [] });
    expect(expandNameGlobs(['nosuch_*'])).toEqual({ problem: expect.stringMatching(/matches no event name/) });
  });
});

describe('cursor', () => {
  it('round-trips as one word, with the ids of its window and its floor', () => {
    const s = new CursorState(10_000, undefined, NOW - 5000);
    s.mark({ t: NOW, id: '12' });
    s.mark({ t: NOW - 1000, id: '11' });
    const word = encodeCursor(s.cursor()!);
    expect(word).toMatch(/^c2\.[A-Za-z0-9_-]+$/);
    const back = decodeCursor(word)!;
    expect(back).toEqual({
      t: NOW,
      id: '12',
      seen: [
        ['11', NOW - 1000],
        ['12', NOW],
      ],
      floor: NOW - 5000,
    });
    const again = new CursorState(10_000, back);
    expect(again.has('11')).toBe(true);
    expect(again.beforeWindow(NOW - 6000)).toBe(true);
    expect(again.beforeWindow(NOW - 4000)).toBe(false);
    const cut = word.slice(0, -2);
    for (const bad of ['c1.', 'c1.e30', 'x', 'c1.' + Buffer.from('{"t":1,"id":"a","s":[]}').toString('base64url'), 'c2.', cut, `${word}AA`])
      expect(decodeCursor(bad), bad).toBeUndefined();
  });

  it("a bulk run's burst in the window packs to a few bytes an id; earlier versions' c1 words are still read", () => {
    // 2,000 events of one run within the 10 s window, at whole seconds as the API writes them,
    // ids near-consecutive past 2^53.
    const s = new CursorState(10_000);
    const base = 9007199254740993n;
    for (let i = 0; i < 2000; i++) s.mark({ t: NOW - 10_000 + Math.floor(i / 200) * 1000, id: String(base + BigInt(i * 3)) });
    const c = s.cursor()!;
    const word = encodeCursor(c);
    expect(word.length).toBeLessThan(6000);
    const back = decodeCursor(word)!;
    expect(back).toEqual({ ...c, seen: [...c.seen].sort((a, b) => (BigInt(a[0]) < BigInt(b[0]) ? -1 : 1)) });
    // As JSON the same cursor took some 20 bytes an id.
    const c1 = `c1.${Buffer.from(JSON.stringify({ t: c.t, id: c.id, s: c.seen.map(([id, t]) => [id, c.t - t]) })).toString('base64url')}`;
    expect(c1.length).toBeGreaterThan(5 * word.length);
    expect(decodeCursor(c1)).toEqual(c);
    // What c2 cannot hold exactly (an id with a leading zero, a time in fractions) is written as c1.
    const odd = encodeCursor({ t: NOW, id: '007', seen: [['007', NOW]] });
    expect(odd).toMatch(/^c1\./);
    expect(decodeCursor(odd)).toEqual({ t: NOW, id: '007', seen: [['007', NOW]] });
    expect(encodeCursor({ t: NOW + 0.5, id: '7', seen: [] })).toMatch(/^c1\./);
    // Times in milliseconds pack too, and come back exact.
    const ms = { t: NOW + 7, id: '9', seen: [['8', NOW + 2] as [string, number], ['9', NOW + 7] as [string, number]], floor: NOW - 3 };
    expect(encodeCursor(ms)).toMatch(/^c2\./);
    expect(decodeCursor(encodeCursor(ms))).toEqual(ms);
  });
  it('a word whose times a Date cannot hold is no cursor (the tail threw "Invalid time value" on it)', () => {
    const uint = (n: bigint): number[] => {
      const out: number[] = [];
      for (let v = n; ; v >>= 7n) {
        if (v <= 127n) return [...out, Number(v)];
        out.push(Number(v & 127n) | 128);
      }
    };
    const c2 = (...fields: bigint[]) => `c2.${Buffer.from(fields.flatMap(uint)).toString('base64url')}`;
    // t, id, flags, [floor offset], count, then (id distance, time offset) per seen id.
    expect(decodeCursor(c2(BigInt(NOW), 5n, 0n, 0n))).toEqual({ t: NOW, id: '5', seen: [] });
    for (const bad of [
      c2(2n ** 53n - 1n, 5n, 0n, 0n), // t past year 275760
      c2(8_640_000_000_000_001n, 5n, 0n, 0n),
      c2(BigInt(NOW), 5n, 3n, 2n ** 52n, 0n), // a floor 2^51 s back
      c2(BigInt(NOW), 5n, 2n, 1n, 5n, 2n ** 52n), // a seen time 2^51 s back
    ])
      expect(decodeCursor(bad), bad).toBeUndefined();
    const c1 = (body: string) => `c1.${Buffer.from(body).toString('base64url')}`;
    for (const body of ['{"t":1e300,"id":"5","s":[]}', '{"t":1,"id":"5","s":[["5",1e400]]}', '{"t":1,"id":"5","s":[],"f":-9e15}'])
      expect(decodeCursor(c1(body)), body).toBeUndefined();
  });
  it('orders by time, then id as a number past 2^53', () => {
    expect(compareKeys({ t: 1, id: '9' }, { t: 1, id: '10' })).toBe(-1);
    expect(compareKeys({ t: 1, id: '9007199254740993' }, { t: 1, id: '9007199254740992' })).toBe(1);
    expect(compareKeys({ t: 2, id: '1' }, { t: 1, id: '5' })).toBe(1);
  });
});

describe('relative times', () => {
  it('says how long ago', () => {
    expect(relativeTime(NOW - 400, NOW)).toBe('now');
    expect(relativeTime(NOW - 12_000, NOW)).toBe('12s ago');
    expect(relativeTime(NOW - 180_000, NOW)).toBe('3m ago');
    expect(relativeTime(NOW - 7_200_000, NOW)).toBe('2h ago');
    expect(relativeTime(NOW - 3 * 86_400_000, NOW)).toBe('3d ago');
  });
});

describe('the one-line view at a width', () => {
  /** An event as the API could send one: a CJK name, a record type with an emoji. */
  const event = (id: number, name: string) => ({
    record: {
      type: 'event',
      id,
      attributes: { name, payload: { type: '顧客🚀', id: 4242 } },
      relationships: { prospect: { data: { type: 'prospect', id: 777777 } }, user: { data: { type: 'user', id: 31 } } },
    },
    t: NOW - 12_000,
  });
  const batch = [event(900001, '商談_更新済み'), event(900002, '🚀_launched')];

  it('pads the name and cuts by columns, wide characters two; the time and the ids whole', () => {
    const [wide] = eventView({ relative: true, width: 200 })(batch, NOW);
    expect(wide).toBe(`11:59:48  12s ago  商談_更新済み${' '.repeat(9)}  顧客🚀 4242  prospect 777777  user 31  #900001`);
    expect(textWidth(wide!.slice(0, wide!.indexOf('顧客')))).toBe(10 + 9 + 22 + 2);
    for (const width of [80, 60, 50, 40, 34, 30]) {
      const lines = eventView({ relative: true, width })(batch, NOW);
      lines.forEach((line, i) => {
        expect(textWidth(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
        expect(line, `${width}`).toMatch(new RegExp(`^11:59:48  \\S.* 4242  (.*  )?#90000${i + 1}$`));
      });
    }
    // At 79 the relative age and then the user are given up; at 70 some of the padding; at 56
    // the prospect; at 45 the prospect and the padding.
    const at = (width: number) => eventView({ relative: true, width })(batch, NOW)[0];
    expect(at(79)).toBe(`11:59:48  商談_更新済み${' '.repeat(9)}  顧客🚀 4242  prospect 777777  #900001`);
    expect(at(70)).toBe(`11:59:48  商談_更新済み${' '.repeat(8)}  顧客🚀 4242  prospect 777777  #900001`);
    // Once the prospect is given up, the padding is back where there is room for it.
    expect(at(56)).toBe(`11:59:48  商談_更新済み${' '.repeat(9)}  顧客🚀 4242  #900001`);
    expect(at(45)).toBe('11:59:48  商談_更新済み  顧客🚀 4242  #900001');
    // Narrower, the record's type is cut before the name, never inside a character.
    expect(at(40)).toBe('11:59:48  商談_更新済み  … 4242  #900001');
    expect(at(34)).toBe('11:59:48  商談_…  … 4242  #900001');
  });

  it('decides the relative age once, by the first batch with events: the columns do not shift between catch-up and live (a trial)', () => {
    const short = { ...event(1, 'x'), record: { ...event(1, 'x').record, relationships: {} } };
    // A first batch one of whose lines needs the age's room: no age, then or after.
    const without = eventView({ relative: true, width: 72 });
    expect(without([], NOW)).toEqual([]);
    expect(without([short, event(900001, '商談_更新済み')], NOW)).toEqual([
      '11:59:48  x                       顧客🚀 4242  #1',
      `11:59:48  商談_更新済み${' '.repeat(9)}  顧客🚀 4242  prospect 777777  #900001`,
    ]);
    expect(without([short], NOW)).toEqual(['11:59:48  x                       顧客🚀 4242  #1']);
    // A first batch that fits with it: the age stays, and a later line gives up its other parts first.
    const withAge = eventView({ relative: true, width: 72 });
    expect(withAge([short], NOW)).toEqual(['11:59:48  12s ago  x                       顧客🚀 4242  #1']);
    const [live] = withAge([event(900001, '商談_更新済み')], NOW + 1000);
    expect(live).toMatch(/^11:59:48  13s ago  商談_更新済み +顧客🚀 4242  .*#900001$/);
    expect(textWidth(live!)).toBeLessThanOrEqual(72);
    expect(live!.indexOf('商談')).toBe('11:59:48  12s ago  '.length);
  });

  it("on a terminal shows the zone's clock, with the date when not the zone's today", () => {
    const sydney = zoneNamed('Australia/Sydney');
    // 11:59:48 UTC on the 28th is 22:59:48 in Sydney, the same day there.
    expect(eventView({ relative: false, width: 200, zone: sydney })([batch[0]!], NOW)[0]).toMatch(/^22:59:48  商談/);
    // 13:00 UTC is the 29th in Sydney: an event of the 28th there shows its date.
    expect(eventView({ relative: false, width: 200, zone: sydney })([batch[0]!], NOW + 3_600_000)[0]).toMatch(/^2026-11-28 22:59:48  商談/);
    expect(eventView({ relative: false, width: undefined, zone: undefined })([batch[0]!], NOW)[0]).toMatch(/^11:59:48  商談/);
  });

  it('off a terminal each line is whole, the name padded as before', () => {
    expect(eventView({ relative: false, width: undefined })(batch, NOW)[0]).toBe(
      `11:59:48  ${'商談_更新済み'.padEnd(22)}  顧客🚀 4242  prospect 777777  user 31  #900001`,
    );
  });
});
