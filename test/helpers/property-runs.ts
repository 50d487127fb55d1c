/**
 * How many cases a property test of test/unit tries. By default a fifth of the number the test
 * names (never under 100, fast-check's own default): each run of the suite draws new cases, so
 * the runs add up, and at the full count the property files took ~5 of the unit folder's CPU-s.
 * `SVC_PROPERTY_RUNS=full` tries the full count (after changing the code under test); a number
 * (`SVC_PROPERTY_RUNS=20000`) tries that many.
 */
export function propertyRuns(full: number): number {
  const setting = process.env['SVC_PROPERTY_RUNS'];
  if (setting === 'full') return full;
  if (setting && Number(setting) > 0) return Number(setting);
  return Math.max(100, Math.round(full / 5));
}
