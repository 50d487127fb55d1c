/**
 * What the dedupe tests share: the org seeded on one fixed day, the sandbox's JSON:API called
 * straight (to set up and to check, apart from svc), a child killed once a condition holds, and
 * the count of each duplicate's copies by the `externalId` a re-create carries back.
 */
import { expect } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { tempDir } from './run-svc.js';
import { sandboxWithEnv, type TestSandbox } from './sandbox.js';

/**
 * The instant the sandbox seeds the org as of (the seed dates its history from its day): the
 * same data every run. SVC_DEDUPE_UNDO_NOW seeds it as of another instant.
 */
export const DEDUPE_SEED_NOW = process.env.SVC_DEDUPE_UNDO_NOW ?? '2026-11-28T12:00:00Z';

/**
 * A sandbox of 200 prospects with `duplicates` planted, seeded on {@link DEDUPE_SEED_NOW}, no rate
 * limit to speak of; `env` points svc at it with a config directory of its own (`dir`).
 */
export async function plantedOrg(
  duplicates: number,
  prefix: string,
  opts: SandboxOptions = {},
): Promise<{ sb: TestSandbox; env: Record<string, string>; dir: string }> {
  const { sb, env } = await sandboxWithEnv({ seed: 200, duplicates, rateLimit: 10_000_000, seedNow: DEDUPE_SEED_NOW, ...opts });
  const dir = tempDir(prefix);
  return { sb, env: { ...env(), SVC_CONFIG_DIR: dir }, dir };
}

/** Makes `n` calls on a prospect (more activity: the survivor rule picks it). */
export async function addCalls(sb: TestSandbox, prospectId: string | number, n: number): Promise<void> {
  const api = sandboxApi(sb);
  for (let i = 0; i < n; i++) {
    const call = await api('POST', 'calls', {
      data: {
        type: 'call',
        attributes: { direction: 'outbound', outcome: 'Answered' },
        relationships: { prospect: { data: { type: 'prospect', id: String(prospectId) } }, user: { data: { type: 'user', id: 1 } } },
      },
    });
    expect(call.status, JSON.stringify(call.body)).toBe(201);
  }
}

/** A request to the sandbox's API with its token: status and parsed body. */
export function sandboxApi(sb: TestSandbox) {
  return async (method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const r = await fetch(`${sb.baseUrl}/${p}`, {
      method,
      headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/vnd.api+json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
}

/** How many prospects of the sandbox carry each `externalId`. */
export function externalIdCounts(sb: TestSandbox): Map<string, number> {
  const held = new Map<string, number>();
  for (const rec of sb.store.table('prospect').values()) {
    const x = String(rec.attributes['externalId']);
    held.set(x, (held.get(x) ?? 0) + 1);
  }
  return held;
}
