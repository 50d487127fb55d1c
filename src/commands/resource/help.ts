/** The `--help` text of a resource command: fields with marks, relationships, operations, examples. */
import { attributeMarks as marks, findResource, type ResourceType } from '../../registry/index.js';

/** Fields, relationships, operations and actions of a type, for `svc <resource> --help`. */
export function resourceHelp(rt: ResourceType): string {
  const w = Math.max(...rt.attributes.map((a) => a.name.length), 8);
  const lines = ['', `Fields of ${rt.type} (RO read-only, WO write-only, F filterable, S sortable):`];
  for (const a of rt.attributes) {
    const extra = a.enum ? `  one of: ${a.enum.join(', ')}` : '';
    lines.push(`  ${a.name.padEnd(w)}  ${a.type.padEnd(9)} ${marks(a)}${extra}`);
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
  const ops = [...rt.operations, ...(rt.operations.includes('list') ? ['export'] : [])];
  lines.push('', `Operations: ${ops.join(', ')}${rt.actions.length ? `; actions: ${rt.actions.map((a) => a.command).join(', ')}` : ''}`);
  lines.push('', 'Examples:', ...examples(rt).map((e) => `  $ ${e}`), '');
  return lines.join('\n');
}

function examples(rt: ResourceType): string[] {
  const out: string[] = [];
  const f = rt.attributes.find((a) => a.filterable && a.type === 'string');
  const s = rt.attributes.find((a) => a.sortable);
  if (rt.operations.includes('list')) {
    out.push(`svc ${rt.command} list${f ? ` --filter ${f.name}=VALUE` : ''}${s ? ` --sort -${s.name}` : ''} --limit 20`);
  }
  if (rt.operations.includes('get')) {
    const inc = rt.relationships.find((r) => r.data && r.target && findResource(r.target));
    out.push(`svc ${rt.command} get 12${inc ? ` --include ${inc.name}` : ''}`);
  }
  if (rt.operations.includes('create')) {
    const w = rt.attributes.find((a) => !a.readOnly && a.type === 'string');
    out.push(`svc ${rt.command} create${w ? ` --attr ${w.name}=VALUE` : ' --data @record.json'}`);
  }
  if (rt.actions[0]) out.push(`svc ${rt.command} ${rt.actions[0].command} 12`);
  return out.slice(0, Math.max(2, out.length));
}
