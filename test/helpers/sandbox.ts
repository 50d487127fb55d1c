/**
 * The one sandbox helper of the tests: an in-process sandbox for a test file, with the env that
 * points `bin/svc` at it (e2e), or with a small JSON:API client (the sandbox's own tests).
 */
import fs from 'node:fs';
import path from 'node:path';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { tempDir } from './run-svc.js';

export type TestSandbox = Sandbox;

/** A sandbox on a random port plus an env for `runSvc` with its token and a fresh config dir. */
export async function sandboxWithEnv(opts: SandboxOptions = {}): Promise<{ sb: TestSandbox; env: () => Record<string, string> }> {
  const sb = await startSandbox({ port: 0, ...opts });
  return {
    sb,
    env: () => ({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: sb.baseUrl, SVC_AUTH_URL: sb.authUrl, SVC_TOKEN: sb.token }),
  };
}

/**
 * Announces `sb` in `<configDir>/data/sandbox.json` as a running `svc sandbox` announces itself
 * (this test process stands in for it): `svc --sandbox` and the profiles of a local sandbox use it.
 */
export function announceSandbox(configDir: string, sb: TestSandbox): void {
  const data = path.join(configDir, 'data');
  fs.mkdirSync(data, { recursive: true, mode: 0o700 });
  const state = {
    pid: process.pid,
    baseUrl: sb.baseUrl,
    authUrl: sb.authUrl,
    token: sb.token,
    clientId: sb.clientId,
    clientSecret: sb.clientSecret,
  };
  fs.writeFileSync(path.join(data, 'sandbox.json'), JSON.stringify(state), { mode: 0o600 });
}

/** Requests the sandbox received for a collection path since a mark (`sb.requests.length`). */
export function received(sb: TestSandbox, since: number, path?: string) {
  return sb.requests.slice(since).filter((r) => !path || r.path === `/api/v2/${path}` || r.path.startsWith(`/api/v2/${path}/`));
}

export const JSON_API = 'application/vnd.api+json';

/** A response with its parsed body (null for an empty one). */
export interface Res {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** A client bound to a sandbox and a token. */
export interface Client {
  sb: Sandbox;
  req(method: string, path: string, opts?: { body?: unknown; token?: string | null; contentType?: string; raw?: string }): Promise<Res>;
  get(path: string, token?: string | null): Promise<Res>;
  post(path: string, body?: unknown, token?: string | null): Promise<Res>;
  patch(path: string, body: unknown, token?: string | null): Promise<Res>;
  del(path: string, token?: string | null): Promise<Res>;
}

/** Starts a sandbox (seed 20) and returns a client for it. */
export async function start(opts: SandboxOptions = {}): Promise<Client> {
  const sb = await startSandbox({ port: 0, seed: 20, ...opts });
  const req: Client['req'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = {};
    const token = o.token === undefined ? sb.token : o.token;
    if (token !== null) headers['Authorization'] = `Bearer ${token}`;
    let body: string | undefined;
    if (o.raw !== undefined || o.body !== undefined) {
      body = o.raw ?? JSON.stringify(o.body);
      headers['Content-Type'] = o.contentType ?? JSON_API;
    }
    const url = path.startsWith('http') ? path : sb.baseUrl + path;
    const r = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual' });
    const text = await r.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: r.status, headers: r.headers, body: parsed, text };
  };
  return {
    sb,
    req,
    get: (p, token) => req('GET', p, { token }),
    post: (p, body, token) => req('POST', p, { body, token }),
    patch: (p, body, token) => req('PATCH', p, { body, token }),
    del: (p, token) => req('DELETE', p, { token }),
  };
}

/** A JSON:API create/update body. */
export function doc(
  type: string,
  attributes: Record<string, unknown> = {},
  relationships: Record<string, unknown> = {},
  id?: number | string,
): unknown {
  return { data: { type, ...(id !== undefined ? { id } : {}), attributes, relationships } };
}

/** A to-one relationship object. */
export function one(type: string, id: number | null, meta?: Record<string, unknown>): unknown {
  return { data: id === null ? null : { type, id }, ...(meta ? { meta } : {}) };
}

/** Waits until `fn` is truthy (polling). */
export async function until<T>(fn: () => Promise<T> | T, timeoutMs = 3000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
