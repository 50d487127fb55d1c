/**
 * `seedNow` (the seed's reference instant, for tests): the same seed and instant give the same
 * org whatever the clock says, so a test that seeds with it sees the same data every run and on
 * every day; without it the seed dates its history from today, and another day is another org.
 */
import { describe, expect, it } from 'vitest';
import { seedOrg } from '../../src/sandbox/data/seed.js';
import { Store } from '../../src/sandbox/data/store.js';
import { startSandbox } from '../../src/sandbox/index.js';

/** Every record of the types a merge test reads, as text. */
function dump(store: Store): string {
  return JSON.stringify(
    ['prospect', 'sequenceState', 'mailing', 'call', 'emailAddress'].map((t) =>
      [...store.table(t).values()].map((r) => [r.id, r.attributes, r.rels]),
    ),
  );
}

function seededOn(clock: string, now?: number): string {
  const store = new Store();
  store.now = () => Date.parse(clock);
  seedOrg(store, 200, 42, 5, now);
  return dump(store);
}

describe('seedNow', () => {
  it('the same instant gives the same org on any day; the clock alone gives another org on another day', () => {
    const at = Date.parse('2026-11-28T12:00:00Z');
    expect(seededOn('2026-11-28T13:27:00Z', at)).toBe(seededOn('2027-03-01T09:00:00Z', at));
    expect(seededOn('2026-11-28T13:27:00Z')).not.toBe(seededOn('2026-11-29T13:27:00Z'));
  });

  it('a sandbox seeded with it holds that org; a value that is not a date-time is refused', async () => {
    const sb = await startSandbox({ port: 0, seed: 200, duplicates: 5, seedNow: '2026-11-28T12:00:00Z' });
    try {
      expect(dump(sb.store)).toBe(seededOn('2030-01-01T00:00:00Z', Date.parse('2026-11-28T12:00:00Z')));
    } finally {
      await sb.close();
    }
    await expect(startSandbox({ port: 0, seedNow: 'yesterday' })).rejects.toThrow(/seedNow "yesterday" is not a date-time/);
  });
});
