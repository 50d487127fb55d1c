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
});
