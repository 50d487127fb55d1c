/**
 * In-process runs of svc (see in-process-cli.ts) pointed at a server that records every request
 * and answers each with a 400 (not retried, so a run that does send ends quickly): for checks of
 * what svc says before it sends anything (usage errors, dry runs), where "nothing was sent" is
 * read from what the server received.
 */
import { runInProcess, type InProcessOptions, type InProcessResult } from './in-process-cli.js';
import { baseEnv, tempDir } from './run-svc.js';
import { startTinyServer, type Received } from './tiny-server.js';

/** The token the runs carry: a test that sees it in the output has found a leak. */
export const UNSENT_TOKEN = 'unsent-test-token';

/** One run and the requests the server received during it. */
export type UnsentResult = InProcessResult & { sent: Received[] };

/** A recording server and a way to run svc against it. */
export interface Unsent {
  /** The API base URL runs are pointed at (`…/api/v2`). */
  baseUrl: string;
  /** Every request received so far. */
  received: Received[];
  /** The environment of one run: no inherited svc settings, a fresh config dir, this server, a token. */
  env(extra?: Record<string, string | undefined>): NodeJS.ProcessEnv;
  /** Runs argv in-process with {@link env} (or the given environment). */
  run(argv: string[], env?: NodeJS.ProcessEnv, options?: InProcessOptions): Promise<UnsentResult>;
  close(): Promise<void>;
}

/** Starts the recording server (one per test file: `beforeAll`/`afterAll`). */
export async function startUnsent(): Promise<Unsent> {
  const server = await startTinyServer(() => ({ status: 400, body: '{"errors":[{"title":"the test expected nothing"}]}' }));
  const baseUrl = `${server.url}/api/v2`;
  const env = (extra: Record<string, string | undefined> = {}) =>
    baseEnv({ SVC_CONFIG_DIR: tempDir(), SVC_BASE_URL: baseUrl, SVC_AUTH_URL: server.url, SVC_TOKEN: UNSENT_TOKEN, ...extra });
  return {
    baseUrl,
    received: server.received,
    env,
    async run(argv, runEnv = env(), options = {}) {
      const mark = server.received.length;
      const r = await runInProcess(argv, runEnv, options);
      return { ...r, sent: server.received.slice(mark) };
    },
    close: () => server.close(),
  };
}
