/**
 * Global set-up of the suite (vitest.config.ts): drops the schemas of earlier runs that a file
 * did not drop itself (a run stopped before its files ended, or made before they dropped theirs:
 * helpers/postgres.ts dropFreshSchemas) from the server of SVC_TEST_PG, when it outlives the runs
 * (a developer's; `.ci/run` starts a fresh one). Only names `freshSchema` makes, and only those
 * older than an hour by the time in their name, so that a run beside this one keeps its own.
 * In the background, one schema a statement (a drop locks each of its relations), at most
 * {@link MAX_DROPS} a run: a server holding a thousand takes a few runs to empty, each paying
 * some seconds of the server's CPU rather than one paying half a minute.
 */
import { PG_VAR } from './pg-schemas.js';

/** `t_<tag>_<pid>_<ms since the epoch, base 36>_<n>` (helpers/postgres.ts freshSchema). */
const NAME = /^t_[a-z]+_\d+_([0-9a-z]+)_\d+$/;
const MAX_DROPS = 200;
const AGE_MS = 3_600_000;

/** Set once the sweep started: each of the config's projects runs the global set-up. */
const STARTED = 'SVC_TEST_PG_SWEEP';

export default function setup(): (() => Promise<void>) | undefined {
  const url = process.env[PG_VAR];
  if (!url || process.env[STARTED]) return undefined;
  process.env[STARTED] = '1';
  const done = sweep(url);
  return () => done;
}

async function sweep(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query("SET lock_timeout = '2s'");
    const { rows } = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'");
    const stale = rows
      .map((r) => ({ name: r.nspname, at: Number.parseInt(NAME.exec(r.nspname)?.[1] ?? '', 36) }))
      .filter((s) => s.at < Date.now() - AGE_MS)
      .sort((a, b) => a.at - b.at)
      .slice(0, MAX_DROPS);
    for (const s of stale) await client.query(`DROP SCHEMA IF EXISTS "${s.name}" CASCADE`).catch(() => {});
  } catch {
    // No server, or not one this run may clean: the tests say so themselves (helpers/postgres.ts).
  } finally {
    await client.end().catch(() => {});
  }
}
