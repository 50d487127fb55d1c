/** The program itself: version, help, `svc resources`, colour rules. */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { json, runSvc, tempDir } from '../helpers/run-svc.js';

const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const env = () => ({ SVC_CONFIG_DIR: tempDir() });

describe('svc', () => {
  it('--version prints the package version', async () => {
    const r = await runSvc(['--version'], { env: env() });
    expect(r).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('--help lists commands with examples on stdout', async () => {
    const r = await runSvc(['--help'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/prospects/);
    // Aliases are in each command's own help, not in the list.
    expect(r.stdout).toMatch(/^ {2}sequence-states +A prospect's enrolment/m);
    expect(r.stdout).not.toMatch(/sequenceStates/);
    expect(r.stdout).toMatch(/Examples:/);
  });

  it('resource help shows fields with marks, relationships, operations and examples', async () => {
    const r = await runSvc(['prospects', '--help'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\s+title\s+string\s+F S max 255$/m);
    expect(r.stdout).toMatch(/^\s+name\s+string\s+RO$/m);
    expect(r.stdout).toMatch(/account → account \(to-one\)/);
    expect(r.stdout).toMatch(/Operations: list, get, create, update, delete/);
    expect(r.stdout.match(/^\s+\$ svc prospects/gm)!.length).toBeGreaterThanOrEqual(2);
  });

  it('the camelCase alias works', async () => {
    const r = await runSvc(['sequenceStates', '--help'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/finish/);
    expect(r.stdout).toMatch(/^Also callable as: svc sequenceStates$/m);
  });
});

describe('svc resources', () => {
  it('-o json lists all 51 types with the spec table operations', async () => {
    const rows = json<{ type: string; command: string; alias: string; operations: string[]; actions: string[] }[]>(
      await runSvc(['resources', '-o', 'json'], { env: env() }),
    );
    expect(rows).toHaveLength(51);
    const by = Object.fromEntries(rows.map((r) => [r.alias, r]));
    expect(by.calls!.operations).toEqual(['list', 'get', 'create', 'delete']);
    expect(by.mailAliases!.operations).toEqual(['list', 'get']);
    expect(by.customDuties!.operations).toEqual(['create']);
    expect(by.duties!.operations).toEqual(['list']);
    expect(by.contentCategoryOwnerships!.operations).toEqual(['list', 'create', 'delete']);
    expect(by.prospects!.operations).toEqual(['list', 'get', 'create', 'update', 'delete']);
    expect(by.sequenceStates!.actions).toEqual(['finish', 'pause', 'resume']);
    expect(by.tasks!.actions.sort()).toEqual(['mark-complete', 'snooze']);
    expect(by.mailboxes!.actions.sort()).toEqual(['error-sync', 'test-send', 'test-sync']);
    expect(by.sequenceStates!.command).toBe('sequence-states');
  });

  it('prints a plain table to a pipe when asked', async () => {
    const r = await runSvc(['resources', '-o', 'table'], { env: env() });
    expect(r.stdout.split('\n')[0]).toMatch(/^COMMAND\s+OPERATIONS\s+ACTIONS/);
    expect(r.stdout).not.toMatch(/\x1b\[/);
  });
});
