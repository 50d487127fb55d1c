/**
 * The named parameters of a `svc sql` statement (`:name`; SQLite also takes `@name` and `$name`),
 * found as the databases find them: string literals, quoted names, comments and `::` casts are
 * skipped. One scanner for the check before a statement runs (commands/sql/handler.ts) and for
 * PostgreSQL's `$n` numbering (dialect/postgres.ts).
 */
const PARTS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|::|([:@$])([A-Za-z_]\w*)/g;

/** `sql` with each parameter replaced by what `replace` returns (`text` keeps it as it is). */
export function mapNamedParams(sql: string, replace: (prefix: string, name: string, text: string) => string): string {
  return sql.replace(PARTS, (m, prefix: string | undefined, name: string | undefined) =>
    prefix === undefined || name === undefined ? m : replace(prefix, name, m),
  );
}
