/**
 * What every fuzzed command line must do, and the generators the fuzz tests share: filter
 * expressions, `--attr` pairs, `--data` documents, CSV/NDJSON/JSON inputs and whole command
 * lines, each mixing well-formed pieces with junk (quotes, separators, escapes, control
 * characters, non-BMP characters and lone surrogates).
 */
import fc from 'fast-check';

/**
 * Cases per property: `SVC_FUZZ_RUNS` multiplies the counts written in the tests (10 for the long
 * run). Unset, 0.3 of them in process (720 cases; half, 1,200, before: 6.9 -> 5.4 CPU-s), each
 * property still meeting exit 0 and its usage and API errors (`SVC_RELIABILITY_STATS` prints the
 * codes per property), and 12 child processes (fuzz-spawn.test.ts): the fuzz files were ~30 of
 * the suite's CPU-s, and with the seed fixed more cases of the same run find nothing new;
 * `SVC_FUZZ_RUNS=1` runs the full written counts (2,400 and 40).
 */
export const FUZZ_SCALE = Math.max(0.1, Number(process.env.SVC_FUZZ_RUNS) || 0.3);
/** A fixed seed by default so that a failure repeats; SVC_FUZZ_SEED picks another. */
export const FUZZ_SEED = Number(process.env.SVC_FUZZ_SEED) || 20_251_122;

/** What one case produced. */
export interface CaseOutcome {
  code: number | null | undefined;
  stdout: string;
  stderr: string;
  threw?: unknown;
  hung?: boolean;
  /** Killed by a signal (child processes). */
  signal?: string | null;
}

/**
 * The rules, or undefined when they hold: an allowed exit code (0, 1, 2; 5 for a bulk run with
 * failed rows), never a hang, a throw out of runCli, "unexpected failure" or a stack trace
 * (unless `--verbose` asked for one); a failure says `error: …`; a usage error (2) is exactly
 * one `error:` line and sent nothing.
 */
/**
 * Requests that count as "sent" for a usage error: all but the org schema a bulk run pulls once
 * (read-only) to resolve an unknown column before refusing it; with `lookups`, all but reads
 * (`enroll --strict` reads whether its rows' prospects exist before it refuses rows that would fail).
 */
export function sentSince(requests: readonly { method: string; path: string }[], mark: number, lookups = false): number {
  return requests.slice(mark).filter((r) => !(r.method === 'GET' && (lookups || /\/(schema\/openapi\.json|types)$/.test(r.path)))).length;
}

export function violation(o: CaseOutcome, opts: { sent: number; allowed?: number[]; verbose?: boolean }): string | undefined {
  const allowed = opts.allowed ?? [0, 1, 2];
  if (o.hung) return 'hung';
  if (o.threw !== undefined) return `runCli threw: ${o.threw instanceof Error ? o.threw.stack : String(o.threw)}`;
  if (o.signal) return `killed by ${o.signal}`;
  if (o.code === null || o.code === undefined || !allowed.includes(o.code)) return `exit code ${o.code}`;
  if (/unexpected failure/.test(o.stderr)) return 'unexpected failure';
  // The contract: never a stack trace, unless --verbose.
  if (!opts.verbose && /^\s+at .+(:\d+:\d+\)?|<anonymous>\)?)$/m.test(o.stderr)) return 'stack trace';
  const errors = o.stderr.split('\n').filter((l) => l.startsWith('error: '));
  if (o.code !== 0 && errors.length === 0) return 'failed without an error line';
  if (o.code === 2) {
    if (errors.length !== 1) return `${errors.length} error lines for a usage error`;
    if (opts.sent > 0) return `usage error after sending ${opts.sent} request(s)`;
  }
  return undefined;
}

/**
 * fast-check's `binary` string unit (any code point but a surrogate), built the same way (a
 * `nat` mapped onto the same two ranges, so a seed generates the same strings) but with an
 * unmapper that computes the index. fast-check's own unmapper is a table of all 1.1 million
 * code points, which it builds as soon as a string of that unit is declared (to cut its
 * "dangerous strings" into units): ~1 CPU-s of the fuzz file's 3.8.
 */
const SURROGATES = 0xe000 - 0xd800;
export const binaryUnit: fc.Arbitrary<string> = fc.nat({ max: 0x10ffff - SURROGATES }).map(
  (i) => String.fromCodePoint(i < 0xd800 ? i : i + SURROGATES),
  (s) => {
    const cp = typeof s === 'string' ? s.codePointAt(0) : undefined;
    if (cp === undefined || String.fromCodePoint(cp) !== s || (cp >= 0xd800 && cp < 0xe000)) throw new Error('not a binary unit');
    return cp < 0xd800 ? cp : cp - SURROGATES;
  },
);

/** Strings with junk in them: printable, full Unicode, control characters and lone surrogates. */
export const junk = (maxLength = 24) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: binaryUnit, maxLength }) },
    {
      weight: 1,
      arbitrary: fc.string({
        unit: fc.constantFrom(',', '.', '\\', '=', '"', "'", ';', '\n', '\r', '\t', '[', ']', '%', '&', '#', '?', ' ', '-', ':', '@'),
        maxLength,
      }),
    },
  );

/** Values that are nearly right: ranges, lists, escapes, numbers, dates, JSON. */
const tricky = fc.constantFrom(
  'CEO',
  'CEO,CTO',
  '2024-01-01..2024-02-01',
  '2024-01-01..',
  '..2024-01-01',
  '..',
  '...',
  '1..2..3',
  ',',
  ',,',
  'a\\,b',
  'a\\..b',
  '\\',
  '\\\\',
  'inf',
  'neginf..inf',
  '',
  ' ',
  '1',
  '-1',
  '0',
  '1.5',
  '1e999',
  'NaN',
  'true',
  'yes',
  'null',
  '2024-02-30',
  '2024-01-01T25:00:00',
  '[1,2]',
  '{"a":1}',
  '"x"',
  '%00',
  '%',
  '\u0000',
  '\ud800',
  '😀',
  'ünïcödé',
  'x'.repeat(300),
);
const value = fc.oneof(tricky, junk());

/** Attribute and relationship names of prospects and accounts, some not filterable, some unknown. */
const fieldNames = fc.constantFrom(
  'title',
  'firstName',
  'lastName',
  'emails',
  'createdAt',
  'updatedAt',
  'score',
  'optedOut',
  'tags',
  'dateOfBirth',
  'nickname',
  'contactHistogram',
  'custom1',
  'custom150',
  'custom151',
  'id',
  'name',
  'domain',
  'account',
  'owner',
  'stage',
  'account.id',
  'account.name',
  'owner.email',
  'stage.id',
  'noSuchField',
  'a.b.c',
  '.x',
  'x.',
  'title.id',
  '',
);

/** Filterable fields with plain values: requests that the server answers (exit 0 or 1). */
const plausibleFilter = fc
  .tuple(
    fc.constantFrom(
      'title',
      'firstName',
      'lastName',
      'emails',
      'name',
      'domain',
      'state',
      'createdAt',
      'id',
      'account.id',
      'owner.id',
      'custom1',
    ),
    fc.oneof(fc.stringMatching(/^[A-Za-z0-9 @._-]{0,12}$/), fc.constantFrom('CEO,CTO', '1..5', '2024-01-01..', '..2030-01-01', 'a,b')),
  )
  .map(([n, v]) => `${n}=${v}`);

/** A `--filter` expression. */
export const filterExpr = fc.oneof(
  { weight: 4, arbitrary: plausibleFilter },
  { weight: 5, arbitrary: fc.tuple(fieldNames, value).map(([n, v]) => `${n}=${v}`) },
  { weight: 1, arbitrary: fc.tuple(fieldNames, fc.constantFrom('', '==', '=,', '=..', '=\\')).map(([n, v]) => `${n}${v}`) },
  { weight: 2, arbitrary: junk() },
);

/** An `--attr` flag. */
export const attrFlag = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fieldNames, value).map(([k, v]) => `${k}=${v}`) },
  { weight: 2, arbitrary: fc.tuple(fieldNames, fc.oneof(fc.json(), junk())).map(([k, v]) => `${k}:=${v}`) },
  { weight: 1, arbitrary: junk() },
);

/** A `--data` argument: JSON documents of every shape, near-JSON, junk. */
export const dataArg = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record({
        data: fc.record(
          {
            type: fc.constantFrom('prospect', 'account', 'nope', ''),
            attributes: fc.dictionary(fieldNames, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
          },
          { requiredKeys: [] },
        ),
      })
      .map((d) => JSON.stringify(d)),
  },
  { weight: 2, arbitrary: fc.dictionary(fieldNames, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map((d) => JSON.stringify(d)) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 2 }).map((j) => j.slice(0, Math.max(0, j.length - 1))) },
  { weight: 1, arbitrary: junk(40) },
);

const csvCell = fc.oneof(tricky, junk(12), fc.constantFrom('"quoted, cell"', '"a ""b"" c"', '"open', 'x"y', '1;2;3', '=1+1'));
const csvHeader = fc.array(fc.oneof(fieldNames, junk(8)), { minLength: 1, maxLength: 5 });

/** An input file's name (its extension picks the reader) and content. */
export const inputFile = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(csvHeader, fc.array(fc.array(csvCell, { maxLength: 6 }), { maxLength: 5 }), fc.constantFrom('\n', '\r\n'))
      .map(([h, rows, nl]) => ({ name: 'in.csv', text: [h.join(','), ...rows.map((r) => r.join(','))].join(nl) + nl })),
  },
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.oneof(
          fc.dictionary(fieldNames, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map((o) => JSON.stringify(o)),
          fc.json({ maxDepth: 2 }),
          junk(20),
        ),
        { maxLength: 5 },
      )
      .map((lines) => ({ name: 'in.ndjson', text: lines.join('\n') })),
  },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }).map((text) => ({ name: 'in.json', text })) },
  { weight: 1, arbitrary: junk(60).map((text) => ({ name: 'in.csv', text })) },
  { weight: 1, arbitrary: junk(60).map((text) => ({ name: 'in.txt', text })) },
);

const WORDS = [
  'prospects',
  'accounts',
  'sequence-states',
  'sequenceStates',
  'tasks',
  'calls',
  'webhooks',
  'list',
  'get',
  'create',
  'update',
  'delete',
  'finish',
  'mark-complete',
  'api',
  'GET',
  'POST',
  'auth',
  'status',
  'token',
  'profiles',
  'use',
  'remove',
  'logout',
  'resources',
  'schema',
  'show',
  'pull',
  'completion',
  'bash',
  'zsh',
  'enroll',
  'verify',
  'cleanup',
  'help',
  '1',
  '0',
  '-1',
  '99999999',
  'prospect',
];
const OPTIONS = [
  '--limit',
  '--all',
  '-o',
  '--output',
  '--json',
  '--filter',
  '--sort',
  '--include',
  '--fields',
  '--page-size',
  '--columns',
  '--count',
  '--timeout',
  '--profile',
  '-v',
  '--verbose',
  '--dry-run',
  '-y',
  '--yes',
  '--no-color',
  '--help',
  '-h',
  '--version',
  '-V',
  '--attr',
  '--rel',
  '--data',
  '--param',
  '--new-filter-syntax',
  '--concurrency',
  '--sequence',
  '--mailbox',
  '--prospect',
  '--secret',
  '--signature',
  '--strict',
  '--shard',
  '--',
  '-',
];
/** Words that would wait for the outside world (a browser, deliveries, a server) or stdin. */
const OUTSIDE = /^(login|sandbox|listen|trigger|--sandbox|-|--base-url|--auth-url|--input|--report|--journal|--cleanup-token)$/;

/** Whole command lines from command words, options, near-misses and junk. */
export const commandLine = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...WORDS) },
      { weight: 4, arbitrary: fc.constantFrom(...OPTIONS) },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom(...WORDS, ...OPTIONS)
          .chain((w) => fc.nat({ max: Math.max(0, w.length - 1) }).map((i) => w.slice(0, i) + w.slice(i + 1))),
      },
      { weight: 2, arbitrary: value },
    ),
    { minLength: 0, maxLength: 7 },
  )
  .filter((argv) => !argv.some((a) => OUTSIDE.test(a)));
