/**
 * `--filter` expressions (README.md, "Filters") parsed into a structure the query builder turns into
 * either syntax. Parsing is pure; checking names against the registry happens in the commands.
 */
import { UsageError } from '../errors.js';

/** A parsed `--filter` expression. */
export interface Filter {
  /** `['title']`, or `['account', 'id']` for a relationship filter. */
  path: string[];
  kind: 'eq' | 'list' | 'range';
  /** One value for `eq`, several for `list`. */
  values: string[];
  /** Range bounds; undefined is an open end. */
  from?: string;
  to?: string;
  /** The expression had backslash escapes, so only the new syntax can carry it. */
  escaped: boolean;
  /**
   * Spaces around a value (`title=CEO, CFO`) were removed: nobody means to match " CFO", and a
   * filter with them matches nothing while looking right. The caller says so.
   */
  trimmed?: boolean;
}

/** Splits `s` on `sep` outside backslash escapes; returns parts still escaped. */
function splitUnescaped(s: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
      continue;
    }
    if (s.startsWith(sep, i)) {
      parts.push(cur);
      cur = '';
      i += sep.length - 1;
      continue;
    }
    cur += c;
  }
  parts.push(cur);
  return parts;
}

function unescapeText(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}

/** `s` without unescaped white space at either end (`\ ` keeps a space). */
function trimUnescaped(s: string): string {
  let end = s.length;
  while (end > 0 && /\s/.test(s[end - 1]!)) {
    let slashes = 0;
    while (end - 2 - slashes >= 0 && s[end - 2 - slashes] === '\\') slashes++;
    if (slashes % 2 === 1) break;
    end--;
  }
  return s.slice(0, end).replace(/^\s+/, '');
}

/**
 * Refuses a comparison typed as a filter (`engagedScore>=5`, `id>25`, `stage!=won`), naming the
 * filter meant. The name before `=` is matched loosely (case, spaces and punctuation aside, so
 * that `Lead Score` and `first_name` work), which read `engagedScore>=5` and `engagedScore!=5`
 * as `engagedScore=5`: the opposite set for `!=`, listed with exit 0 (a trial).
 * @throws UsageError when a `<`, `>` or `!` comes before the first `=` (a value may hold them)
 */
export function refuseComparison(expr: string): void {
  const op = /[<>!]/.exec(expr);
  const eq = expr.indexOf('=');
  if (!op || (eq >= 0 && eq < op.index)) return;
  const name = expr.slice(0, op.index).trim();
  const sign = expr[op.index]!;
  const rest = expr.slice(op.index + 1);
  const value = (rest.startsWith('=') ? rest.slice(1) : rest).trim();
  const fix =
    sign === '!'
      ? 'the API filters by a value, a list (a,b) or a range (a..b): there is no "not equal"; filter the list with --query or jq'
      : sign === '>'
        ? `svc filters have no ">": a range from ${value || 'a value'} is ${name}=${value}.. (its bounds are included)`
        : `svc filters have no "<": a range up to ${value || 'a value'} is ${name}=..${value} (its bounds are included)`;
  throw new UsageError(`bad filter "${expr}": ${fix}`);
}

/**
 * Parses `name=value`, `name=a,b`, `name=a..b`, `name=a..`, `name=..b`, `rel.attr=value`.
 * @throws UsageError naming the expression when it is malformed.
 */
export function parseFilter(expr: string): Filter {
  refuseComparison(expr);
  const eq = expr.indexOf('=');
  if (eq <= 0) throw new UsageError(`bad filter "${expr}": expected name=value`);
  const name = expr.slice(0, eq).trim();
  const raw = expr.slice(eq + 1);
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/.test(name)) {
    throw new UsageError(`bad filter "${expr}": "${name}" is not a field name (use attr or relationship.attr)`);
  }
  // `title==CEO` filtered on "=CEO" and listed nothing, exit 0 (a new user's trial): a value
  // that starts with "=" is far likelier a `==` typed for `=` than a value someone holds, so it is
  // refused; one that really starts so is written escaped (`\=`), as `,`, `..` and spaces are.
  if (raw.trimStart().startsWith('=')) {
    const value = raw.trimStart().replace(/^=+\s*/, '');
    throw new UsageError(
      `bad filter "${expr}": one "=" goes between name and value: write ${name}=${value} (a value that starts with "=" is written ${name}=\\${raw.trimStart()})`,
    );
  }
  const path = name.split('.');
  const escaped = raw.includes('\\');
  const range = splitUnescaped(raw, '..');
  if (range.length === 2) {
    const [from, to] = range.map((p) => unescapeText(p.trim()));
    if (!from && !to) throw new UsageError(`bad filter "${expr}": a range needs at least one bound`);
    return { path, kind: 'range', values: [], from: from || undefined, to: to || undefined, escaped };
  }
  if (range.length > 2) throw new UsageError(`bad filter "${expr}": a range has one ".." (escape a literal one as \\..)`);
  const parts = splitUnescaped(raw, ',');
  const kept = parts.map((p) => trimUnescaped(p));
  // A value of spaces alone is left as given: there is nothing else it could mean.
  const trimmed = kept.some((k, i) => k !== parts[i] && k !== '');
  const values = kept.map((k, i) => unescapeText(k === '' ? parts[i]! : k));
  const extra = trimmed ? { trimmed } : {};
  if (values.length > 1) {
    if (kept.some((v) => v === '')) throw new UsageError(`bad filter "${expr}": empty value in list`);
    return { path, kind: 'list', values, escaped, ...extra };
  }
  return { path, kind: 'eq', values, escaped, ...extra };
}

/** `filter[a][b]` for a path. */
function key(path: string[]): string {
  return 'filter' + path.map((p) => `[${p}]`).join('');
}

/**
 * Query pairs for one filter. Original syntax: `filter[x]=a,b`, `a..b` with `neginf`/`inf`.
 * New syntax: repeated `filter[x][]=v`, `filter[x][gte]=a&filter[x][lte]=b`.
 */
export function filterParams(f: Filter, newSyntax: boolean): [string, string][] {
  const k = key(f.path);
  if (!newSyntax) {
    const values = f.kind === 'range' ? [f.from ?? '', f.to ?? ''] : f.values;
    if (f.escaped && values.some((v) => v.includes(',') || v.includes('..'))) {
      throw new UsageError(`filter on ${f.path.join('.')}: a value with "," or ".." needs --new-filter-syntax`);
    }
    if (f.kind === 'range') return [[k, `${f.from ?? 'neginf'}..${f.to ?? 'inf'}`]];
    return [[k, f.values.join(',')]];
  }
  if (f.kind === 'range') {
    const out: [string, string][] = [];
    if (f.from !== undefined) out.push([`${k}[gte]`, f.from]);
    if (f.to !== undefined) out.push([`${k}[lte]`, f.to]);
    return out;
  }
  if (f.kind === 'list') return f.values.map((v) => [`${k}[]`, v]);
  return [[k, f.values[0]!]];
}
