/**
 * `--query`: a JMESPath expression (the language of `aws --query` and `az --query`), compiled
 * once before anything is sent. This module is loaded with import() only when the flag is given,
 * so the JMESPath implementation costs `--version`, `--help` and plain commands nothing.
 */
import { compile, tokenize, TreeInterpreter } from '@jmespath-community/jmespath';
import { UsageError } from '../errors.js';

/** A compiled `--query` expression. */
export interface CompiledQuery {
  /** The expression as given. */
  readonly expression: string;
  /**
   * Applies the expression to a value.
   * @throws UsageError when the expression fails on the data (a function given the wrong type)
   */
  search(value: unknown): unknown;
  /**
   * Present when the expression projects over the list it is given (`[].x`, `[*].{…}`,
   * `[?cond]…`): the results for one element, so that a list can be answered element by element
   * in constant memory. The whole list's answer is the concatenation of these, in order.
   */
  perElement?: (element: unknown) => unknown[];
}

/**
 * Compiles `--query`.
 * @throws UsageError naming the column of the first character the parser could not take
 */
export function compileQuery(expression: string): CompiledQuery {
  if (expression.trim() === '') throw new UsageError('--query: empty expression').hint('example: --query "[].{id: id, title: title}"');
  let node: ReturnType<typeof compile>;
  try {
    node = compile(expression);
  } catch (err) {
    const column = errorColumn(expression);
    const what = column > expression.length ? 'the expression ends too soon' : message(err).replace(/^syntax error: /, '');
    // The expression and a caret under the column, on two hint lines that line up.
    throw new UsageError(`--query: syntax error at column ${column}: ${what}`)
      .hint(expression)
      .hint(`${' '.repeat(column - 1)}^ (JMESPath: https://jmespath.org/tutorial.html)`);
  }
  const search = (value: unknown): unknown => {
    try {
      return TreeInterpreter.search(node, value as Parameters<typeof TreeInterpreter.search>[1]);
    } catch (err) {
      throw new UsageError(`--query: ${message(err)}`);
    }
  };
  return {
    expression,
    search,
    // A projection over the input maps each element on its own and drops nulls: asking it about
    // a one-element list gives that element's share of the answer (0 or 1 values; flattening a
    // one-record list is the record itself).
    ...(projectsOverInput(node) && { perElement: (element: unknown) => search([element]) as unknown[] }),
  };
}

/**
 * True for `[*]…`, `[]…` and `[?…]…` at the top of the expression, applied to the input itself or
 * to such a projection (`[].emails[]`), with no `$` inside (the root would be the one-element list,
 * not the whole one). Projections and flattening both answer a list element by element, so a
 * chain of them over the input does too.
 */
function projectsOverInput(node: unknown): boolean {
  const type = (node as { type?: string }).type;
  if (type !== 'Projection' && type !== 'FilterProjection' && type !== 'Flatten') return false;
  if (JSON.stringify(node).includes('"type":"Root"')) return false;
  return overInput(node);
}

function overInput(node: unknown): boolean {
  const n = node as { type?: string; left?: unknown; child?: unknown };
  if (n.type === 'Identity') return true;
  if (n.type === 'Flatten') return overInput(n.child);
  if (n.type === 'Projection' || n.type === 'FilterProjection') return overInput(n.left);
  return false;
}

function message(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.replace(/^Syntax error: /i, 'syntax error: ');
}

/** Fails with "incomplete" messages while a prefix of an expression could still go on. */
const INCOMPLETE = /\bEOF\b|unexpected end/i;

/**
 * The 1-based column where an expression stops being valid. The parser does not say, so it is
 * found by parsing prefixes: the first token after which no continuation can help is the culprit;
 * when every prefix could still go on, the expression ended too soon (the column after its end).
 */
export function errorColumn(expression: string): number {
  let tokens: ReturnType<typeof tokenize>;
  try {
    tokens = tokenize(expression);
  } catch (err) {
    // A lexer error: the shortest prefix that fails the same way ends at the bad character.
    const m = message(err);
    for (let k = 1; k <= expression.length; k++) {
      try {
        tokenize(expression.slice(0, k));
      } catch (e) {
        if (message(e) === m) return k;
      }
    }
    return expression.length + 1;
  }
  const real = tokens.filter((t) => t.type !== 'EOF');
  for (let i = 0; i < real.length; i++) {
    const end = i + 1 < real.length ? real[i + 1]!.start : expression.length;
    try {
      compile(expression.slice(0, end));
    } catch (err) {
      if (!INCOMPLETE.test(message(err))) return real[i]!.start + 1;
    }
  }
  return expression.length + 1;
}
