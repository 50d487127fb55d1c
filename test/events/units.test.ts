/**
 * The pure parts of events tail, catch-up and replay: time flags, `--every`, `--name` globs, the
 * cursor word and its order, relative times of the one-line view.
 */
import { describe, expect, it } from 'vitest';
import { compareKeys, CursorState, decodeCursor, encodeCursor } from '../../src/events/cursor.js';
import { expandNameGlobs } from '../../src/events/names.js';
import { parseEvery } from '../../src/events/pace.js';
import { parseTimeFlag } from '../../src/events/since.js';
import { relativeTime } from '../../src/output/relative-time.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');

describe('time flags', () => {
  it('reads spans back from now and date-times (zone-less is UTC)', () => {
    expect(parseTimeFlag('2h', '--since', NOW)).toBe(NOW - 7_200_000);
    expect(parseTimeFlag('90s', '--since', NOW)).toBe(NOW - 90_000);
    expect(parseTimeFlag('2026-11-28T09:00:00', '--since', NOW)).toBe(Date.parse('2026-11-28T09:00:00Z'));
    expect(parseTimeFlag('2026-11-28', '--since', NOW)).toBe(Date.parse('2026-11-28T00:00:00Z'));
    // The start of the day on the local calendar, as list filters read them (refused, a trial).
    const midnight = new Date(NOW);
    midnight.setHours(0, 0, 0, 0);
    expect(parseTimeFlag('today', '--since', NOW)).toBe(midnight.getTime());
    midnight.setDate(midnight.getDate() - 1);
    expect(parseTimeFlag('Yesterday', '--since', NOW)).toBe(midnight.getTime());
  });
  it('refuses the future and what is no time', () => {
    expect(parseTimeFlag('2026-11-29', '--since', NOW)).toEqual({ problem: expect.stringMatching(/in the future/) });
    for (const bad of ['last week', '2h ago', '', '-2h', '2026-13-45', '12:00'])
      expect(parseTimeFlag(bad, '--since', NOW), bad).toEqual({ problem: expect.stringMatching(/expected a span/) });
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
    expect(word).toMatch(/^c1\.[A-Za-z0-9_-]+$/);
    const back = decodeCursor(word)!;
    expect(back).toEqual({
      t: NOW,
      id: '12',
      seen: [
        ['12', NOW],
        ['11', NOW - 1000],
      ],
      floor: NOW - 5000,
    });
    const again = new CursorState(10_000, back);
    expect(again.has('11')).toBe(true);
    expect(again.beforeWindow(NOW - 6000)).toBe(true);
    expect(again.beforeWindow(NOW - 4000)).toBe(false);
    for (const bad of ['c1.', 'c1.e30', 'x', 'c1.' + Buffer.from('{"t":1,"id":"a","s":[]}').toString('base64url')])
      expect(decodeCursor(bad), bad).toBeUndefined();
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
