/**
 * What shell completion knows, read from the commander tree and the registry: commands,
 * subcommands, options (and which take values, and what values), positional arguments, and per
 * resource command the attribute names that fit after --filter, --sort, --attr, --fields,
 * --include and --rel. The shell scripts are rendered from this (bash.ts, zsh.ts, fish.ts).
 */
import type { Command, Option } from 'commander';
import { OUTPUT_FORMATS } from '../../output/formats.js';
import { WEBHOOK_RESOURCE_ACTIONS } from '../../registry/data/webhook-events.js';
import { RESOURCES, type ResourceType } from '../../registry/index.js';
import { settingSpecs } from '../config/settings.js';
import { GROUP_BY } from '../report/mailings.js';
import { RATE_NAMES } from '../report/rates.js';

/**
 * What completes a value: names from one of the resource lists, a fixed list, files, `@file` (for
 * `--data`), or nothing (`none`: a free value such as a number; the shell offers no file names
 * for it either). A kind written `?kind` belongs to an option whose value is optional (`--json
 * [fields]`): the next word is its value only when it is not a command word.
 */
type ValueKind =
  | 'none'
  | 'file'
  | 'data'
  | 'match'
  | 'filter'
  | 'sort'
  | 'attr'
  | 'fields'
  | 'include'
  | 'rel'
  | 'events'
  | 'event'
  | 'type'
  | `choices:${number}`
  | `?${string}`;

/** One option of a command. */
interface OptionInfo {
  /** `-f`, `--filter` (short first when there is one). */
  flags: string[];
  description: string;
  /** Absent for boolean flags. */
  value?: ValueKind;
}

/** One command path (`''` is the program itself, `prospects list` a subcommand). */
interface PathInfo {
  subcommands: { name: string; description: string }[];
  options: OptionInfo[];
  /** Value kind of each positional argument, in order. */
  args: ValueKind[];
}

/** Attribute and relationship names of one resource command. */
interface ResourceNames {
  filter: string[];
  sort: string[];
  attr: string[];
  fields: string[];
  include: string[];
  rel: string[];
  match: string[];
}

/** Everything the scripts need. */
export interface CompletionModel {
  /** Keyed by command path: `''`, `prospects`, `prospects list`, `webhooks listen`. */
  paths: Record<string, PathInfo>;
  /** Alias of a top-level command → its name (`sequenceStates` → `sequence-states`). */
  aliases: Record<string, string>;
  /** By resource command name. */
  resources: Record<string, ResourceNames>;
  /** Fixed value lists referenced by `choices:N`. */
  choices: string[][];
  /** `resource.action` incl. wildcards (for --events) and concrete ones (for trigger). */
  events: string[];
  concreteEvents: string[];
  /** Singular type names (for `schema show`). */
  types: string[];
}

/** Value kinds of options by long flag; anything else with a value completes nothing. */
const OPTION_KINDS: Record<string, ValueKind> = {
  '--filter': 'filter',
  '--sort': 'sort',
  '--attr': 'attr',
  '--fields': 'fields',
  '--columns': 'fields',
  '--include': 'include',
  '--rel': 'rel',
  '--events': 'events',
  '--input': 'file',
  '--journal': 'file',
  '--report': 'file',
  '--match': 'match',
  '--data': 'data',
};

/**
 * Values of options that their handlers check (so commander has no `choices` for them), by
 * `command path flag`, or `* flag` for every command. Taken from where the handlers read them.
 */
const OPTION_VALUES: Record<string, readonly string[]> = {
  'enroll --by': ['id', 'email'],
  'report sequences --by': RATE_NAMES,
  'report mailings --by': GROUP_BY,
  // export-handler.ts: csv or ndjson.
  '* --format': ['csv', 'ndjson'],
  '* --payload-version': ['1', '2'],
};

/** Keys of `svc config get|set`. */
const SETTING_KEYS = settingSpecs(OUTPUT_FORMATS).map((s) => s.key);

/** Value kinds of positional arguments that commander cannot describe (by command path); a list is fixed values. */
const ARG_KINDS: Record<string, (ValueKind | readonly string[])[]> = {
  'schema show': ['type'],
  'webhooks trigger': ['event'],
  'webhooks verify': ['file'],
  'config get': [SETTING_KEYS],
  'config set': [SETTING_KEYS],
};

function visible(cmd: Command): boolean {
  return !(cmd as unknown as { _hidden?: boolean })._hidden;
}

/** Builds the model from the program (after every command is registered). */
export function buildCompletionModel(program: Command): CompletionModel {
  const choices: string[][] = [];
  const choiceKind = (values: readonly string[]): ValueKind => {
    const key = values.join(' ');
    let i = choices.findIndex((c) => c.join(' ') === key);
    if (i < 0) i = choices.push([...values]) - 1;
    return `choices:${i}`;
  };
  const optionInfo = (o: Option, path: string): OptionInfo => {
    const flags = [o.short, o.long].filter((f): f is string => !!f);
    const info: OptionInfo = { flags, description: o.description };
    const long = o.long ?? '';
    const values = OPTION_VALUES[`${path} ${long}`] ?? OPTION_VALUES[`* ${long}`];
    // A value named <file> is a path, whatever the option.
    const kind = (): ValueKind =>
      o.argChoices
        ? choiceKind(o.argChoices)
        : values
          ? choiceKind(values)
          : (OPTION_KINDS[long] ?? (/<file>/.test(o.flags) ? 'file' : 'none'));
    if (o.required) info.value = kind();
    // An optional value (`--json [fields]`) is the next word only when that is not a command word
    // (the command line going on: `svc --json prospects list`); see cli/json-flag.ts.
    else if (o.optional && long === '--json') info.value = '?fields';
    return info;
  };
  const help: OptionInfo = { flags: ['-h', '--help'], description: 'show help' };
  const paths: Record<string, PathInfo> = {};
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands.filter(visible);
    const args = cmd.registeredArguments.map((a, i): ValueKind => {
      const k = ARG_KINDS[path]?.[i];
      if (Array.isArray(k)) return choiceKind(k);
      return (k as ValueKind | undefined) ?? (a.argChoices ? choiceKind(a.argChoices) : 'none');
    });
    const options = cmd.options.filter((o) => !o.hidden).map((o) => optionInfo(o, path));
    if (path === '') options.push(help);
    paths[path] = { subcommands: subs.map((s) => ({ name: s.name(), description: s.description() })), options, args };
    for (const s of subs) walk(s, path ? `${path} ${s.name()}` : s.name());
  };
  walk(program, '');
  // commander's implicit `help` command takes a command name.
  if (!paths['help']) {
    paths[''].subcommands.push({ name: 'help', description: 'show help for a command' });
    paths['help'] = { subcommands: [], options: [], args: [] };
  }
  const aliases: Record<string, string> = {};
  for (const c of program.commands.filter(visible)) for (const a of c.aliases()) aliases[a] = c.name();
  const resources: Record<string, ResourceNames> = {};
  for (const rt of RESOURCES) if (paths[rt.command]) resources[rt.command] = resourceNames(rt);
  const events: string[] = [];
  const concreteEvents: string[] = [];
  for (const [resource, actions] of Object.entries(WEBHOOK_RESOURCE_ACTIONS)) {
    for (const action of actions) {
      events.push(`${resource}.${action}`);
      if (resource !== '*' && action !== '*') concreteEvents.push(`${resource}.${action}`);
    }
  }
  return { paths, aliases, resources, choices, events, concreteEvents, types: RESOURCES.map((r) => r.type) };
}

/** The names that fit after each option of a resource command (custom1..150 left out: too many). */
export function resourceNames(rt: ResourceType): ResourceNames {
  const attrs = rt.attributes;
  return {
    filter: [
      'id',
      ...attrs.filter((a) => a.filterable).map((a) => a.name),
      ...(rt.extraFilters ?? []),
      ...rt.relationships.filter((r) => r.data).map((r) => `${r.name}.id`),
    ],
    sort: ['id', ...attrs.filter((a) => a.sortable).map((a) => a.name)],
    attr: attrs.filter((a) => !a.readOnly).map((a) => a.name),
    fields: attrs.filter((a) => !a.writeOnly).map((a) => a.name),
    include: rt.relationships.map((r) => r.name),
    rel: rt.relationships.filter((r) => !r.readOnly).map((r) => r.name),
    match: ['id', ...attrs.filter((a) => a.filterable).map((a) => a.name)],
  };
}

/** A shell-variable-safe key of a command path (`sequence-states list` → `sequence_states__list`, `''` → `root`). */
export function pathKey(path: string): string {
  return path === '' ? 'root' : path.replace(/-/g, '_').replace(/ /g, '__');
}

/**
 * Writes the data tables every shell script carries (subcommands, options, valued options,
 * arguments, resource field names, choices, events, types) through the shell's own variable
 * writer `v`, so that bash, zsh and fish list the same things in the same order. `describe`
 * adds a shell's subcommand descriptions right after each subcommand list.
 */
export function emitTables(
  m: CompletionModel,
  v: (name: string, words: readonly string[]) => void,
  describe?: (key: string, subcommands: PathInfo['subcommands']) => void,
): void {
  for (const [path, p] of Object.entries(m.paths)) {
    const key = pathKey(path);
    if (p.subcommands.length) {
      v(
        `S_${key}`,
        p.subcommands.map((s) => s.name),
      );
      describe?.(key, p.subcommands);
    }
    if (p.options.length)
      v(
        `O_${key}`,
        p.options.flatMap((o) => o.flags),
      );
    const valued = p.options.filter((o) => o.value).flatMap((o) => o.flags.map((f) => `${f}:${o.value as ValueKind}`));
    if (valued.length) v(`V_${key}`, valued);
    if (p.args.some((a) => a !== 'none')) v(`A_${key}`, p.args);
  }
  for (const [command, names] of Object.entries(m.resources)) {
    const key = pathKey(command);
    for (const kind of ['filter', 'sort', 'attr', 'fields', 'include', 'rel', 'match'] as const)
      if (names[kind].length) v(`${kind}_${key}`, names[kind]);
  }
  for (const [i, c] of m.choices.entries()) v(`choices_${i}`, c);
  v('events_all', m.events);
  v('event_all', m.concreteEvents);
  v('type_all', m.types);
}
