/** The `--help` text of a resource command: fields with marks, relationships, operations, examples. */
import { wrapExample, wrapLine } from '../../runtime/help-layout.js';
import { attributeMarks as marks, findResource, type ResourceType } from '../../registry/index.js';

/**
 * Fields, relationships, operations and actions of a type, for `svc <resource> --help`.
 * @param commands the names of the command's subcommands, as built (operations, actions, tools)
 */
export function resourceHelp(rt: ResourceType, commands: readonly string[], width = 80): string {
  const w = Math.max(...rt.attributes.map((a) => a.name.length), 8);
  const lines = ['', `Fields of ${rt.type} (RO read-only, WO write-only, F filterable, S sortable):`];
  for (const a of rt.attributes) {
    const extra = a.enum ? `  one of: ${a.enum.join(', ')}` : '';
    // An enum's values wrap under the field's description rather than past the terminal's edge.
    lines.push(...wrapLine(`  ${a.name.padEnd(w)}  ${a.type.padEnd(9)} ${marks(a)}${extra}`, width, w + 4));
  }
  if (rt.customFields) lines.push(`  ${'custom1..custom150'.padEnd(w)}  string    (labels: svc schema show ${rt.type})`);
  if (rt.partial) lines.push('  (the spec shows only part of this type; other fields pass through to the server)');
  if (rt.relationships.length) {
    lines.push('', 'Relationships:');
    for (const r of rt.relationships) {
      const target = r.target ? ` → ${r.target}` : '';
      lines.push(`  ${r.name}${target} (${r.kind === 'one' ? 'to-one' : 'to-many'}${r.readOnly ? ', read-only' : ''})`);
    }
  }
  const actions = new Set(rt.actions.map((a) => a.command));
  const ops = commands.filter((c) => !actions.has(c));
  lines.push('', `Operations: ${ops.join(', ')}${rt.actions.length ? `; actions: ${rt.actions.map((a) => a.command).join(', ')}` : ''}`);
  if (rt.path !== rt.command) lines.push(`Also callable as: svc ${rt.path}`);
  lines.push('', 'Examples:', ...examples(rt).map((e) => `  $ ${e}`), '');
  return lines.flatMap((l) => (/^ *\$ /.test(l) ? wrapExample(l, width) : wrapLine(l, width, 4))).join('\n');
}

/** A value a person would type for a writable string field (the sandbox accepts each as written). */
const SAMPLE_VALUES: Record<string, string> = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  name: 'Example',
  title: 'CEO',
  subject: 'Hello',
  body: 'Hello',
  note: 'Done',
};
/** Types the sandbox's demo org has no record of, and types that need a relationship to be created. */
const NO_GET_EXAMPLE = new Set(['complianceRequest', 'webhook']);
const NO_CREATE_EXAMPLE = new Set(['mailing']);
/** A record of the demo org an action applies to (sequence state 1 is already finished). */
const ACTION_EXAMPLE_ID: Record<string, number> = { sequenceState: 5 };

/** Examples that work as written against the sandbox: no placeholders (a test runs them). */
function examples(rt: ResourceType): string[] {
  const out: string[] = [];
  const date =
    rt.attributes.find((a) => a.filterable && a.name === 'updatedAt') ?? rt.attributes.find((a) => a.filterable && a.type === 'date-time');
  const s = rt.attributes.find((a) => a.sortable && a.name === 'updatedAt') ?? rt.attributes.find((a) => a.sortable);
  if (rt.operations.includes('list')) {
    // Parts are added while the line fits 80 columns with its `  $ ` (copied whole, not wrapped).
    const parts = [`svc ${rt.command} list`];
    for (const p of [
      rt.type === 'prospect' ? '--filter title=CEO' : date ? `--filter ${date.name}=2024-01-01..` : '',
      s ? `--sort -${s.name}` : '',
      '--limit 20',
    ]) {
      if (p && [...parts, p].join(' ').length <= 76) parts.push(p);
    }
    out.push(parts.join(' '));
  }
  if (rt.operations.includes('get') && !NO_GET_EXAMPLE.has(rt.type)) {
    const inc = rt.relationships.find((r) => r.data && r.target && findResource(r.target));
    out.push(`svc ${rt.command} get 1${inc ? ` --include ${inc.name}` : ''}`);
  }
  if (rt.operations.includes('create') && !NO_CREATE_EXAMPLE.has(rt.type)) {
    const w = rt.attributes.find((a) => !a.readOnly && a.type === 'string' && SAMPLE_VALUES[a.name]);
    if (w) out.push(`svc ${rt.command} create --attr ${w.name}=${SAMPLE_VALUES[w.name]}`);
  }
  if (rt.actions[0]) out.push(`svc ${rt.command} ${rt.actions[0].command} ${ACTION_EXAMPLE_ID[rt.type] ?? 1}`);
  return out;
}
