/**
 * Every `svc …` example of the README — its prose's code blocks and the command reference, which
 * `npm run docs` generates from each command's --help (Examples included) — runs against the
 * sandbox: `SVC_SANDBOX=1` points the ones written for a real profile at it, one directory with
 * the files the examples read, in README order (later examples read what earlier ones wrote).
 *
 * A plain line (words, quotes, `> file`, a comment) runs through svc's program in the test
 * process (test/helpers/shell-line.ts): a bash and a bin/svc per line cost about a second each on
 * two cores, for ~110 lines. The first tests check that those lines are split as bash splits
 * them. A line with pipes, `&&` or variables runs in bash, its `svc` commands run in the test
 * process too (test/helpers/svc-bridge.ts: ~20 spawns of bin/svc were most of the file's 11
 * CPU-s), but the first such line, where `svc` is the built bin/svc (`SVC_RECIPES_BIN=1`: all of
 * them). The "Common tasks" recipes run whole in bash in readme-recipes.test.ts, and their lines
 * are left to that file: each block there runs as written in a directory of its own with
 * `set -eo pipefail`, every line of it to exit 0 (here 0 or 5) and stderr without an `error:`
 * line (a crash prints `error: unexpected failure`), so that file checks those lines at least as
 * strictly as this one would: 48 of the 100 lines run here until 2026-11-29 (5.1 → 4.1 CPU-s).
 * Lines of its `sh no-test` blocks still run here.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, baseEnv, tempDir } from '../helpers/run-svc.js';
import { sectionBlocks } from '../helpers/readme.js';
import { plainCommand, runPlainCommand } from '../helpers/shell-line.js';
import { SvcBridge } from '../helpers/svc-bridge.js';

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd, env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export function readmeExamples(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const lines = m[2]!.split('\n');
    for (let i = 0; i < lines.length; i++) {
      let l = lines[i]!;
      if (!/^\s*(\$ )?svc /.test(l)) continue;
      while (l.trimEnd().endsWith('\\') && i + 1 < lines.length) l = `${l.trimEnd().slice(0, -1)} ${lines[++i]!.trim()}`;
      out.push(l.replace(/^\s*(\$ )?/, '').trim());
    }
  }
  return out;
}

/**
 * The examples that cannot run against a sandbox, each with why. Synopsis lines (`svc <resource>
 * list [--filter EXPR]…`) are not examples and are left out by their `<`/`[`/`|` placeholders.
 */
const CANNOT_RUN: [RegExp, string][] = [
  [/"\$run"/, 'needs the run id an earlier line of its recipe reads (the recipe runs whole in "Common tasks")'],
  [/--db postgres:|--schema /, 'needs a PostgreSQL server (covered by test/mirror/postgres-team.test.ts)'],
  [/^svc (--profile \S+ )?log(in|out)\b/, 'logging in opens a browser or needs a real OAuth client'],
  [/^svc auth token\b/, 'prints a real access token: the sandbox has no login to show'],
  [/^svc sandbox\b/, 'starts a server that runs until stopped (covered by sandbox-command.test.ts)'],
  [/\bwebhooks listen\b/, 'runs until stopped (covered by webhooks-listen.test.ts)'],
  [/\bevents tail\b.*(--follow|-f)\b/, 'runs until stopped (covered by test/events/tail.test.ts)'],
  [/--since-cursor/, 'needs the cursor an earlier tail printed'],
  [/\bevents replay\b(?!.*--plan)/, 'sends to a receiver (covered by test/events/replay.test.ts)'],
  [/&(\s+#.*)?$/, 'runs in the background alongside a long-running command'],
  [/^svc open\b/, 'opens a browser'],
  [/--profile (prod|staging)\b/, "a real org's profile"],
  [/--sandbox-data prod-copy\.json/, 'needs a copy made from a real org (sandbox --from-profile)'],
  [/\bwebhooks cleanup\b/, 'needs the cleanup token of a registration at a real service'],
  [/\bwebhooks (trigger|verify)\b(?!.*--dry-run)/, 'needs a receiver or a real signature ($SECRET, $SIG)'],
  [/~\/\.config/, 'writes into the home directory'],
];

/** A line that shows a command's form rather than a command (placeholders). */
const isSynopsis = (l: string) => /<[a-z.]|\s\[-|\[--|\b[A-Z]+\|[A-Z]+\b|\| use NAME/.test(l);

/** The files the examples read, as a user would have them. */
const EXAMPLE_FILES: Record<string, string> = {
  'leads.csv': 'First Name,Last Name,E-mail,Job Title\nLin,Ng,lin.ng@example.com,CEO\nMo,Ali,mo.ali@example.com,CTO\n',
  'edited.csv': 'Email,Job Title\nlin.ng@example.com,CFO\nnew.person@example.com,VP Sales\n',
  // Not 2: an earlier example deletes prospect 2.
  'ids.txt': '9\n10\n11\n12\n13\n14\n15\n16\n',
  'changes.ndjson': '{"id":1,"title":"COO"}\n',
  'wrong.ndjson': '{"id":5,"title":"Wrong title"}\n',
  'body.json': '{"data":{"type":"prospect","id":1}}\n',
  'weekly.sql': "select title, count(*) as n from prospects where title <> '' group by 1 order by 2 desc limit 10\n",
};

describe('README and --help examples run on the sandbox', () => {
  // The README and the guides its sections point to (docs/): an example moved there is still run.
  const guides = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
  const markdown = ['README.md', ...guides.map((f) => path.join('docs', f))].map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8'));
  const examples = [...new Set(markdown.flatMap(readmeExamples))].filter((l) => !isSynopsis(l));
  const dir = tempDir('svc-examples-');
  for (const [name, text] of Object.entries(EXAMPLE_FILES)) fs.writeFileSync(path.join(dir, name), text);
  const extraEnv = {
    SVC_CONFIG_DIR: path.join(dir, '.config'),
    SVC_DATA_DIR: path.join(dir, '.data'),
    SVC_SANDBOX: '1',
  };
  const bridge = new SvcBridge();

  it("finds the examples, the reference's --help examples among them", () => {
    expect(examples.length).toBeGreaterThan(60);
    expect(examples).toContain('svc enroll --sequence 3 --mailbox 1 --prospect 10 --prospect 11,12');
  });

  // The lines readme-recipes.test.ts runs whole in their blocks (the header says why not here
  // too), but the sync: later lines here (`svc sync --status`, `svc sql …`) read its mirror.
  const recipeLines = new Set(
    sectionBlocks(markdown[0]!, 'Common tasks')
      .filter((b) => b.info === 'sh')
      .flatMap((b) => readmeExamples(`\`\`\`sh\n${b.body}\`\`\``))
      .filter((l) => l !== 'svc --sandbox sync'),
  );
  const runnable = examples.filter((l) => !recipeLines.has(l) && !CANNOT_RUN.some(([re]) => re.test(l)));
  const plain = new Map(
    runnable.flatMap((l) => {
      const cmd = plainCommand(l);
      return cmd ? [[l, cmd] as const] : [];
    }),
  );

  it('runs most lines in process, split as bash splits them', async () => {
    expect(plain.size).toBeGreaterThan(runnable.length / 2);
    // One bash for all: each line in a directory of its own, `svc` writing its words there.
    const split = tempDir('svc-split-');
    const lines = [...plain.keys()];
    const script = lines
      // The line alone on its own line: a trailing comment ends there.
      .map((l, i) => `mkdir d${i}; (cd d${i} && svc() { printf '%s\\0' "$@" > "$PWD/.args"; }\n${l}\n)`)
      .join('\n');
    const r = await bash(`set -e\n${script}`, split, baseEnv());
    expect(r.code, r.stderr).toBe(0);
    for (const [i, l] of lines.entries()) {
      const cmd = plain.get(l)!;
      const words = fs
        .readFileSync(path.join(split, `d${i}`, '.args'), 'utf8')
        .split('\0')
        .slice(0, -1);
      expect(cmd.args, l).toEqual(words);
      if (cmd.stdoutTo !== undefined && cmd.stdoutTo !== '/dev/null') {
        expect(fs.existsSync(path.join(split, `d${i}`, cmd.stdoutTo)), l).toBe(true);
      }
    }
  });

  it('leaves to bash what only bash can say', () => {
    for (const l of [
      'svc a | jq .',
      'svc a && svc b',
      'svc a "$run"',
      'svc a $X',
      'svc a *.csv',
      'svc a 2> e',
      'svc a >> f',
      'svc a \\b',
      'jq . x',
    ]) {
      expect(plainCommand(l), l).toBeUndefined();
    }
    expect(plainCommand(`svc a --attr name="Acme Rockets" 'x y' > out.json   # note`)).toEqual({
      args: ['a', '--attr', 'name=Acme Rockets', 'x y'],
      stdoutTo: 'out.json',
    });
  });

  const firstInBash = runnable.find((l) => !plain.has(l));
  for (const example of runnable) {
    it(`runs: ${example.slice(0, 100)}`, async () => {
      const cmd = plain.get(example);
      const r = cmd
        ? await runPlainCommand(cmd, dir, { env: extraEnv })
        : await bridge.run(example, dir, extraEnv, { binary: example === firstInBash });
      // Exit 5 (some rows failed, each named: the seed's prospects without an e-mail, say) is a
      // run that went as written; a usage error (2), a failure (1) or a crash is not.
      const rowsFailed = r.code === 5 && /^row \d+: /m.test(r.stderr);
      expect(r.code === 0 || rowsFailed, `exit ${r.code}: ${example}\nstderr:\n${r.stderr}`).toBe(true);
      expect(r.stderr, example).not.toMatch(/unexpected failure/);
    }, 60_000);
  }
});
