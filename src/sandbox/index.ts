/**
 * The sandbox: a local server that behaves like the API (as its v2 reference describes it), driven by the
 * resource registry, with rules, state and persistence. `startSandbox()` starts one
 * in-process (tests, `svc --sandbox`); `svc sandbox` runs one in the foreground.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';
import { AuthStore, type AccessToken } from './http/auth.js';
import type { Core, RecordedRequest } from './http/core.js';
import { recordEvents } from './rules/events.js';
import { defaultOrg, type OrgConfig } from './data/org.js';
import {
  ChangeLog,
  damagedDataFile,
  IdReservations,
  readDataFile,
  replayChangeLog,
  Saver,
  writeDataFileSync,
  DATA_VERSION,
  type DataFile,
} from './data/persistence.js';
import { RateLimiter } from './http/rate-limit.js';
import { rulesFor } from './rules/index.js';
import type { Principal } from './rules/types.js';
import { allScopes } from './rules/scopes.js';
import { DEFAULT_PROSPECTS, seedOrg } from './data/seed.js';
import { MAX_BODY_BYTES } from './http/request-body.js';
import { createListener } from './http/server.js';
import { applyQuirks, Store } from './data/store.js';
import { WebhookDispatcher, SPEC_TIMING, type DeliveryRecord, type DeliveryTiming } from './rules/webhook-delivery.js';

export type { RecordedRequest } from './http/core.js';
export type { DeliveryRecord } from './rules/webhook-delivery.js';
export { Store } from './data/store.js';
export { openApiDocument } from './http/openapi.js';

/** Options of {@link startSandbox}. */
export interface SandboxOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
  /** Number of prospects of the demo org; undefined gives a small default org (25 prospects). */
  seed?: number;
  /** Percentage of the demo org's prospects that get a planted duplicate, with as many near-misses (data/seed-duplicates.ts). */
  duplicates?: number;
  /**
   * The instant the demo org is seeded as of (ISO date-time or epoch ms), for tests: the seed dates
   * its history from the start of that day instead of today's, so the same seed gives the same org
   * whatever the day. The running sandbox's clock is not changed. @default the clock
   */
  seedNow?: string | number;
  /** Persist the org here (loaded when it exists, written atomically after changes). */
  dataFile?: string;
  /** Delay added to every response. @default 0 */
  latencyMs?: number;
  /** Requests per user per hour. @default 10000 */
  rateLimit?: number;
  /** Length of the rate-limit window (tests and benchmarks shorten the hour). @default 3600000 */
  rateWindowMs?: number;
  /** Minimum time between two access tokens issued to one user by /oauth/token. @default 60000 */
  tokenIssueIntervalMs?: number;
  /** ISO time until which every request is answered 503 scheduledServerMaintenance. */
  maintenanceUntil?: string;
  /** Lifetime of OAuth access tokens. @default 7200 */
  accessTokenTtlSeconds?: number;
  /** Time between the compliance request states pending → running → done. @default 500 */
  complianceStepMs?: number;
  /** Time before a queued mailing is delivered. @default 200 */
  deliveryMs?: number;
  /** Largest request body accepted (413 `requestEntityTooLarge` beyond). @default 10 MiB */
  maxBodyBytes?: number;
  /** Webhook delivery timings; the spec's 5 s timeout, 4 attempts 1 s apart by default. */
  webhookTiming?: Partial<DeliveryTiming>;
  /** The organization (name, custom fields) of a new org; the demo one by default. Ignored when a data file is loaded. */
  org?: OrgConfig;
  /**
   * Departures from the API, off by default, for tests of a client that must survive them (a
   * mirror): `silentCascade` unlinks the referrers of a deleted record and deletes its dependents
   * without moving `updatedAt` or recording events; `futureUpdatedAt` stamps every update's
   * `updatedAt` ahead of the clock (true: 5 minutes, or a number of minutes). Changed while running
   * by `POST /_sandbox/quirks?silentCascade=true&futureUpdatedAt=5`.
   */
  quirks?: { silentCascade?: boolean; futureUpdatedAt?: boolean | number };
}

/** A running sandbox. */
export interface Sandbox {
  /** Version-2 root, e.g. `http://127.0.0.1:PORT/api/v2`. */
  baseUrl: string;
  /** Host root serving `/oauth/authorize` and `/oauth/token`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** Access token with every scope, acting as the organization's owner (an admin). */
  token: string;
  /**
   * Stops the server, timers and deliveries; writes the data file one last time. With
   * `drainMs`, requests in progress get that long to finish (other processes may be using it).
   */
  close(opts?: { drainMs?: number }): Promise<void>;
  /** Every request received (most recent last; at most 10,000 kept, bodies cut after 16,384 characters). */
  requests: RecordedRequest[];
  /** Webhook deliveries sent (most recent last). */
  deliveries: DeliveryRecord[];
  /** The records (tests may read them directly). */
  store: Store;
  /** Issues an access token for a test: any user, any scopes, optionally as an application. */
  issueToken(opts: { userId?: number; scopes?: string[]; appId?: string | null; ttlSeconds?: number }): string;
  /** Resolves when in-flight webhook deliveries are done. */
  webhooksIdle(): Promise<void>;
  /** Writes the data file now (no-op without one). */
  save(): Promise<void>;
  /** Starts (ISO time) or ends (undefined) scheduled maintenance while running: every request gets 503. */
  setMaintenance(until: string | undefined): void;
}

/**
 * What tells this org from every other sandbox org (the root document's `instance`): the id it
 * was made with and, for an org file, where the file lies — so a copy made with `cp` is another
 * org, while the same file served again, on whatever port, is the same one.
 */
function instanceOf(org: OrgConfig, dataFile: string | undefined): string {
  if (dataFile === undefined) return org.instance!;
  return `${org.instance}@${createHash('sha256').update(resolve(dataFile)).digest('hex').slice(0, 16)}`;
}

/** The instant of `seedNow` in ms (the clock when unset); a bad value is a usage error, not a silent today. */
function seedInstant(v: string | number | undefined): number | undefined {
  if (v === undefined) return undefined;
  const ms = typeof v === 'number' ? v : Date.parse(v);
  if (!Number.isFinite(ms)) throw new UsageError(`sandbox: seedNow ${JSON.stringify(v)} is not a date-time (e.g. 2026-01-15T12:00:00Z)`);
  return ms;
}

/** Starts a sandbox. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const store = new Store();
  // Checked first, set once the org is seeded or loaded: the seed is written as the API would.
  const quirks = { ...store.quirks };
  const bad = opts.quirks ? applyQuirks(quirks, opts.quirks) : undefined;
  if (bad) throw new UsageError(`sandbox: ${bad}`);
  const auth = new AuthStore();
  let org = opts.org ?? defaultOrg();
  let ownerUserId = 1;
  const loaded = opts.dataFile ? readDataFile(opts.dataFile) : undefined;
  let newInstance = false;
  // The changes acknowledged after the file was last written, by a process killed since.
  const replayed = loaded ? replayChangeLog(opts.dataFile!, loaded) : 0;
  if (loaded) {
    try {
      store.restore(loaded.store);
      auth.restore(loaded.auth);
    } catch (e) {
      throw damagedDataFile(opts.dataFile!, e instanceof Error ? e.message : String(e));
    }
    org = loaded.org;
    ownerUserId = loaded.ownerUserId;
    // A data file written before orgs had an instance id: it gets one now, saved at once below.
    if (org.instance === undefined) {
      org = { ...org, instance: randomUUID() };
      newInstance = true;
    }
  } else {
    ownerUserId = seedOrg(store, opts.seed ?? DEFAULT_PROSPECTS, 42, opts.duplicates ?? 0, seedInstant(opts.seedNow)).ownerUserId;
    auth.init(ownerUserId, allScopes());
  }
  store.quirks = quirks;
  // A new org is a new instance (an in-memory one too: its records die with it).
  if (org.instance === undefined) org = { ...org, instance: randomUUID() };
  const instance = instanceOf(org, opts.dataFile);
  // Ids are reserved durably ahead of use: a killed owner's successor never reuses one.
  const reservations = opts.dataFile ? new IdReservations(opts.dataFile) : undefined;
  if (reservations) {
    store.raiseNextIds(reservations.floor());
    store.onNewId = (type, id) => reservations.use(type, id);
  }
  const log = opts.dataFile ? new ChangeLog(opts.dataFile, org.instance!, loaded?.seq ?? 0) : undefined;
  if (log) store.trackChanges();
  let authLogged = auth.version;
  const timers = new Set<NodeJS.Timeout>();
  let current: Principal | undefined;
  const core: Core = {
    store,
    auth,
    org,
    instance,
    limiter: new RateLimiter(opts.rateLimit ?? 10_000, Date.now, opts.rateWindowMs),
    baseUrl: '',
    authUrl: '',
    opts: {
      latencyMs: opts.latencyMs ?? 0,
      rateLimit: opts.rateLimit ?? 10_000,
      tokenIssueIntervalMs: opts.tokenIssueIntervalMs ?? 60_000,
      ...(opts.maintenanceUntil ? { maintenanceUntil: opts.maintenanceUntil } : {}),
      accessTokenTtlSeconds: opts.accessTokenTtlSeconds ?? 7200,
      recordLimit: 10_000,
      maxBodyBytes: opts.maxBodyBytes ?? MAX_BODY_BYTES,
      complianceStepMs: opts.complianceStepMs ?? 500,
      deliveryMs: opts.deliveryMs ?? 200,
    },
    rulesFor,
    ownerUserId,
    requests: [],
    later: (ms, fn) => {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
        // What a timer changed (a delivery, a compliance request's erasure) is logged now, not at
        // the next answer or save: a kill -9 in between would bring an erased prospect back. A
        // failed write leaves the changes to the next commit, which offers them again.
        try {
          core.commit();
        } catch {}
      }, ms);
      timers.add(t);
    },
    setPrincipal: (p) => {
      current = p;
    },
    commit: () => {
      if (!log) return;
      const c = store.takeChanges();
      const authMoved = auth.version !== authLogged;
      if (!c && !authMoved) return;
      const v = auth.version;
      log.append({
        ...(c?.put.length ? { put: c.put } : {}),
        ...(c?.del.length ? { del: c.del } : {}),
        ...(c && Object.keys(c.next).length ? { next: c.next } : {}),
        ...(c && Object.keys(c.meta).length ? { meta: c.meta } : {}),
        // The tokens the file holds, whole: they change at a login or a refresh, not per record.
        ...(authMoved ? { auth: auth.snapshot() } : {}),
      });
      // Only once written: changes not recorded are offered again by the next answer.
      store.clearChanges();
      authLogged = v;
    },
  };
  const stopEvents = recordEvents(store, () => current);
  const dispatcher = new WebhookDispatcher(store, { ...SPEC_TIMING, ...opts.webhookTiming });
  const snapshot = (): DataFile => {
    // Changes not logged yet are logged first: the file's `seq` then names every change it holds.
    core.commit();
    return { version: DATA_VERSION, seq: log?.seq ?? 0, ownerUserId, org: core.org, store: store.snapshot(), auth: auth.snapshot() };
  };
  const saver = opts.dataFile
    ? new Saver(
        opts.dataFile,
        snapshot,
        () => store.version + auth.version,
        250,
        (data) => log!.cut(data.seq!),
      )
    : undefined;
  if (opts.dataFile && (!loaded || newInstance || replayed)) {
    // Replayed changes are written at once, so that the log starts afresh.
    writeDataFileSync(opts.dataFile, snapshot());
    saver!.markWritten();
  } else if (saver && Object.keys(reservations!.floor()).length === 0) {
    // The file holds what was loaded, unless ids reserved by a run that was killed raised the
    // next ids above it: those are written at the end, before the reservations go.
    saver.markWritten();
  }
  // The file now holds every change of a log beside it (or that log is not this file's: another
  // org's, or one that follows a later file, a backup put back): the log starts afresh.
  log?.close();
  let lastSaved = store.version + auth.version;
  const listener = createListener(core);
  const server: Server = createServer((req, res) => {
    res.on('finish', () => {
      const v = store.version + auth.version;
      if (saver && v !== lastSaved) {
        lastSaved = v;
        saver.touch();
      }
    });
    listener(req, res);
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(listenError(err, opts.host ?? '127.0.0.1', opts.port ?? 0)));
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  core.authUrl = `http://${host}:${addr.port}`;
  core.baseUrl = `${core.authUrl}/api/v2`;
  const client = auth.clients[0]!;
  let closed = false;
  return {
    baseUrl: core.baseUrl,
    authUrl: core.authUrl,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    token: auth.adminToken,
    requests: core.requests,
    deliveries: dispatcher.deliveries,
    store,
    issueToken: ({ userId = ownerUserId, scopes = allScopes(), appId = null, ttlSeconds = 7200 }) =>
      auth.issueAccess(userId, appId, scopes, ttlSeconds).token,
    webhooksIdle: () => dispatcher.idle(),
    save: async () => {
      await saver?.flush();
    },
    setMaintenance: (until) => {
      if (until) core.opts.maintenanceUntil = until;
      else delete core.opts.maintenanceUntil;
    },
    close: async ({ drainMs = 0 } = {}) => {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      stopEvents();
      dispatcher.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if (drainMs <= 0) return server.closeAllConnections();
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), drainMs).unref();
      });
      // Written only when something changed since the file last held the org, or a token
      // expired (the file leaves expired tokens out).
      if (auth.holdsExpired()) await saver?.flush();
      else await saver?.flushChanged();
      log?.close();
      reservations?.release();
    },
  };
}

export type { AccessToken };

/** Why the server could not listen, naming the address and the fix (a raw `EADDRINUSE` says neither). */
function listenError(err: Error, host: string, port: number): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  // The code stays on the friendlier error: a caller that may take another port (the org's last
  // port, reused when free: local-sandbox/org-share.ts) falls back on EADDRINUSE.
  if (code === 'EADDRINUSE')
    return Object.assign(
      new UsageError(`sandbox: port ${port} is already in use (${where})`).hint(
        'stop what listens there, or choose another port: --port 0 picks a free one',
      ),
      { code },
    );
  if (code === 'EACCES')
    return new UsageError(`sandbox: not allowed to listen on ${where}`).hint(
      'ports below 1024 need privileges: use --port 0 (a free port) or one above 1023',
    );
  if (code === 'EADDRNOTAVAIL')
    return new UsageError(`sandbox: ${host} is not an address of this machine`).hint('use --host 127.0.0.1 (the default)');
  return err;
}
