/**
 * `--query`: a JMESPath expression (the language of `aws --query` and `az --query`), compiled
 * once before anything is sent. This module is loaded with import() only when the flag is given,
 * so the JMESPath implementation costs `--version`, `--help` and plain commands nothing.
 */
import { compile, tokenize } from '@jmespath-community/jmespath';
import { UsageError } from '../errors.js';
import { boundedSearcher } from './query-bounds.js';

/** A compiled `--query` expression. */
export interface CompiledQuery {
  /** The expression as given. */
  readonly expression: string;
  /**
   * Applies the expression to a value.
   * @throws UsageError when the expression fails on the data (a function given the wrong type),
   *   or passes its time or size bound (query-bounds.ts)
   */
  search(value: unknown): unknown;
  /**
   * Present when the expression projects over the list it is given (`[].x`, `[*].{…}`,
   * `[?cond]…`): the results for one element, so that a list can be answered element by element
   * in constant memory. The whole list's answer is the concatenation of these, in order.
   */
  perElement?: (element: unknown) => unknown[];
  /**
   * With `perElement`, when the expression reads its element only through these top-level
   * members (`[].{id: id, email: emails[0]}` reads `id` and `emails`): an element holding just
   * them gets the same answer, and a writer may build no more of each record than that.
   */
  elementFields?: readonly string[];
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
  const bounded = boundedSearcher();
  const search = (value: unknown): unknown => {
    try {
      return bounded(node, value);
    } catch (err) {
      if (err instanceof UsageError) throw err;
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
    ...(projectsOverInput(node) && { elementFields: fieldsReadOfElement(node) }),
  };
}

type AstNode = {
  type?: string;
  name?: string;
  left?: AstNode;
  right?: AstNode;
  child?: AstNode;
  condition?: AstNode;
  value?: unknown;
  children?: AstNode[];
  bindings?: { reference?: AstNode }[];
  expression?: AstNode;
};

/**
 * The top-level members a projection over the input (`[*]…`, `[]…`, `[?…]…`, over the input
 * itself) reads of each element, or undefined when it may read an element whole (`@`, `*`, a
 * function given `@`), reads a member whose name has a dot, or is written in a way not known here.
 */
function fieldsReadOfElement(root: unknown): string[] | undefined {
  const top = root as AstNode;
  const left = top.left;
  if (left?.type !== 'Identity' && !(left?.type === 'Flatten' && left.child?.type === 'Identity')) return undefined;
  const fields = new Set<string>();
  /** Walks `n`; `inElement`: evaluated against the element (not a value taken out of it). */
  const visit = (n: AstNode | undefined, inElement: boolean): boolean => {
    if (!n) return true;
    switch (n.type) {
      case 'Field':
        if (inElement) fields.add(String(n.name));
        return true;
      case 'Literal':
      case 'Index':
      case 'Slice':
      case 'Variable':
        return true;
      case 'Identity':
      case 'Current':
        return !inElement;
      case 'Subexpression':
      case 'IndexExpression':
      case 'Pipe':
        return visit(n.left, inElement) && visit(n.right, false);
      case 'Projection':
      case 'FilterProjection':
      case 'ValueProjection':
        return visit(n.left, inElement) && visit(n.right, false) && visit(n.condition, false);
      case 'Flatten':
      case 'NotExpression':
        return visit(n.child, inElement);
      case 'ExpressionReference':
        return visit(n.child, false);
      case 'Comparator':
      case 'OrExpression':
      case 'AndExpression':
      case 'Arithmetic':
        return visit(n.left, inElement) && visit(n.right, inElement);
      case 'MultiSelectList':
      case 'Function':
        return (n.children ?? []).every((c) => visit(c, inElement));
      case 'MultiSelectHash':
        return (n.children ?? []).every((c) => visit(c.value as AstNode, inElement));
      case 'LetExpression':
        return (n.bindings ?? []).every((b) => visit(b.reference, inElement)) && visit(n.expression, inElement);
      default:
        return false;
    }
  };
  if (!visit(top.right, true) || !visit(top.condition, true)) return undefined;
  if ([...fields].some((f) => f.includes('.'))) return undefined;
  return [...fields];
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
