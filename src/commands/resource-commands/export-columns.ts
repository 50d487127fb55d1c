/**
 * The columns of a CSV export, those of `list --all -o csv` (which the README gives as an
 * export's stdout form): `id` first (a resumed export reads it back), `type`, then the
 * attributes the service returns, then the relationships that carry ids. (Exports left `type`
 * out until 2026-11; `update --input` and `upsert --input` read it as the envelope it is.) Custom fields the org
 * has not labelled (from the schema `svc schema pull` cached) are left out by default: a
 * prospect has 150 of them and most orgs use a handful. `--all-columns` keeps every one;
 * `--columns` chooses.
 */
import { allAttributes, type ResourceType } from '../../registry/index.js';
import type { OrgSchema } from '../../org-schema/types.js';

/** Columns and what was left out. */
interface ExportColumns {
  columns: string[];
  /** Custom fields left out as unused. */
  unused: number;
}

const CUSTOM = /^custom\d+$/;

/** The default (or `--all-columns`) columns of a type. */
export function exportColumns(rt: ResourceType, schema: OrgSchema | undefined, all: boolean): ExportColumns {
  const org = schema?.types[rt.type];
  const used = (name: string) => all || !schema || org?.customFields[name] !== undefined;
  let unused = 0;
  const attrs: string[] = [];
  for (const a of allAttributes(rt)) {
    if (a.writeOnly || a.onlyOnRequest) continue;
    if (CUSTOM.test(a.name) && !used(a.name)) {
      unused++;
      continue;
    }
    attrs.push(a.name);
  }
  for (const a of org?.extraAttributes ?? []) if (!a.writeOnly && !attrs.includes(a.name)) attrs.push(a.name);
  const rels = rt.relationships.filter((r) => r.data).map((r) => r.name);
  return { columns: ['id', 'type', ...attrs.filter((a) => a !== 'id'), ...rels], unused };
}

/** `--columns` with `id` put first (a resumed export continues after the last id it reads). */
export function withIdFirst(columns: string[]): string[] {
  return ['id', ...columns.filter((c) => c !== 'id')];
}
