/**
 * The progress line's figures: the ETA of a run that waits for the rate budget counts the wait
 * (a new user's trial saw "ETA 0:02 · waiting 59:34" during an hour's wait).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Progress } from '../../../src/bulk/run/progress.js';

describe('Progress', () => {
  it('the ETA of a run waiting for the budget is the wait and then the rows left at its rate', () => {
    let now = 0;
    const p = new Progress({ stderr: new PassThrough(), tty: false, label: 'prospects upsert', total: 150, now: () => now });
    for (let i = 0; i < 106; i++) p.tick('created', true);
    now = 5_300; // 20 rows/s
    expect(p.status()).toBe('106/150 (70%) · 20 rows/s · ETA 0:02');
    p.waiting(3_574_000, "the hour's requests are spent");
    expect(p.status()).toBe("106/150 (70%) · 20 rows/s · ETA 59:36 · waiting 59:34: the hour's requests are spent");
  });
});
