/**
 * Secrets a login handles (tokens, client secret, code) never reach stderr: traces, errors and
 * crash output with stack traces all pass through the Context's redaction.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { App } from '../../../src/runtime/app.js';
import { createContext } from '../../../src/runtime/create-context.js';
import { reportError } from '../../../src/runtime/report-error.js';
import { AuthError } from '../../../src/errors.js';
import { redactText } from '../../../src/api/redact.js';

function ctxWithStderr() {
  const stderr = new PassThrough();
  let text = '';
  stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
  const io = {
    stdout: new PassThrough(),
    stderr,
    stdin: new PassThrough(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    color: false,
    columns: 80,
  };
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
    const code3 = reportError(new AuthError(`refresh failed for ${refresh}`), {
      stderr: ctx.io.stderr,
      verbose: true,
      json: false,
      redact: ctx.redact,
    });
    expect([code1, code3]).toEqual([1, 3]);
    const text = out();
    expect(text).toContain('at '); // the stack trace was printed (verbose)…
    for (const s of [access, refresh, secret, code]) expect(text).not.toContain(s); // …without secrets
    expect(text).toContain('Bearer ***');
  });

  it('hides the whole of a token with punctuation, known or not, in every spelling', () => {
    const odd = 'tok!with$odd:chars-0123';
    const stranger = 'other!tok$en:xyz=/+.~';
    const texts = [
      `authorization: Bearer ${odd}`,
      `{"detail":"Bearer ${odd}"}`,
      `echo: Bearer ${stranger}; next`,
      JSON.stringify({ errors: [{ detail: `authorization=Bearer ${stranger}` }] }),
      `POST body refresh_token=${encodeURIComponent(odd)}&x=1`,
      `form ${new URLSearchParams({ a: odd }).toString()}`,
      JSON.stringify({ note: `a "quoted" ${odd}\\` }),
      `{"accessToken":"ab\\"cd!ef$gh"}`,
    ];
    const out = texts.map((t) => redactText(t, [odd]));
    for (const o of out) {
      for (const part of ['with$odd', 'odd:chars', 'tok$en', 'xyz=', encodeURIComponent(odd), 'cd!ef']) expect(o).not.toContain(part);
    }
    expect(out[0]).toBe('authorization: Bearer ***');
    expect(out[1]).toBe('{"detail":"Bearer ***"}');
    expect(out[2]).toBe('echo: Bearer *** next');
    expect(out[3]).toBe('{"errors":[{"detail":"authorization=Bearer ***"}]}');
    expect(out[7]).toBe('{"accessToken":"***"}');
  });

  it('a known secret wins over the patterns: no tail of it is left for them to miss', () => {
    const odd = 'Secret!Value$With:Colons';
    expect(redactText(`Bearer ${odd} and again ${odd}.`, [odd])).toBe('Bearer *** and again ***.');
    // Short values are not searched for (they would match ordinary words).
    expect(redactText('code abc', ['abc'])).toBe('code abc');
  });

  it('hides the password of a connection string in any message (a PostgreSQL mirror: --db postgres://user:pw@host)', () => {
    expect(redactText('cannot reach postgres://sync:p%40ss!w0rd@db.example.com:5432/sales: ECONNREFUSED')).toBe(
      'cannot reach postgres://sync:***@db.example.com:5432/sales: ECONNREFUSED',
    );
    expect(redactText('at postgresql://u:x@h/db and postgres://u:***@h/db, not postgres://u@h/db')).toBe(
      'at postgresql://u:***@h/db and postgres://u:***@h/db, not postgres://u@h/db',
    );
    // A password (or a user name) holding an @: the user part ends at the last @ before the host.
    expect(redactText('at postgres://u:Tail@Leak99@h:5432/db?x=1 and postgres://a@b:p@ss@h/db, ask bob@h.example')).toBe(
      'at postgres://u:***@h:5432/db?x=1 and postgres://a@b:***@h/db, ask bob@h.example',
    );
  });
});
