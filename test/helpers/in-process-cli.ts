/**
 * Runs svc's real entry (`runCli` of src/cli/run-cli.ts) inside the test process, capturing what
 * it writes to stdout and stderr, for property tests that need thousands of cases (a child
 * process costs 100–300 ms each). Every case gets a fresh program and Context from runCli itself;
 * what main.ts does around runCli — turning an exception into "unexpected failure" — is reported
 * here as `threw`, which a test counts as a crash.
 *
 * Cases run one at a time (stdout and stderr are the process's own streams). Commands that wait
 * for the outside world (login, webhooks listen, sandbox) and `-` (stdin) do not belong here.
 */
import { runCli } from '../../src/cli/run-cli.js';

/** The outcome of one in-process run. */
export interface InProcessResult {
  code: number | undefined;
  stdout: string;
  stderr: string;
  /** runCli threw: main.ts would print "unexpected failure" (a crash). */
  threw?: unknown;
  /** It did not finish within the time limit. */
  hung?: boolean;
}

type Write = typeof process.stdout.write;

/** Runs one argv through runCli with captured output. */
export async function runInProcess(argv: string[], env: NodeJS.ProcessEnv, timeoutMs = 10_000): Promise<InProcessResult> {
  const out = { stdout: '', stderr: '' };
  const streams = [
    [process.stdout, 'stdout'],
    [process.stderr, 'stderr'],
  ] as const;
  const saved = streams.map(([s]) => ({ write: s.write, listeners: s.listeners('error') }));
  for (const [s, name] of streams) {
    s.write = ((chunk: string | Uint8Array, enc?: BufferEncoding | ((e?: Error) => void), cb?: (e?: Error) => void) => {
      out[name] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const done = typeof enc === 'function' ? enc : cb;
      if (done) queueMicrotask(() => done());
      return true;
    }) as Write;
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const run = runCli(argv, env, '0.0.0-test').then(
      (code) => ({ code, ...out }),
      (threw: unknown) => ({ code: undefined, threw, ...out }),
    );
    const limit = new Promise<InProcessResult>((resolve) => {
      timer = setTimeout(() => resolve({ code: undefined, hung: true, ...out }), timeoutMs);
    });
    return await Promise.race([run, limit]);
  } finally {
    clearTimeout(timer);
    streams.forEach(([s], i) => {
      s.write = saved[i]!.write;
      // runCli adds an EPIPE handler per run: leave the streams as they were.
      for (const l of s.listeners('error')) if (!saved[i]!.listeners.includes(l)) s.off('error', l as (...a: unknown[]) => void);
    });
  }
}
