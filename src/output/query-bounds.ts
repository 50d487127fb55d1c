/**
 * What one `--query` evaluation may cost. JMESPath can build far more than it is given: each
 * `[@,@] | [] ` doubles a list, `to_string` of a value that holds the same list twice is twice as
 * long, `pad_right('', `400000000`)` is a string of 400 million characters. Unbounded, such an
 * expression ran for a minute, took 2 GB and ended in "unexpected failure". Here each evaluation
 * has a deadline and a size budget, and running past either is a usage error that names the fix:
 *
 * - time: 10 s for one evaluation (the whole result, or one record's share of a projection),
 *   and 1 s more for each MiB it is given;
 * - size: the result, any string or list built on the way and the input of a function that
 *   serialises or pads may not pass 4 times the size of what the expression was given (as JSON
 *   text), or 64 MiB when that is more.
 *
 * Sizes are measured by a walk that stops as soon as the budget is passed, so a value that is a
 * small graph standing for an exponential tree costs no more than the budget to measure.
 */
import { TreeInterpreter } from '@jmespath-community/jmespath';
import { UsageError } from '../errors.js';

/** The bounds of one evaluation. */
interface QueryLimits {
  /** Milliseconds one evaluation may take. */
  readonly ms: number;
  /** Milliseconds more for each MiB of input (as JSON text). */
  readonly msPerMiB: number;
  /** The size budget when the input is small: characters of JSON text. */
  readonly minChars: number;
  /** The budget as a multiple of the input's size. */
  readonly inputFactor: number;
}

export const QUERY_LIMITS: QueryLimits = { ms: 10_000, msPerMiB: 1_000, minChars: 64 * 2 ** 20, inputFactor: 4 };

const FIX = 'filter or pick fields first, or post-process -o json with jq';

/** The usage error of a query past its budget. */
function tooBig(chars: number): UsageError {
  return new UsageError(`--query: the expression builds more than ${mib(chars)} (4× its input at most): ${FIX}`);
}
function tooSlow(ms: number): UsageError {
  return new UsageError(`--query: the expression ran longer than ${Math.round(ms / 100) / 10} s: ${FIX}`);
}
const mib = (chars: number) => (chars >= 2 ** 20 ? `${Math.round(chars / 2 ** 20)} MiB` : `${chars} characters`);

/**
 * The size of `v` as JSON text (about: numbers count 8), or Infinity once it passes `cap`. Walks
 * every path, so a list held twice counts twice, as it would be written.
 */
export function boundedSize(v: unknown, cap: number): number {
  let total = 0;
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string') total += x.length + 2;
    else if (Array.isArray(x)) {
      total += 2 + x.length;
      if (total > cap) return Infinity;
      for (let i = x.length - 1; i >= 0; i--) stack.push(x[i]);
    } else if (x !== null && typeof x === 'object') {
      total += 2;
      for (const [k, y] of Object.entries(x)) {
        total += k.length + 4;
        stack.push(y);
      }
    } else total += typeof x === 'number' ? 8 : 5;
    if (total > cap) return Infinity;
  }
  return total;
}

type Interpreter = typeof TreeInterpreter;
type Node = Parameters<Interpreter['visit']>[0];
type Value = Parameters<Interpreter['visit']>[1];
type Runtime = Interpreter['runtime'];
/** The members `withScope` copies (declared by the library's class, not in its types). */
type Scope = { withScope(s: unknown): Scope };
type Internals = { _rootValue: unknown; _scope: Scope };

/** One evaluation's budget, shared by the interpreters of its `let` scopes. */
interface Budget {
  deadline: number;
  chars: number;
  steps: number;
  ms: number;
  now: () => number;
}

const Base = TreeInterpreter.constructor as new () => Interpreter;

/** The library's interpreter with the budget checked at each step and around the functions that grow values. */
class BoundedInterpreter extends Base {
  constructor(private readonly budget: Budget) {
    super();
    const runtime: Runtime = this.runtime;
    const call = runtime.callFunction.bind(runtime);
    runtime.callFunction = (name, args) => {
      this.before(name, args);
      return this.checked(call(name, args));
    };
  }

  override visit(node: Node, value: Value): ReturnType<Interpreter['visit']> {
    const b = this.budget;
    if ((++b.steps & 1023) === 0 && b.now() > b.deadline) throw tooSlow(b.ms);
    return this.checked(super.visit(node, value));
  }

  override withScope(scope: Parameters<Interpreter['withScope']>[0]): Interpreter {
    const inner = new BoundedInterpreter(this.budget);
    inner.runtime._functionTable = this.runtime._functionTable;
    const from = this as unknown as Internals;
    const to = inner as unknown as Internals;
    to._rootValue = from._rootValue;
    to._scope = from._scope.withScope(scope);
    return inner;
  }

  /**
   * A string or list past the budget stops the evaluation where it was built (a list element
   * counts 32, about what an element costs in memory beyond its value, which a list may share:
   * `[@,@] | []` repeated doubles a list of the same values).
   */
  private checked<T>(r: T): T {
    const cap = this.budget.chars;
    if ((typeof r === 'string' && r.length > cap) || (Array.isArray(r) && r.length * 32 > cap)) throw tooBig(cap);
    return r;
  }

  /** Refuses a call whose result would pass the budget before it is built. */
  private before(name: string, args: unknown[]): void {
    const cap = this.budget.chars;
    const n = (i: number) => (typeof args[i] === 'number' ? (args[i] as number) : 0);
    const s = (i: number) => (typeof args[i] === 'string' ? (args[i] as string) : '');
    let over = false;
    if (name === 'pad_left' || name === 'pad_right') over = n(1) > cap;
    else if (name === 'to_string' || name === 'join') over = boundedSize(args, cap) > cap;
    else if (name === 'replace') over = s(0).length + (s(0).length / Math.max(1, s(1).length) + 1) * s(2).length > cap;
    if (over) throw tooBig(cap);
  }
}

/**
 * A search function within `limits`: `TreeInterpreter.search(node, value)` with a deadline and a
 * size budget per call. One interpreter serves every call (a query answered record by record
 * makes one call per record: building the interpreter and its function table each time cost 50×
 * the search), its budget set afresh for each.
 * @throws UsageError (from the search) when an evaluation passes its deadline or its size budget
 */
export function boundedSearcher(limits: QueryLimits = QUERY_LIMITS, now: () => number = Date.now): (node: Node, value: unknown) => unknown {
  const budget: Budget = { deadline: 0, chars: 0, steps: 0, ms: 0, now };
  const interpreter = new BoundedInterpreter(budget);
  return (node, value) => {
    const input = boundedSize(value, Number.MAX_SAFE_INTEGER);
    budget.chars = Math.max(limits.minChars, limits.inputFactor * input);
    // A large input may take longer: the time bound grows by msPerMiB for each MiB given.
    budget.ms = limits.ms + Math.round((input / 2 ** 20) * limits.msPerMiB);
    budget.deadline = now() + budget.ms;
    budget.steps = 0;
    const result = interpreter.search(node, value as Parameters<Interpreter['search']>[1]);
    if (boundedSize(result, budget.chars) > budget.chars) throw tooBig(budget.chars);
    return result;
  };
}

/** One bounded search (see {@link boundedSearcher}). */
export function boundedSearch(node: Node, value: unknown, limits: QueryLimits = QUERY_LIMITS, now: () => number = Date.now): unknown {
  return boundedSearcher(limits, now)(node, value);
}
