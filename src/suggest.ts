/**
 * "Did you mean …?" for names people type: operations, fields, relationships, commands, profiles.
 * One helper for every layer, so that suggestions read the same everywhere.
 */

/**
 * Edit distance (insert, delete, substitute, swap two neighbours), case-insensitive. Three rows
 * of the table kept and reused, not the whole table allocated: the command-line fuzz (test/
 * reliability/fuzz.test.ts) sends names of up to 300 characters past every command's name.
 */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const m = y.length;
  let before = new Uint32Array(m + 1); // row i - 2
  let prev = new Uint32Array(m + 1); // row i - 1
  let row = new Uint32Array(m + 1); // row i
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= x.length; i++) {
    const xi = x.charCodeAt(i - 1);
    row[0] = i;
    for (let j = 1; j <= m; j++) {
      const yj = y.charCodeAt(j - 1);
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (xi === yj ? 0 : 1));
      if (i > 1 && j > 1 && xi === y.charCodeAt(j - 2) && x.charCodeAt(i - 2) === yj) v = Math.min(v, before[j - 2]! + 1);
      row[j] = v;
    }
    [before, prev, row] = [prev, row, before];
  }
  return prev[m]!;
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
