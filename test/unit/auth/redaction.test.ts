/**
 * Secrets a login handles (tokens, client secret, code) never reach stderr: traces, errors and
 * crash output with stack traces all pass through the Context's redaction.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContext, type App } from '../../../src/cli/app.js';
import { reportError } from '../../../src/cli/report-error.js';
import { AuthError } from '../../../src/errors.js';

function ctxWithStderr() {
  const stderr = new PassThrough();
  let text = '';
  stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
  const io = { stdout: new PassThrough(), stderr, stdin: new PassThrough(), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, color: false, columns: 80 };
  const app: App = { io, env: {}, exitCode: 0, signal: new AbortController().signal };
  const ctx = createContext(app, { verbose: true, dryRun: false, yes: false, sandbox: false, timeoutMs: 1000 });
  return { ctx, out: () => text };
}

describe('redaction', () => {
  const access = 'Oa48D5Mlqlixy60PIhATckw0TLBz9h9s6PhjUO2Uwac';
  const refresh = '1mqumUSuCrLSvyNV2_ikHcJUEFJdKKdQz1Qd7-mcTqc';
  const secret = 'El8ZKn73BH_1LdjtO6Drj3eF_J9-Pbx6';
  const code = 'c0de-from-the-redirect-42';

  it('traces, warnings and crash output (with stack) show none of the registered secrets', () => {
    const { ctx, out } = ctxWithStderr();
    for (const s of [access, refresh, secret, code]) ctx.addSecret(s);
    ctx.trace(`authorization: Bearer ${access}`);
    ctx.trace(`GET http://127.0.0.1:8976/callback?code=${code}&state=x`);
    ctx.warn(`body client_secret=${secret}&refresh_token=${refresh}`);
    const crash = new Error(`unexpected: ${JSON.stringify({ accessToken: access, refreshToken: refresh })}`);
    const code1 = reportError(crash, { stderr: ctx.io.stderr, verbose: true, json: true, redact: ctx.redact });
    const code3 = reportError(new AuthError(`refresh failed for ${refresh}`), { stderr: ctx.io.stderr, verbose: true, json: false, redact: ctx.redact });
    expect([code1, code3]).toEqual([1, 3]);
    const text = out();
    expect(text).toContain('at '); // the stack trace was printed (verbose)…
    for (const s of [access, refresh, secret, code]) expect(text).not.toContain(s); // …without secrets
    expect(text).toContain('Bearer ***');
  });
});
