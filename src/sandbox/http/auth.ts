/**
 * Tokens of the sandbox: the registered OAuth client, access and refresh tokens, authorization
 * codes. Persisted with the data file so that a login survives a restart.
 */
import { randomBytes } from 'node:crypto';
import { errors } from '../errors.js';

/** An issued access token. */
export interface AccessToken {
  token: string;
  userId: number;
  /** OAuth client that obtained it; null for the sandbox's printed token. */
  appId: string | null;
  scopes: string[];
  /** Epoch ms. */
  createdAt: number;
  expiresAt: number;
}

/** A refresh token; single use (rotated on every refresh). */
interface RefreshToken {
  token: string;
  userId: number;
  appId: string;
  scopes: string[];
  createdAt: number;
  /** Redirect URI of the grant; a refresh that sends one must match it. */
  redirectUri?: string;
}

/** A pending authorization code. */
export interface AuthCode {
  code: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  userId: number;
  expiresAt: number;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/** A registered application. */
interface OAuthClient {
  clientId: string;
  clientSecret: string;
  name: string;
}

/** Persisted part of the token store. */
export interface AuthSnapshot {
  clients: OAuthClient[];
  adminToken: string;
  access: AccessToken[];
  refresh: RefreshToken[];
}

/** Opaque random token text. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** The printed token lives this long (ten years): "long-lived" for a local tool. */
const ADMIN_TTL_MS = 10 * 365 * 24 * 3600 * 1000;

/** Token store. */
export class AuthStore {
  clients: OAuthClient[] = [];
  adminToken = '';
  access = new Map<string, AccessToken>();
  refresh = new Map<string, RefreshToken>();
  codes = new Map<string, AuthCode>();
  /** user id → epoch ms of the last access token issued by /oauth/token. */
  lastIssued = new Map<number, number>();
  version = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Creates the client and the printed admin token (first start). */
  init(ownerUserId: number, scopes: string[]): void {
    this.clients = [{ clientId: 'sandbox-' + randomToken(9), clientSecret: randomToken(24), name: 'svc sandbox client' }];
    this.adminToken = this.issueAccess(ownerUserId, null, scopes, ADMIN_TTL_MS / 1000).token;
  }

  /** Makes and stores an access token. */
  issueAccess(userId: number, appId: string | null, scopes: string[], ttlSeconds: number): AccessToken {
    const t: AccessToken = {
      token: randomToken(),
      userId,
      appId,
      scopes,
      createdAt: this.now(),
      expiresAt: this.now() + ttlSeconds * 1000,
    };
    this.access.set(t.token, t);
    this.version++;
    return t;
  }

  /**
   * Makes a refresh token, dropping the oldest ones beyond `max` for that user and application
   * (the spec allows at most 100 at any time per pair).
   */
  issueRefresh(userId: number, appId: string, scopes: string[], max = 100): RefreshToken {
    const r: RefreshToken = { token: randomToken(), userId, appId, scopes, createdAt: this.now() };
    this.refresh.set(r.token, r);
    const mine = [...this.refresh.values()].filter((x) => x.userId === userId && x.appId === appId);
    for (const old of mine.slice(0, Math.max(0, mine.length - max))) this.refresh.delete(old.token);
    this.version++;
    return r;
  }

  /** Resolves a bearer token or throws 401. */
  authenticate(header: string | undefined): AccessToken {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!m) throw errors.unauthorized('Missing bearer token: send Authorization: Bearer <ACCESS_TOKEN>.');
    const t = this.access.get(m[1]!);
    if (!t) throw errors.unauthorized('The access token is invalid or has been revoked.');
    if (t.expiresAt <= this.now()) throw errors.unauthorized('The access token has expired; refresh it.');
    return t;
  }

  client(clientId: string): OAuthClient | undefined {
    return this.clients.find((c) => c.clientId === clientId);
  }

  /** Whether an access token has expired: {@link snapshot} leaves those out. */
  holdsExpired(): boolean {
    const now = this.now();
    for (const t of this.access.values()) if (t.expiresAt <= now) return true;
    return false;
  }

  snapshot(): AuthSnapshot {
    const now = this.now();
    return {
      clients: this.clients,
      adminToken: this.adminToken,
      access: [...this.access.values()].filter((t) => t.expiresAt > now),
      refresh: [...this.refresh.values()],
    };
  }

  restore(s: AuthSnapshot): void {
    this.clients = s.clients;
    this.adminToken = s.adminToken;
    this.access = new Map(s.access.map((t) => [t.token, t]));
    this.refresh = new Map(s.refresh.map((t) => [t.token, t]));
  }
}
