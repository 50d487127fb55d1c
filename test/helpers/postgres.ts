/**
 * The PostgreSQL server of the mirror's tests: `SVC_TEST_PG` (a superuser's connection string;
 * `.ci/run` starts a throwaway cluster and sets it). Without a reachable server the tests that
 * need one skip with a notice, as tests of a missing program do (programs.ts), and
 * `SVC_TEST_REQUIRE_PROGRAMS=1` turns the skip into a failure. No mock of the database anywhere.
 */
import pg from 'pg';
import { madeSchemas, PG_VAR } from './pg-schemas.js';
import { REQUIRE_VAR } from './programs.js';

/** Tries the server once; says why not in one line. */
async function reach(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The server's URL when one is reachable; undefined (after a notice) when not and not required;
 * throws when required. Call at the top of a test file (`await`), once.
 */
export async function testPostgres(): Promise<string | undefined> {
  const url = process.env[PG_VAR];
  const why = url ? await reach(url) : `${PG_VAR} is not set`;
  if (why === undefined) return url;
  if (process.env[REQUIRE_VAR] === '1')
    throw new Error(`no PostgreSQL for the mirror's tests (${why}) and ${REQUIRE_VAR}=1 requires one: .ci/run starts it`);
  process.stderr.write(`skipped: the mirror's tests on PostgreSQL: ${why} (.ci/run starts a server and sets ${PG_VAR})\n`);
  return undefined;
}

/** Runs SQL on the test server as its superuser (setting up roles and schemas a test needs). */
export async function adminSql(url: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

let schemas = 0;

/** A schema name no other test file or run uses; the schema is dropped when the file ends. */
export function freshSchema(tag: string): string {
  const name = `t_${tag}_${process.pid}_${Date.now().toString(36)}_${++schemas}`;
  madeSchemas.push(name);
  return name;
}

/**
 * Drops the schemas this file named (./temp-cleanup.ts, after the file's own after-all hooks).
 * Left behind, they filled a server that outlives the runs (a developer's, this machine's): 1,149
 * schemas and 74,000 relations after some 90 runs, where svc's catalog reads (the mirror's tables,
 * `information_schema.columns`) scan all of `pg_class`, ~20 ms a read; the mirror files' server
 * CPU was 3.8 CPU-s on a fresh cluster against 6.4 on one of that size (3 runs each,
 * mirror-faults, postgres-team and sync-sql). A drop costs the server ~20 ms a schema. A lock
 * held by a connection left open would make it wait: it gives up after 5 s and leaves the schema.
 */
export async function dropFreshSchemas(): Promise<void> {
  const url = process.env[PG_VAR];
  const names = madeSchemas.splice(0);
  if (!url || names.length === 0) return;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query("SET lock_timeout = '5s'");
    await client.query(`DROP SCHEMA IF EXISTS ${names.map((n) => `"${n}"`).join(', ')} CASCADE`);
  } catch {
    // The server gone, or a schema still locked: left for a later run's server to hold.
  } finally {
    await client.end().catch(() => {});
  }
}

/** A connection string as another user (and password). */
export function asUser(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

/** One database a mirror test runs against: how to name a fresh mirror in it, and what it calls its types. */
export interface MirrorDatabase {
  name: 'sqlite' | 'postgres';
  /** `--db …` (and `--schema …`) of a fresh mirror. */
  fresh(file: string): string[];
  /** `svc sql --columns` types of a text and an id column. */
  textType: string;
  idType: string;
}

/** SQLite always; PostgreSQL when `url` is a reachable server. */
export function mirrorDatabases(url: string | undefined): MirrorDatabase[] {
  const list: MirrorDatabase[] = [{ name: 'sqlite', fresh: (file) => ['--db', file], textType: 'TEXT', idType: 'INTEGER' }];
  if (url) list.push({ name: 'postgres', fresh: () => ['--db', url, '--schema', freshSchema('m')], textType: 'text', idType: 'bigint' });
  return list;
}
