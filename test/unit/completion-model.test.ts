import { Argument, Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildCompletionModel, pathKey, resourceNames } from '../../src/commands/completion/model.js';
import { resourceByType } from '../../src/registry/index.js';

describe('completion model', () => {
  it('reads commands, aliases, options with value kinds and positional choices from commander', () => {
    const program = new Command('svc').option('-o, --output <f>', 'fmt').option('-v, --verbose', 'trace');
    const prospects = program.command('prospects').alias('prospectz').description('people');
    prospects.command('list').option('-f, --filter <e>', 'f').option('--limit <n>', 'n').option('--all', 'a');
    program.command('secret', { hidden: true });
    program
      .command('completion')
      .argument('<shell>')
      .addArgument(new Argument('[x]').choices(['a', 'b']));
    const m = buildCompletionModel(program);
    expect(m.paths[''].subcommands.map((s) => s.name)).toEqual(['prospects', 'completion', 'help']);
    expect(m.aliases).toEqual({ prospectz: 'prospects' });
    expect(m.paths['prospects list']!.options).toEqual([
      { flags: ['-f', '--filter'], description: 'f', value: 'filter' },
      { flags: ['--limit'], description: 'n', value: 'none' },
      { flags: ['--all'], description: 'a' },
    ]);
    expect(m.paths[''].options.map((o) => o.flags.join('|'))).toEqual(['-o|--output', '-v|--verbose', '-h|--help']);
    expect(m.paths['completion']!.args).toEqual(['none', 'choices:0']);
    expect(m.choices).toEqual([['a', 'b']]);
    expect(m.resources.prospects?.filter).toContain('title');
    expect(m.paths.secret).toBeUndefined();
  });

  it('lists names by what each option accepts', () => {
    const n = resourceNames(resourceByType('prospect')!);
    expect(n.filter).toEqual(expect.arrayContaining(['id', 'title', 'emails', 'account.id']));
    expect(n.filter).not.toContain('timeZoneIana');
    expect(n.sort).not.toContain('emails');
    expect(n.attr).not.toContain('createdAt');
    expect(n.fields).toContain('createdAt');
    expect(n.rel).not.toContain('creator');
    expect(n.include).toContain('creator');
    expect(pathKey('')).toBe('root');
    expect(pathKey('sequence-states list')).toBe('sequence_states__list');
  });

  it('knows the values handlers check, <file> options, --data and --json', () => {
    const program = new Command('svc').option('--json [fields]', 'fields').option('--timeout <seconds>', 's');
    program.command('enroll').option('--by <key>', 'id or email').option('--report <file>', 'r');
    program.command('report').command('mailings').option('--by <key>', 'k').option('--html <file>', 'page');
    const prospects = program.command('prospects');
    prospects.command('create').option('-d, --data <json>', 'body');
    prospects.command('export').option('--format <fmt>', 'f');
    prospects.command('upsert').option('--match <attr>', 'm');
    program.command('config').command('set').argument('<key>').argument('<value>');
    const m = buildCompletionModel(program);
    const value = (path: string, flag: string) => m.paths[path]!.options.find((o) => o.flags.includes(flag))!.value;
    const choices = (kind: string | undefined) => m.choices[Number(String(kind).replace('choices:', ''))];
    expect(choices(value('enroll', '--by'))).toEqual(['id', 'email']);
    expect(choices(value('report mailings', '--by'))).toEqual(['day', 'week', 'mailbox', 'sequence']);
    expect(choices(value('prospects export', '--format'))).toEqual(['csv', 'ndjson']);
    expect(value('report mailings', '--html')).toBe('file');
    expect(value('enroll', '--report')).toBe('file');
    expect(value('prospects create', '--data')).toBe('data');
    expect(value('prospects upsert', '--match')).toBe('match');
    expect(value('', '--json')).toBe('?fields');
    expect(value('', '--timeout')).toBe('none');
    expect(choices(m.paths['config set']!.args[0])).toEqual(['output', 'pageSize', 'concurrency', 'appUrl']);
    expect(m.paths['config set']!.args[1]).toBe('none');
    expect(m.resources.prospects?.match).toEqual(expect.arrayContaining(['id', 'emails', 'title']));
  });
});
