/** Handler of `svc schema show <type>`: every field of a type with its marks and labels. */
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { printValue } from '../shared/output.js';
import { attributeMarks as marks, findResource, type AttributeSpec } from '../../registry/index.js';
import { orgTypeView } from '../../org-schema/org-schema.js';
import { alignedColumns } from '../../output/aligned-columns.js';

/** One row of the listing. */
interface FieldRow {
  name: string;
  type: string;
  marks: string;
  label: string | null;
  validation: string | null;
  options: string | null;
  /**
   * `spec` (the spec's tables show it), `inferred` (in the registry, but the spec shows it only
   * through its usage elsewhere: the attributes a partial type hides), `org` (only the org's
   * OpenAPI shows it), `custom` (labelled custom field).
   */
  source: 'spec' | 'inferred' | 'org' | 'custom';
}

const COLUMNS = ['name', 'type', 'marks', 'label', 'validation', 'options'] as const;

/**
 * On a terminal too narrow for the table: a field's options (a list to choose from, the widest
 * cells) go on a line under it rather than be cut, and a label or marks are cut with … only when
 * their row cannot fit otherwise; names and types stay whole. A mark runs on over the empty label
 * beside it, so the MARKS column (long marks are on the spec's fields, labels on custom ones)
 * leaves its room to the labels: at 80 columns they read `Lead Sourc…` and `Last Event…` (a trial).
 */
const FLEX: readonly (typeof COLUMNS)[number][] = ['label', 'marks'];
const STACK: readonly (typeof COLUMNS)[number][] = ['options'];

/** Aligned columns for people; empty columns left out; on a terminal, fitted to its width. */
function humanTable(ctx: Context, rows: FieldRow[]): string {
  const cols = COLUMNS.filter((c) => rows.some((r) => r[c]));
  const at = (names: readonly (typeof COLUMNS)[number][]) => names.map((c) => cols.indexOf(c)).filter((i) => i >= 0);
  return alignedColumns(
    cols,
    rows.map((r) => cols.map((c) => String(r[c] ?? ''))),
    ctx.io.stdoutIsTTY ? { width: ctx.io.columns, flex: at(FLEX), stack: at(STACK), min: 8 } : undefined,
  );
}

/** Prints the fields of a type: the registry's, the org's extras, and the labelled custom fields. */
export async function showHandler(ctx: Context, typeArg: string): Promise<void> {
  const rt = findResource(typeArg);
  if (!rt) throw new UsageError(`unknown type "${typeArg}"`).hint('`svc resources` lists every type');
  const schema = await (await ctx.orgSchema()).cached();
  const view = schema ? orgTypeView(schema, rt) : undefined;
  const row = (a: AttributeSpec, source: FieldRow['source']): FieldRow => ({
    name: a.name,
    type: a.type,
    marks: marks(a),
    label: null,
    validation: null,
    options: a.enum ? a.enum.join(', ') : null,
    source,
  });
  // Every registry attribute was "spec" here, the hidden ones of a partial type too (prospect's
  // addedAt, addressCity…: a trial), as if the spec showed them.
  const rows: FieldRow[] = rt.attributes.map((a) => row(a, a.inferred ? 'inferred' : 'spec'));
  for (const a of view?.extraAttributes ?? []) {
    rows.push(row(a, 'org'));
  }
  const custom = [...(view?.customFields ?? [])].sort((a, b) => Number(a.name.slice(6)) - Number(b.name.slice(6)));
  for (const f of custom) {
    const def = Array.isArray(f.definition) ? f.definition.join(', ') : f.definition;
    rows.push({
      name: f.name,
      type: 'string',
      marks: f.required ? 'required' : '',
      label: f.label,
      validation: f.type,
      options: def,
      source: 'custom',
    });
  }
  await printValue(ctx, ctx.output, rows, () => humanTable(ctx, rows));
  // Said in fewer words than before (86 to 99 columns, wrapped mid-word at 80: a trial), each
  // starting as it did.
  if (rt.customFields) {
    ctx.info(
      schema
        ? `custom1..custom150: ${custom.length} labelled${custom.length ? ', usable by label (--attr "Label=value")' : ', the rest unlabelled strings'}`
        : `custom1..custom150 are strings; run \`${svcAgain(ctx)} schema pull\` for their labels`,
    );
  }
  if (rt.partial && !schema) ctx.info(`the spec shows only part of ${rt.type}; \`${svcAgain(ctx)} schema pull\` adds your org's fields`);
}
