/**
 * The README's command reference is generated from the command tree (`npm run docs`): it must
 * match what the tree renders now, and name every command the completion scripts know.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandReference, spliceReference } from '../../src/cli/docs.js';
import { REFERENCE_BEGIN, REFERENCE_END } from '../../src/commands/completion/reference.js';
import { ROOT } from '../helpers/run-svc.js';

const readme = () => fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

describe('README command reference', () => {
  it('is what `npm run docs` generates from the command tree', () => {
    const text = readme();
    expect(text).toContain(REFERENCE_BEGIN);
    expect(text).toContain(REFERENCE_END);
    expect(spliceReference(text, commandReference()) === text, 'README.md: the command reference is out of date: run `npm run docs`').toBe(
      true,
    );
  });

  it('names every command and option of the tree', () => {
    const ref = commandReference();
    for (const cmd of [
      'svc resources',
      'svc api',
      'svc enroll',
      'svc login',
      'svc logout',
      'svc auth status',
      'svc auth token',
      'svc profiles use',
      'svc sandbox',
      'svc schema show',
      'svc webhooks listen',
      'svc webhooks verify',
      'svc webhooks trigger',
      'svc webhooks cleanup',
      'svc completion',
      'svc prospects list',
      'svc prospects create',
    ]) {
      expect(ref, cmd).toContain(`<code>${cmd}`);
    }
    for (const option of [
      '--timeout <seconds>',
      '--new-filter-syntax',
      '--shard <i/n>',
      '--login-timeout <seconds>',
      '--maintenance-until',
      '-p, --param <name=value>',
    ])
      expect(ref, option).toContain(option);
    expect(ref).toMatch(/\| `sequence-states` \| `sequenceStates` \| list, get, create, delete \| finish, pause, resume \|/);
  });

  it('replaces only the text between the markers, and says when they are missing', () => {
    const before = `# x\n\n${REFERENCE_BEGIN}\nold\n${REFERENCE_END}\n\n## after\n`;
    expect(spliceReference(before, 'new\n')).toBe(`# x\n\n${REFERENCE_BEGIN}\n\nnew\n\n${REFERENCE_END}\n\n## after\n`);
    expect(() => spliceReference('# x\n', 'new\n')).toThrow(/markers/);
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

describe('README size', () => {
  it('stays under 110 KB (110,000 bytes): the detail lives in docs/ and beside the code, the notes in --help', () => {
    expect(Buffer.byteLength(readme())).toBeLessThanOrEqual(110_000);
  });
});

describe('README links', () => {
  it('every #anchor names a heading and every linked file exists', () => {
    const text = readme().replace(/```[\s\S]*?```/g, '');
    const anchors = new Set<string>();
    for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
      const base = slug(m[1]!);
      let a = base;
      for (let i = 1; anchors.has(a); i++) a = `${base}-${i}`;
      anchors.add(a);
    }
    const broken: string[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      if (target.startsWith('#')) {
        if (!anchors.has(target.slice(1))) broken.push(target);
      } else if (!fs.existsSync(path.join(ROOT, target.split('#')[0]!))) broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});

describe('renderReference', () => {
  it('renders usage, arguments, options and help notes of each command, escaped for Markdown', async () => {
    const { Command } = await import('commander');
    const { renderReference } = await import('../../src/commands/completion/reference.js');
    const program = new Command('svc').option('--timeout <seconds>', 'per-request timeout');
    const tool = program.command('tool').description('a container');
    tool
      .command('run')
      .description('runs <things> | fast')
      .argument('<file>', 'input file')
      .option('--events <list>', 'events (default *.*)')
      .option('--port <n>', 'port', '9797')
      .addHelpText('after', '\nExamples:\n  $ svc tool run x\n');
    const ref = renderReference(program);
    expect(ref).toContain('| `--timeout <seconds>` | per-request timeout |');
    expect(ref).toContain('<summary><code>svc tool run &lt;file&gt;</code> — runs &lt;things&gt; | fast</summary>');
    expect(ref).toContain('`svc tool run [options] <file>`');
    expect(ref).toContain('| `<file>` | input file |');
    expect(ref).toContain('| `--events <list>` | events (default \\*.\\*) |');
    expect(ref).toContain('| `--port <n>` | port (default: 9797) |');
    expect(ref).toContain('```text\nExamples:\n  $ svc tool run x\n```');
    // A command that only groups others gets no section of its own.
    expect(ref).not.toContain('<code>svc tool</code>');
  });

  it('keeps the examples of a help text and leaves its notes to --help', async () => {
    const { Command } = await import('commander');
    const { renderReference } = await import('../../src/commands/completion/reference.js');
    const program = new Command('svc');
    program
      .command('run')
      .description('runs')
      .option('--port <n>', 'port')
      .addHelpText('after', '\nWhat run does, at length.\n\nExamples:\n  $ svc run --port 1\n  $ svc run\n\nExit 3 when refused.\n');
    const ref = renderReference(program);
    expect(ref).toContain('```text\nExamples:\n  $ svc run --port 1\n  $ svc run\n```');
    expect(ref).not.toContain('at length');
    expect(ref).not.toContain('Exit 3');
  });
});
