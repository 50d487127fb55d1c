/**
 * The sandbox's OpenAPI document is fit to import into API tools (Postman, Insomnia, code
 * generators): `redocly lint` with its default `recommended` rules reports no errors, and every
 * operation has a summary, a unique operationId and a declared security scheme.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Client } from '../helpers/sandbox.js';

const run = promisify(execFile);
const redocly = path.resolve('node_modules/.bin/redocly');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

let c: Client;
let served: any;
let dir: string;
beforeAll(async () => {
  c = await start({ seed: 3 });
  const r = await c.get('/schema/openapi.json', null);
  expect(r.status).toBe(200);
  served = r.body;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-oas-'));
});
afterAll(() => {
  c.sb.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** `redocly lint` (recommended rules, no config file) on a document: its error problems. */
async function lint(doc: unknown): Promise<{ ruleId: string; message: string }[]> {
  const file = path.join(dir, `doc-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify(doc));
  const out = await run(redocly, ['lint', file, '--format=json', '--max-problems=1000'], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  }).catch((err) => err as { stdout: string });
  const report = JSON.parse(out.stdout) as { problems: { ruleId: string; message: string; severity: string }[] };
  return report.problems.filter((p) => p.severity === 'error');
}

function operations(doc: any): { path: string; method: string; op: any }[] {
  return Object.entries(doc.paths).flatMap(([p, item]: [string, any]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ path: p, method: m, op: item[m] })),
  );
}

describe('the served OpenAPI document in API tools', () => {
  it('passes redocly lint with the recommended rules (no errors)', async () => {
    expect(await lint(served)).toEqual([]);
  }, 60_000);

  it('fails the same lint once an operation loses its summary (the check has teeth)', async () => {
    const broken = structuredClone(served);
    delete broken.paths['/prospects'].get.summary;
    const errors = await lint(broken);
    expect(errors.map((e) => e.ruleId)).toEqual(['operation-summary']);
  }, 60_000);

  it('gives every operation a summary, a unique operationId and declared security', () => {
    const ops = operations(served);
    expect(ops.length).toBeGreaterThan(200);
    const schemes = Object.keys(served.components.securitySchemes);
    const ids = new Set<string>();
    for (const { path: p, method, op } of ops) {
      expect(op.summary, `${method} ${p}`).toMatch(/^[A-Z][a-z]+ \S/);
      expect(ids.has(op.operationId), `${op.operationId} twice`).toBe(false);
      ids.add(op.operationId);
      expect(Array.isArray(op.security), `${method} ${p} security`).toBe(true);
      for (const req of op.security) for (const name of Object.keys(req)) expect(schemes).toContain(name);
    }
    expect(served.paths['/prospects'].get.summary).toBe('List prospects');
    expect(served.paths['/sequenceStates/{id}'].delete.summary).toBe('Delete a sequence state');
    expect(served.paths['/users/{id}'].get.summary).toBe('Get a user');
  });
});
