/**
 * Help text, in-process: `svc --help` lists the commands (aliases only in each command's own
 * help) with examples; a resource's help shows its fields with marks, relationships, operations
 * and examples, also under its camelCase alias. Nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../../../helpers/in-process-cli.js';
import { baseEnv, tempDir } from '../../../helpers/run-svc.js';

// No base URL or token: help must need neither.
const env = () => baseEnv({ SVC_CONFIG_DIR: tempDir() });

describe('svc --help', () => {
  it('lists commands with examples on stdout', async () => {
    const r = await runInProcess(['--help'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/prospects/);
    // Aliases are in each command's own help, not in the list.
    expect(r.stdout).toMatch(/^ {2}sequence-states +A prospect's enrolment/m);
    expect(r.stdout).not.toMatch(/sequenceStates/);
    expect(r.stdout).toMatch(/Examples:/);
  });
});

describe('resource help', () => {
  it('shows fields with marks, relationships, operations and examples', async () => {
    const r = await runInProcess(['prospects', '--help'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\s+title\s+string\s+F S max 255$/m);
    expect(r.stdout).toMatch(/^\s+name\s+string\s+RO$/m);
    expect(r.stdout).toMatch(/account → account \(to-one\)/);
    expect(r.stdout).toMatch(/^Operations: list, export, get, create, update, upsert, delete$/m);
    expect(r.stdout.match(/^\s+\$ svc prospects/gm)!.length).toBeGreaterThanOrEqual(2);
  });

  it('the camelCase alias works', async () => {
    const r = await runInProcess(['sequenceStates', '--help'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/finish/);
    expect(r.stdout).toMatch(/^Also callable as: svc sequenceStates$/m);
  });
});

describe('the operations a type offers', () => {
  /** The names of the `Commands:` section of a help text. */
  const commandsOf = (help: string) =>
    [
      ...help
        .split('\nCommands:\n')[1]!
        .split('\n\n')[0]!
        .matchAll(/^ {2}([a-z-]+)/gm),
    ].map((m) => m[1]!);

  // `upsert` was missing from both lists (a new user's trial): they were written apart from the
  // subcommands. Types with actions (tasks) and with tools of their own (webhooks) included.
  it.each([['prospects'], ['calls'], ['tasks'], ['webhooks'], ['sequence-states']])(
    '%s: its help and its unknown-operation error name every subcommand',
    async (type) => {
      const help = await runInProcess([type, '--help'], env(), { columns: 200 });
      const commands = commandsOf(help.stdout);
      expect(commands.length).toBeGreaterThan(2);
      const line = /^Operations: (.*)$/m.exec(help.stdout)![1]!;
      const [ops, actions = ''] = line.split('; actions: ');
      expect([...ops!.split(', '), ...(actions ? actions.split(', ') : [])].sort()).toEqual([...commands].sort());
      const r = await runInProcess([type, 'lst'], env());
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`: it offers ${commands.join(', ')}\n$`));
    },
  );
});
