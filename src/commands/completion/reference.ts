/**
 * The README's command reference, rendered from the same full command tree the completion
 * scripts come from (model.ts). Not part of the CLI: `npm run docs` (bin/docs.mjs) writes it
 * between the README's markers, and a unit test fails when the README drifts from it.
 */
import type { Argument, Command, Option } from 'commander';
import { RESOURCES, type ResourceType } from '../../registry/index.js';

/** First line of the generated part of the README. */
export const REFERENCE_BEGIN =
  '<!-- BEGIN COMMAND REFERENCE: generated from the command tree by `npm run docs`; edit the commands, not this text -->';
/** Last line of the generated part of the README. */
export const REFERENCE_END = '<!-- END COMMAND REFERENCE -->';

/** The resource command whose operations stand for all of them. */
const SAMPLE_RESOURCE = 'prospects';

function hidden(cmd: Command): boolean {
  return (cmd as unknown as { _hidden?: boolean })._hidden === true;
}

/** Text for a Markdown table cell. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** Plain text in Markdown: `<input>` is not a tag, `*.*` not emphasis (GitHub leaves `_` inside words alone). */
function prose(s: string): string {
  return html(s).replace(/\*/g, '\\*');
}

/** Text for inline HTML (the `<summary>` line). */
function html(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Inline code that survives backticks inside. */
function code(s: string): string {
  return s.includes('`') ? `\`\` ${s} \`\`` : `\`${s}\``;
}

/** What a command prints after its usage (`addHelpText('after', …)`): examples, notes. */
function afterHelp(cmd: Command): string {
  let text = '';
  // commander keeps help texts as listeners of its (untyped) help events.
  (cmd as unknown as NodeJS.EventEmitter).emit('afterHelp', { error: false, command: cmd, write: (s: string) => (text += s) });
  return text.replace(/^\n+|\s+$/g, '');
}

/**
 * The examples of a help text: its paragraphs that start with `Examples:`. The rest (notes,
 * limits, exit codes) is what `svc <command> --help` adds; the README's sections say it in prose.
 */
function examples(help: string): string {
  return help
    .split(/\n\n+/)
    .filter((p) => p.startsWith('Examples:'))
    .join('\n\n');
}

function optionRow(o: Option): string {
  const extra: string[] = [];
  if (o.argChoices) extra.push(`one of ${o.argChoices.join(', ')}`);
  if (o.defaultValue !== undefined && !o.negate && typeof o.defaultValue !== 'boolean') extra.push(`default: ${String(o.defaultValue)}`);
  const description = o.description + (extra.length ? ` (${extra.join('; ')})` : '');
  return `| ${cell(code(o.flags))} | ${cell(prose(description))} |`;
}

function argumentRow(a: Argument): string {
  const name = a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`;
  const extra = a.argChoices ? ` (one of ${a.argChoices.join(', ')})` : '';
  return `| ${cell(code(name))} | ${cell(prose((a.description || '') + extra))} |`;
}

/** The usage line, with the parent path (`svc auth status [options]`). */
function usage(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd.parent; c; c = c.parent) names.unshift(c.name());
  return [...names, cmd.name(), cmd.usage()].filter(Boolean).join(' ');
}

/** One command's block: usage, description, arguments, options and its help text's examples. */
function commandBody(cmd: Command, withNotes = true): string[] {
  const lines = [code(usage(cmd)), ''];
  const args = cmd.registeredArguments.filter((a) => a.description);
  if (args.length) lines.push('| argument | |', '|---|---|', ...args.map(argumentRow), '');
  const options = cmd.options.filter((o) => !o.hidden);
  if (options.length) lines.push('| option | |', '|---|---|', ...options.map(optionRow), '');
  const notes = withNotes ? examples(afterHelp(cmd)) : '';
  if (notes) lines.push('```text', notes, '```', '');
  return lines;
}

function details(summary: string, body: string[]): string[] {
  return ['<details>', `<summary>${summary}</summary>`, '', ...body, '</details>', ''];
}

function summaryOf(cmd: Command): string {
  return `<code>${html(usage(cmd).replace(/ \[options\]/, ''))}</code> — ${html(cmd.description())}`;
}

/** Every command path below `cmd` that does something (containers such as `auth` are skipped). */
function leaves(cmd: Command): Command[] {
  const out: Command[] = [];
  const own = cmd.options.some((o) => !o.hidden) || cmd.registeredArguments.length > 0 || cmd.commands.length === 0;
  if (own) out.push(cmd);
  for (const sub of cmd.commands) if (!hidden(sub)) out.push(...leaves(sub));
  return out;
}

/** Renders the reference (Markdown with collapsible sections) for a fully built program. */
export function renderReference(program: Command): string {
  const byCommand = new Map<string, ResourceType>(RESOURCES.map((rt) => [rt.command, rt]));
  const offered = (rt: ResourceType) => new Set<string>([...rt.operations, ...rt.actions.map((a) => a.command)]);
  const out: string[] = [];

  out.push('### Global options', '', 'Before or after the command.', '');
  out.push(
    '| option | |',
    '|---|---|',
    ...program.options.filter((o) => !o.hidden).map(optionRow),
    '| `-h, --help` | show help (also `svc help <command>`) |',
    '',
  );
  const notes = afterHelp(program);
  if (notes) out.push(...details('What <code>svc --help</code> adds: examples, environment, exit codes', ['```text', notes, '```', '']));

  out.push('### Commands', '');
  const commands = program.commands.filter((c) => !hidden(c));
  // Subcommands every resource type gets from the builder (export…) are shown once, for the sample.
  const generic = new Set((commands.find((c) => c.name() === SAMPLE_RESOURCE)?.commands ?? []).map((c) => c.name()));
  for (const top of commands) {
    const rt = byCommand.get(top.name());
    // Resource commands are listed in the table below; only their extra subcommands (webhook tools) here.
    const subjects = rt ? top.commands.filter((c) => !hidden(c) && !offered(rt).has(c.name()) && !generic.has(c.name())) : leaves(top);
    for (const cmd of subjects) out.push(...details(summaryOf(cmd), commandBody(cmd)));
  }

  out.push('### Resource commands', '');
  out.push(
    // The table's operations are the API's; `export` and `upsert` are svc's, said once here.
    `One command per resource type: the operations and actions the API allows for it, \`export\` if it lists, \`upsert\` if it creates and updates; \`svc <resource> --help\` lists its fields. Each operation's options are the same for every type: shown once, for \`${SAMPLE_RESOURCE}\`, below the table.`,
    '',
  );
  out.push('| command | alias | operations | actions (parameters) |', '|---|---|---|---|');
  for (const top of commands) {
    const rt = byCommand.get(top.name());
    if (!rt) continue;
    const actions = rt.actions.map((a) => (a.params.length ? `${a.command} (${a.params.join(', ')})` : a.command)).join(', ');
    out.push(`| ${code(top.name())} | ${top.aliases().map(code).join(', ')} | ${rt.operations.join(', ')} | ${cell(prose(actions))} |`);
  }
  out.push('');
  const sample = commands.find((c) => c.name() === SAMPLE_RESOURCE);
  if (sample) {
    for (const op of sample.commands.filter((c) => !hidden(c))) out.push(...details(summaryOf(op), commandBody(op, false)));
  }
  // One action stands for all: they share their one option.
  const withAction = commands.map((c) => ({ c, rt: byCommand.get(c.name()) })).find(({ rt }) => rt?.actions.length);
  if (withAction?.rt) {
    const action = withAction.c.commands.find((c) => c.name() === withAction.rt!.actions[0]!.command);
    if (action) out.push(...details(`${summaryOf(action)} (every action takes the same option)`, commandBody(action, false)));
  }
  return out.join('\n').replace(/\n+$/, '\n');
}

/** `readme` with the text between the markers replaced by `reference`. */
export function spliceReference(readme: string, reference: string): string {
  const begin = readme.indexOf(REFERENCE_BEGIN);
  const end = readme.indexOf(REFERENCE_END);
  if (begin < 0 || end < begin) throw new Error(`README.md has no "${REFERENCE_BEGIN}" … "${REFERENCE_END}" markers`);
  return `${readme.slice(0, begin + REFERENCE_BEGIN.length)}\n\n${reference}\n${readme.slice(end)}`;
}
