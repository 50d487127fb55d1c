/**
 * The state shared by the sandbox's HTTP layers: store, tokens, organization, limits, timers.
 * Everything hangs off one object per sandbox instance (no module-level state), so several
 * sandboxes can run in one process (tests do).
 */
import type { AuthStore } from './auth.js';
import type { OrgConfig } from '../data/org.js';
import type { RateLimiter } from './rate-limit.js';
import type { Principal, RuleContext, RulesFor } from '../rules/types.js';
import type { Store } from '../data/store.js';

/** One request as the sandbox saw it (tests inspect these). */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: { raw: string; parsed: Record<string, string | string[]> };
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Response status. */
  status?: number;
}

/** Resolved options. */
interface CoreOptions {
  latencyMs: number;
  rateLimit: number;
  tokenIssueIntervalMs: number;
  maintenanceUntil?: string;
  accessTokenTtlSeconds: number;
  /** Largest request body of the version-2 endpoints (413 beyond). */
  maxBodyBytes: number;
  /** Keep at most this many recorded requests (oldest dropped). */
  recordLimit: number;
  complianceStepMs: number;
  deliveryMs: number;
}

/** The shared state. */
export interface Core {
  store: Store;
  auth: AuthStore;
  org: OrgConfig;
  /** This org among sandbox orgs (see `instanceOf` in index.ts), in the root document. */
  instance: string;
  limiter: RateLimiter;
  /** `http://host:port/api/v2`. */
  baseUrl: string;
  /** `http://host:port`. */
  authUrl: string;
  opts: CoreOptions;
  rulesFor: RulesFor;
  /** The organization's owner, whom the printed token and the consent page act for. */
  ownerUserId: number;
  requests: RecordedRequest[];
  /**
   * The body of `GET /schema/openapi.json`, made on its first request: it depends on the base
   * URL alone, and every svc run with an empty schema cache asks for it (~300 KB to build).
   */
  openApiBody?: string;
  later(ms: number, fn: () => void): void;
  /** Tells the event recorder who is acting (set for the duration of a request). */
  setPrincipal(p: Principal | undefined): void;
  /**
   * Makes the changes so far durable (the change log of an org file) before an answer leaves;
   * throws when they cannot be recorded.
   */
  commit(): void;
}

/** The path prefix of version 2. */
export const BASE_PATH = '/api/v2';

/** A rule context for a request (or for automation, acting as the owner). */
export function ruleContext(core: Core, principal: Principal): RuleContext {
  return {
    store: core.store,
    principal,
    now: () => core.store.now(),
    later: (ms, fn) => core.later(ms, fn),
    timing: { complianceStepMs: core.opts.complianceStepMs, deliveryMs: core.opts.deliveryMs },
  };
}

/** The principal of a token. */
export function principalOf(core: Core, header: string | undefined): Principal {
  const t = core.auth.authenticate(header);
  const app = t.appId ? core.auth.client(t.appId) : undefined;
  return {
    userId: t.userId,
    appId: t.appId,
    appName: app?.name ?? null,
    scopes: new Set(t.scopes),
    admin: t.appId === null && t.userId === core.ownerUserId,
  };
}
