/**
 * "Did you mean …?" for names people type: operations, fields, relationships, commands, profiles.
 * One helper for every layer, so that suggestions read the same everywhere.
 */

/** Edit distance (insert, delete, substitute, swap two neighbours), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const d: number[][] = Array.from({ length: x.length + 1 }, (_, i) => [i, ...Array<number>(y.length).fill(0)]);
  for (let j = 1; j <= y.length; j++) d[0]![j] = j;
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[x.length]![y.length]!;
}

/**
 * The candidate closest to `given`, when it is close enough to be a typo: within a third of the
 * name's length (at least 1, at most 3 edits), or a candidate that starts with what was typed.
 * Undefined when nothing is close or `given` is itself a candidate.
 */
export function closest(given: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const limit = Math.min(3, Math.max(1, Math.floor(given.length / 3)));
  for (const c of candidates) {
    if (c === given) return undefined;
    const dist = editDistance(given, c);
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  if (best !== undefined && bestDistance <= limit) return best;
  // `--filter titl` for `title`: a prefix of at least 3 letters is a typo cut short.
  if (given.length >= 3) {
    const lower = given.toLowerCase();
    for (const c of candidates) if (c.toLowerCase().startsWith(lower)) return c;
  }
  return undefined;
}

/**
 * The stricter cousin of {@link closest}, for names refused before anything is sent (a wrong
 * refusal would block a real field): the candidate with the same letters in another case, else
 * the nearest at most two edits away (one for names of four letters or fewer); no prefixes.
 */
export function nearMiss(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const same = candidates.find((c) => c.toLowerCase() === lower);
  if (same) return same;
  const limit = name.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** ` (did you mean "list"?)`, or '' when nothing is close. */
export function didYouMean(given: string, candidates: Iterable<string>): string {
  const c = closest(given, candidates);
  return c === undefined ? '' : ` (did you mean "${c}"?)`;
}
