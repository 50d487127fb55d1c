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

type Problem = { ruleId: string; message: string };

/**
 * `redocly lint` (recommended rules, no config file) on documents, in one run (its start-up is
 * most of a lint): each document's error problems, in order. The CLI prints one JSON report per
 * file, one after the other.
 */
async function lint(...docs: unknown[]): Promise<Problem[][]> {
  const files = docs.map((doc, i) => {
    const file = path.join(dir, `doc-${i}-${Math.random().toString(36).slice(2)}.json`);
    fs.writeFileSync(file, JSON.stringify(doc));
    return file;
  });
  const out = await run(redocly, ['lint', ...files, '--format=json', '--max-problems=1000'], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  }).catch((err) => err as { stdout: string });
  // A report ends with a `}` at the start of a line; the next one begins right after it.
  const reports = out.stdout
    .replace(/^\}\s*\{/gm, '}\n\0{')
    .split('\0')
    .map((r) => JSON.parse(r) as { problems: (Problem & { severity: string })[] });
  expect(reports).toHaveLength(docs.length);
  return reports.map((r) => r.problems.filter((p) => p.severity === 'error'));
}

function operations(doc: any): { path: string; method: string; op: any }[] {
  return Object.entries(doc.paths).flatMap(([p, item]: [string, any]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ path: p, method: m, op: item[m] })),
  );
}

describe('the served OpenAPI document in API tools', () => {
  /** The served document and one whose operation lost its summary, linted in one run. */
  let linted: Promise<Problem[][]> | undefined;
  const lintBoth = () => {
    const broken = structuredClone(served);
    delete broken.paths['/prospects'].get.summary;
    linted ??= lint(served, broken);
    return linted;
  };

  it('passes redocly lint with the recommended rules (no errors)', async () => {
    expect((await lintBoth())[0]).toEqual([]);
  }, 60_000);

  it('fails the same lint once an operation loses its summary (the check has teeth)', async () => {
    const errors = (await lintBoth())[1]!;
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
