/**
 * The ledger in a PostgreSQL table (`--budget-ledger postgres://…`), for svc processes on several
 * machines — CI runners sharing one token — that share one hour. The rules are ledger.ts's, run
 * on the same JSON state the file ledger holds: one row per user and base URL in
 * `svc_budget.ledgers` (schema and table made when missing).
 *
 * Cost: one round trip per step. The process keeps the row as it last saw it; a step applies the
 * rules to that copy and writes it back by compare-and-set on the row's stamp, in one `UPDATE`
 * that locks the row (as `SELECT … FOR UPDATE` would) and returns the row as it now is. When
 * another process wrote in between, the stamp differs, nothing changes, and the step runs the
 * rules again on the row just returned. A step that loses {@link CAS_TRIES} times in a row takes
 * the row's lock for itself (`SELECT … FOR UPDATE`, then `UPDATE`, in one transaction).
 *
 * Time: leases on other machines cannot be checked by pid, only by heartbeat, and the machines'
 * clocks may disagree by more than a heartbeat. The row is kept in the database server's time:
 * each round trip measures the server's clock against this machine's, and what goes in
 * (readings' resets, lease starts) and comes out (resets) is moved by that offset.
 *
 * A server that cannot be reached, a wrong password, a row this svc cannot read: {@link
 * LedgerUnusable} (the password never in it), and the caller paces by the headers alone. A row
 * from a newer svc is never overwritten.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type pg from 'pg';
import { redactText } from '../api/redact.js';
import { driverConnectionString } from '../postgres-url.js';
import { pidAlive } from '../auth/lock.js';
import {
  checkState,
  emptyState,
  giveBack,
  ledgerKey,
  LedgerUnusable,
  report,
  take,
  tidy,
  view,
  type Ledger,
  type LedgerState,
  type LedgerView,
  type TakeRequest,
  type TakeResult,
} from './ledger.js';

/** The table of every user's ledger on the server. */
const TABLE = 'svc_budget.ledgers';

/** Compare-and-set attempts before a step takes the row's lock for itself. */
const CAS_TRIES = 4;

/** A step waits no longer than this for the server (as the file ledger for its lock). */
const STEP_TIMEOUT_MS = 3_000;

/** The server's clock in epoch ms, read with every row. */
const SERVER_NOW = '(extract(epoch from clock_timestamp()) * 1000)::float8 AS now_ms';

const SETUP = `SELECT pg_advisory_xact_lock(hashtext('svc_budget.ledgers'));
CREATE SCHEMA IF NOT EXISTS svc_budget;
CREATE TABLE IF NOT EXISTS ${TABLE} (
  key text PRIMARY KEY,
  state jsonb NOT NULL,
  stamp text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
)`;

/** Makes the row when it is missing, and reads it (no row: made by another process this instant). */
const READ = `WITH made AS (
  INSERT INTO ${TABLE} (key, state, stamp) VALUES ($1, $2::jsonb, $3) ON CONFLICT (key) DO NOTHING RETURNING state, stamp
)
SELECT state, stamp, ${SERVER_NOW} FROM made
UNION ALL SELECT state, stamp, ${SERVER_NOW} FROM ${TABLE} WHERE key = $1`;

/**
 * Writes the new state when the row is still as this process saw it (stamp $2); in any case
 * returns the row as it is after the statement. (Every SET expression reads the row before it.)
 */
const CAS = `UPDATE ${TABLE} SET
  state = CASE WHEN stamp = $2 THEN $3::jsonb ELSE state END,
  updated_at = CASE WHEN stamp = $2 THEN clock_timestamp() ELSE updated_at END,
  stamp = CASE WHEN stamp = $2 THEN $4 ELSE stamp END
WHERE key = $1
RETURNING state, stamp, ${SERVER_NOW}`;

/** The row as a step sees it. */
interface Row {
  state: unknown;
  stamp: string;
  now_ms: number;
}

/** What a step's rules get: the state, the world in the server's time, and the clock offset. */
type Rules<T> = (state: LedgerState, world: { now: number; host: string; alive: (pid: number) => boolean }, offset: number) => T;

export class PgLedger implements Ledger {
  readonly where: string;
  private readonly key: string;
  private readonly secrets: string[];
  private client: Promise<pg.Client> | undefined;
  /** The row as this process last saw it. */
  private row: { state: LedgerState; stamp: string } | undefined;
  /** The server's clock less this machine's (ms), from the last round trip. */
  private offset = 0;
  /** Steps one after the other: a step's transaction never takes in another's statements. */
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly url: string,
    user: string,
    baseUrl: string,
    private readonly now: () => number = Date.now,
    /** Compare-and-set attempts before the row's lock (0: always the lock). */
    private readonly casTries = CAS_TRIES,
  ) {
    this.key = ledgerKey(user, baseUrl);
    this.secrets = secretsOf(url);
    this.where = `${redactText(url, this.secrets)} (table ${TABLE})`;
  }

  /** The password of the connection string, for the caller's redaction of everything it prints. */
  passwords(): string[] {
    return [...this.secrets];
  }

  take(req: TakeRequest): Promise<TakeResult> {
    return this.step((s, w, o) => {
      const r = take(s, toServer(req, o), w);
      return r.resetAt !== undefined ? { ...r, resetAt: r.resetAt - o } : r;
    });
  }

  giveBack(req: Omit<TakeRequest, 'want'>): Promise<void> {
    return this.step((s, w, o) => giveBack(s, toServer(req, o), w));
  }

  report(req: Omit<TakeRequest, 'want'>): Promise<void> {
    return this.step((s, w, o) => report(s, toServer(req, o), w));
  }

  leases(): Promise<LedgerView> {
    // Tidied in place, as the file ledger does, so that `svc limits` never shows a gone process.
    return this.step((s, w, o) => {
      tidy(s, w);
      const v = view(s, w.now);
      return {
        ...v,
        ...(v.resetAt !== undefined ? { resetAt: v.resetAt - o } : {}),
        leases: v.leases.map((l) => ({ ...l, started: l.started - o })),
      };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await this.chain;
    if (client) await (await client.catch(() => undefined))?.end().catch(() => undefined);
  }

  private step<T>(rules: Rules<T>): Promise<T> {
    const next = this.chain.then(() => this.attempt(rules));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async attempt<T>(rules: Rules<T>): Promise<T> {
    if (this.closed) throw new LedgerUnusable(`the ledger at ${this.where} is closed`);
    try {
      const client = await this.connect();
      for (let i = 0; i < this.casTries; i++) {
        const seen = this.row ?? (await this.read(client));
        const state = structuredClone(seen.state);
        const out = rules(state, this.world(), this.offset);
        const stamp = randomUUID();
        const row = await this.timed(client, CAS, [this.key, seen.stamp, JSON.stringify(state), stamp]);
        if (!row) {
          this.row = undefined; // the row was deleted: made again at the next try
          continue;
        }
        if (row.stamp === stamp) return out;
      }
      return await this.locked(client, rules);
    } catch (err) {
      this.row = undefined;
      if (err instanceof LedgerUnusable) throw err;
      // The connection may be half-way through something: a next step starts a new one.
      const client = this.client;
      this.client = undefined;
      void client?.then((c) => c.end()).catch(() => undefined);
      throw new LedgerUnusable(`cannot use the ledger at ${this.where}: ${this.message(err)}`);
    }
  }

  /** The contended path: the row's lock for one read and one write. */
  private async locked<T>(client: pg.Client, rules: Rules<T>): Promise<T> {
    if (!this.row) await this.read(client); // the row exists
    await client.query('BEGIN');
    try {
      const row = await this.timed(client, `SELECT state, stamp, ${SERVER_NOW} FROM ${TABLE} WHERE key = $1 FOR UPDATE`, [this.key]);
      if (!row) throw new LedgerUnusable(`the ledger's row at ${this.where} was deleted during a step`);
      const state = structuredClone(this.row!.state);
      const out = rules(state, this.world(), this.offset);
      const stamp = randomUUID();
      await client.query(`UPDATE ${TABLE} SET state = $2::jsonb, stamp = $3, updated_at = clock_timestamp() WHERE key = $1`, [
        this.key,
        JSON.stringify(state),
        stamp,
      ]);
      await client.query('COMMIT');
      this.row = { state, stamp };
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  /** Reads the row, making it when missing. */
  private async read(client: pg.Client): Promise<{ state: LedgerState; stamp: string }> {
    for (let i = 0; i < 3; i++) {
      const row = await this.timed(client, READ, [this.key, JSON.stringify(emptyState()), randomUUID()]);
      if (row) return this.row!;
    }
    throw new LedgerUnusable(`the ledger's row at ${this.where} cannot be made`);
  }

  /**
   * One statement, timed: the row it returns becomes this process's copy (when this svc can read
   * it) and the round trip measures the server's clock.
   */
  private async timed(client: pg.Client, sql: string, params: unknown[]): Promise<Row | undefined> {
    const t0 = this.now();
    const res = await client.query<Row>(sql, params);
    const t1 = this.now();
    const row = res.rows[0];
    if (!row) return undefined;
    const bad = checkState(row.state);
    if (bad) throw new LedgerUnusable(`the ledger at ${this.where} is ${bad}`);
    this.row = { state: row.state as LedgerState, stamp: row.stamp };
    this.offset = Math.round(row.now_ms - (t0 + t1) / 2);
    return row;
  }

  private world() {
    return { now: this.now() + this.offset, host: os.hostname(), alive: pidAlive };
  }

  private connect(): Promise<pg.Client> {
    if (!this.client) {
      const pending = this.open();
      // A failed connection is not kept (the gate stops asking at the first failure anyway).
      pending.catch(() => {
        if (this.client === pending) this.client = undefined;
      });
      this.client = pending;
    }
    return this.client;
  }

  /** Connects, and makes the schema and table when they are missing. */
  private async open(): Promise<pg.Client> {
    const pg = (await import('pg')).default;
    const client = new pg.Client({
      connectionString: driverConnectionString(this.url),
      application_name: 'svc budget',
      connectionTimeoutMillis: STEP_TIMEOUT_MS,
      query_timeout: STEP_TIMEOUT_MS,
      statement_timeout: STEP_TIMEOUT_MS,
      lock_timeout: STEP_TIMEOUT_MS,
      // A process stopped inside the contended path must not keep the row locked.
      idle_in_transaction_session_timeout: 2 * STEP_TIMEOUT_MS,
      keepAlive: true,
    });
    // A server restart, a dropped connection: the next statement fails, and the step says so.
    client.on('error', () => undefined);
    try {
      await client.connect();
      const made = await client.query<{ ok: boolean }>(`SELECT to_regclass('${TABLE}') IS NOT NULL AS ok`);
      if (!made.rows[0]?.ok) await client.query(`BEGIN;\n${SETUP};\nCOMMIT`);
      return client;
    } catch (err) {
      // Connected, then refused (a role without rights on svc_budget): the connection was left
      // open, and kept bin/svc from ever exiting (a cron job hung; a trial).
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  /** A server's or the network's error in one line, the password never in it. */
  private message(err: unknown): string {
    const e = err as { message?: string; code?: string; errors?: { message?: string }[] };
    let msg = String(e?.message || e?.errors?.map((x) => x.message).join(', ') || e?.code || err)
      .replace(/\s+/g, ' ')
      .trim();
    if (msg === 'Query read timeout') msg = `no answer within ${STEP_TIMEOUT_MS / 1000} s`;
    return redactText(msg, this.secrets);
  }
}

/** A request with its times moved to the server's clock. */
function toServer<R extends Omit<TakeRequest, 'want'>>(req: R, offset: number): R {
  const reading =
    req.reading && req.reading.resetAt !== undefined ? { ...req.reading, resetAt: req.reading.resetAt + offset } : req.reading;
  const answered = req.answered?.map((a) => ({ ...a, resetAt: a.resetAt + offset }));
  return {
    ...req,
    lease: { ...req.lease, started: req.lease.started + offset },
    ...(reading ? { reading } : {}),
    ...(answered ? { answered } : {}),
  };
}

/** The password of a connection string (in its user part or a `password=` parameter). */
function secretsOf(url: string): string[] {
  try {
    const u = new URL(url);
    return [decodeURIComponent(u.password), u.password, u.searchParams.get('password') ?? ''].filter((s) => s.length > 0);
  } catch {
    return [];
  }
}
