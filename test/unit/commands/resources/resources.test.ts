/** `svc resources`, in-process: the 51 types of the spec table with their operations and actions. */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../../../helpers/run-svc.js';

// No base URL or token: the list comes from the registry alone.
const env = () => baseEnv({ SVC_CONFIG_DIR: tempDir() });

describe('svc resources', () => {
  it('-o json lists all 51 types with the spec table operations', async () => {
    const r = await runInProcess(['resources', '-o', 'json'], env());
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { type: string; command: string; alias: string; operations: string[]; actions: string[] }[];
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
    const r = await runInProcess(['resources', '-o', 'table'], env());
    expect(r.stdout.split('\n')[0]).toMatch(/^COMMAND\s+OPERATIONS\s+ACTIONS/);
    expect(r.stdout).not.toMatch(/\x1b\[/);
  });
});
