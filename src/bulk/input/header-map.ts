/**
 * The columns of a bulk input file resolved to fields, once, before the first row: by the
 * mapping the user gave (`--map`), else as people write headers (registry/name-match.ts: case,
 * spaces, punctuation, synonyms, custom-field labels). The rows are then read through the
 * mapping (resource-rows.ts asks {@link ColumnMap.column}).
 */
import { describeMatch, looseName, matchFieldName, type FieldMatch, type OrgLabels } from '../../registry/name-match.js';
import { findAttribute, type ResourceType } from '../../registry/index.js';
import { didYouMean } from '../../suggest.js';

/** Each column's field; `unknown` the columns that are none; `problems` what makes the file unreadable as given. */
interface ResolvedHeaders {
  columns: Map<string, FieldMatch>;
  unknown: string[];
  /** Ambiguous headers, two columns for one field, a `--map` target that is no field. */
  problems: string[];
  /** `--map` keys that name no column of the file. */
  unusedKeys: string[];
}

/**
 * The `--map` entry of a header: its key as written, else the one spelled alike (case, width,
 * spaces, punctuation: registry/name-match.ts). A name of punctuation alone matches only as
 * written: spelled loosely it is empty, and empty names are not alike.
 */
function mapEntryOf(map: ReadonlyMap<string, string>): (header: string) => [key: string, target: string] | undefined {
  const loose = new Map<string, string>();
  for (const k of map.keys()) {
    const l = looseName(k);
    if (l !== '' && !loose.has(l)) loose.set(l, k);
  }
  return (header) => {
    const key = map.has(header) ? header : loose.get(looseName(header));
    return key === undefined ? undefined : [key, map.get(key)!];
  };
}

/** A column name as a shell word (for the `--map` hints). */
function shellWord(s: string): string {
  return /^[\w.,=-]+$/.test(s) ? s : doubleQuoted(s);
}

/**
 * Resolves every column. `map` (header → field or label) wins over the header's own name;
 * `leftOut` columns (`--ignore-columns`, a failed-rows file's error column) are not looked at.
 */
export function resolveHeaders(
  rt: ResourceType,
  headers: readonly string[],
  org: OrgLabels | undefined,
  map: ReadonlyMap<string, string>,
  leftOut: (header: string) => boolean,
): ResolvedHeaders {
  const columns = new Map<string, FieldMatch>();
  const unknown: string[] = [];
  const problems: string[] = [];
  const entryOf = mapEntryOf(map);
  const used = new Set<string>();
  for (const header of headers) {
    const entry = entryOf(header);
    if (entry) used.add(entry[0]);
    if (leftOut(header)) continue;
    const target = entry?.[1];
    if (target !== undefined) {
      const m = matchFieldName(rt, target, org);
      if (m && 'match' in m) columns.set(header, { ...m.match, by: 'map' });
      else if (m)
        problems.push(`--map ${shellWord(`${header}=${target}`)}: "${target}" could be ${m.ambiguous.map(describeMatch).join(' or ')}`);
      else problems.push(`--map ${shellWord(`${header}=${target}`)}: ${rt.type} has no field "${target}"${meantField(rt, target, org)}`);
      continue;
    }
    const m = matchFieldName(rt, header, org, true);
    if (!m) unknown.push(header);
    else if ('match' in m && m.match.by !== 'name' && findAttribute(rt, m.match.field)?.readOnly) {
      // `Name` on prospects is the read-only full name: dropped by the writer, its data would be lost.
      problems.push(
        `column "${header}" reads as ${m.match.field}, which is read-only on ${rt.type}: say which field it holds with --map ${shellWord(`${header}=FIELD`)}, or leave it out with --ignore-columns`,
      );
    } else if ('match' in m) columns.set(header, m.match);
    else
      problems.push(
        `column "${header}" could be ${m.ambiguous.map(describeMatch).join(' or ')}: say which with --map ${shellWord(`${header}=${m.ambiguous[0]!.field}`)}`,
      );
  }
  // Two columns for one field: one would silently overwrite the other.
  const byField = new Map<string, string[]>();
  for (const [header, m] of columns) byField.set(m.field, [...(byField.get(m.field) ?? []), header]);
  for (const [field, hs] of byField) {
    if (hs.length < 2) continue;
    problems.push(
      `columns ${hs.map((h) => `"${h}"`).join(' and ')} all set ${field}: leave the others out with --ignore-columns, or map them elsewhere with --map`,
    );
  }
  return { columns, unknown, problems, unusedKeys: [...map.keys()].filter((k) => !used.has(k)) };
}

/**
 * ` (did you mean "title"?)` for a `--map` target that is no field: the field a header of that
 * name would be read as (`Job Title`), else the nearest field name or label (`fistName`). A
 * Paris trial's `--map "Prénom=fistName"` was refused with no hint of the name meant.
 */
function meantField(rt: ResourceType, target: string, org: OrgLabels | undefined): string {
  const asHeader = matchFieldName(rt, target, org, true);
  if (asHeader && 'match' in asHeader) return ` (did you mean "${asHeader.match.label ?? asHeader.match.field}"?)`;
  const names = [...rt.attributes.filter((a) => !a.readOnly).map((a) => a.name), ...rt.relationships.map((r) => r.name)];
  return didYouMean(target, [...names, ...(org?.customFields.map((f) => f.label).filter(Boolean) ?? [])]);
}

/** The columns read under another name, as `First Name → firstName` (none: an empty list). */
export function renamedColumns(columns: ReadonlyMap<string, FieldMatch>): string[] {
  const out: string[] = [];
  for (const [header, m] of columns) if (header !== m.field || m.named) out.push(`${header} → ${describeMatch(m)}`);
  return out;
}

/**
 * `--map` values: `Header=field` pairs (repeatable), or a JSON file of `{"Header": "field"}`.
 * @param readFile reads a JSON file's text (the caller's, so that errors name the flag)
 * @returns the mapping, or the reason it cannot be read
 */
export function parseColumnMap(
  values: readonly string[],
  readFile: (file: string) => string,
): Map<string, string> | { problem: string; hint?: string } {
  const map = new Map<string, string>();
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq < 0 && /\.json$/i.test(v.trim())) {
      let data: unknown;
      try {
        data = JSON.parse(readFile(v.trim()));
      } catch (err) {
        return {
          problem: `--map ${v}: ${err instanceof SyntaxError ? 'not valid JSON' : 'cannot be read'} (expected {"Header": "field", …})`,
        };
      }
      if (typeof data !== 'object' || data === null || Array.isArray(data)) {
        return { problem: `--map ${v}: expected a JSON object {"Header": "field", …}` };
      }
      for (const [k, f] of Object.entries(data)) {
        if (typeof f !== 'string' || f.trim() === '') return { problem: `--map ${v}: the field of "${k}" must be a name (a string)` };
        map.set(k, f.trim());
      }
      continue;
    }
    if (eq <= 0 || v.slice(eq + 1).trim() === '')
      return { problem: `--map "${v}": expected "Header=field" (e.g. --map "Lead Score=custom2") or a .json file` };
    const pairs = commaJoinedPairs(v);
    if (pairs)
      return {
        problem: `--map "${v}": one --map maps one column, not a comma-separated list`,
        hint: `give --map once per column: ${pairs.map(([h, f]) => `--map ${doubleQuoted(`${h}=${f}`)}`).join(' ')}`,
      };
    map.set(v.slice(0, eq).trim(), v.slice(eq + 1).trim());
  }
  return map;
}

/**
 * `Prénom=firstName,Nom=lastName`, several columns in one `--map` (as `--ignore-columns` takes
 * them): its pairs, else undefined. Only a comma in the field part followed by another `=`
 * counts, so that a header may hold commas (`Last, First=lastName`).
 */
function commaJoinedPairs(v: string): [string, string][] | undefined {
  const eq = v.indexOf('=');
  if (!/,.*=/.test(v.slice(eq + 1))) return undefined;
  const pairs: [string, string][] = [];
  let rest = v;
  while (rest !== '') {
    const at = rest.indexOf('=');
    // A last piece with no `=` was part of the field before it.
    if (at < 0) {
      pairs[pairs.length - 1]![1] += `,${rest.trim()}`;
      break;
    }
    const after = rest.slice(at + 1);
    const comma = after.indexOf(',');
    pairs.push([rest.slice(0, at).trim(), (comma < 0 ? after : after.slice(0, comma)).trim()]);
    rest = comma < 0 ? '' : after.slice(comma + 1);
  }
  return pairs;
}

/** A word in double quotes, as a shell reads it back (the hints' `--map "Header=field"`). */
function doubleQuoted(s: string): string {
  return `"${s.replace(/(["\\$`])/g, '\\$1')}"`;
}
