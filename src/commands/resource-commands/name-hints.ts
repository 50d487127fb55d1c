/**
 * "Did you mean" for field and relationship names in `--filter`, `--sort`, `--fields`,
 * `--include`, `--attr` and `--columns`. Names the registry does not know still go to the
 * server (it knows more fields than the spec shows); these hints come when it refuses them.
 * (`--fields`, `--columns`, `--filter` and `--sort` near misses, and names the pulled org schema
 * does not know, are refused before sending: field-names.ts.)
 */
import { ApiError } from '../../errors.js';
import { findRelationship, isKnownField, resourceByType, type ResourceType } from '../../registry/index.js';
import { closest } from '../../suggest.js';

/** The flags whose names are checked, as commander gives them. */
interface NamedFlags {
  filter?: string[];
  sort?: string;
  fields?: string[];
  include?: string;
  attr?: string[];
  columns?: string;
}

const list = (s: string | undefined) =>
  (s ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** Each name a flag gives, with the flag, the head of a dotted path only (`account.name` → `account`). */
function givenNames(flags: NamedFlags): { flag: string; name: string }[] {
  const out: { flag: string; name: string }[] = [];
  const head = (n: string) => n.split('.')[0]!.trim();
  for (const f of flags.filter ?? []) out.push({ flag: '--filter', name: head(f.slice(0, Math.max(0, f.indexOf('=')))) });
  for (const k of list(flags.sort)) out.push({ flag: '--sort', name: head(k.replace(/^-/, '')) });
  for (const f of flags.fields ?? []) if (!f.includes('=')) for (const n of list(f)) out.push({ flag: '--fields', name: n });
  for (const a of flags.attr ?? [])
    out.push({
      flag: '--attr',
      name: a
        .slice(0, Math.max(0, a.indexOf('=')))
        .replace(/:$/, '')
        .trim(),
    });
  for (const c of list(flags.columns)) out.push({ flag: '--columns', name: head(c) });
  return out.filter((g) => g.name !== '');
}

/** `--filter titl: did you mean "title"?` for each name the registry does not know but has one close to. */
function nameHints(rt: ResourceType, flags: NamedFlags, only?: (flag: string) => boolean): string[] {
  const attrs = rt.attributes.map((a) => a.name);
  const rels = rt.relationships.map((r) => r.name);
  const candidates: Record<string, string[]> = {
    '--filter': ['id', ...rt.attributes.filter((a) => a.filterable).map((a) => a.name), ...rels, ...(rt.extraFilters ?? [])],
    '--sort': ['id', ...rt.attributes.filter((a) => a.sortable).map((a) => a.name)],
    '--fields': [...attrs, ...rels],
    '--attr': rt.attributes.filter((a) => !a.readOnly).map((a) => a.name),
    '--columns': ['id', 'type', ...attrs, ...rels],
  };
  const hints: string[] = [];
  for (const { flag, name } of givenNames(flags)) {
    if ((only && !only(flag)) || isKnownField(rt, name)) continue;
    const c = closest(name, candidates[flag] ?? []) ?? closest(name, [...attrs, ...rels]);
    if (c) hints.push(`${flag} ${name}: did you mean "${c}"?`);
  }
  for (const path of list(flags.include)) {
    const h = includeHint(rt, path);
    if (h) hints.push(h);
  }
  return hints;
}

/**
 * `--include acount: did you mean "account"?`, and `account.ownr` → `account.owner`: the first
 * step of the path that is no relationship, against the relationships of the type it is on only
 * (an attribute cannot be included; `titl` got "title", a trial).
 */
function includeHint(rt: ResourceType, path: string): string | undefined {
  const steps = path.split('.').map((s) => s.trim());
  let on: ResourceType | undefined = rt;
  for (const [i, step] of steps.entries()) {
    const rel = findRelationship(on, step);
    if (rel) {
      on = rel.target ? resourceByType(rel.target) : undefined;
      if (!on) return undefined;
      continue;
    }
    const c = closest(
      step,
      on.relationships.map((r) => r.name),
    );
    if (!c) return undefined;
    return `--include ${path}: did you mean "${[...steps.slice(0, i), c, ...steps.slice(i + 1)].join('.')}"?`;
  }
  return undefined;
}

/** Adds name hints to a 400/422 refusal (the server did not know a name); other errors pass as they are. */
export function withNameHints(err: unknown, rt: ResourceType, flags: NamedFlags): unknown {
  if (err instanceof ApiError && (err.status === 400 || err.status === 422)) {
    for (const h of nameHints(rt, flags, (f) => f !== '--columns')) err.hint(h);
  }
  return err;
}
