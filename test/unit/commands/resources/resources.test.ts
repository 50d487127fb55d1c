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

  it('fits an 80-column terminal: actions wrap at their commas under their column', async () => {
    // A trial: the mailboxes, sequence-states and tasks rows ran to 82–86 columns and wrapped.
    const r = await runInProcess(['resources', '-o', 'table'], env(), { columns: 80 });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => [...l].length > 80)).toEqual([]);
    const at = lines.findIndex((l) => l.startsWith('mailboxes '));
    const col = lines[0]!.indexOf('ACTIONS');
    const actions = [lines[at]!.slice(col)];
    for (let i = at + 1; lines[i]!.startsWith(' '); i++) actions.push(lines[i]!.slice(col));
    expect(actions.join('').split(',').sort()).toEqual(['error-sync', 'test-send', 'test-sync']);
    expect(lines.find((l) => l.startsWith('prospects '))).toMatch(/^prospects\s+list,get,create,update,delete$/);
  });
});
