/**
 * One rule per kind of numeric option: the same text is accepted or refused by every command.
 * The parsers alone, then through the real entry in-process (nothing is sent or listened on:
 * each case is refused before that).
 */
import { describe, expect, it } from 'vitest';
import { parseId, parsePort, parsePositiveNumber, parseTimerSeconds, parseWholeNumber } from '../../../src/runtime/option-parsers.js';
import { runInProcess } from '../../helpers/in-process-cli.js';
import { tempDir } from '../../helpers/run-svc.js';

describe('option parsers', () => {
  it('ports: decimal digits 0-65535 only, from a flag or a profile', () => {
    expect(parsePort('8080')).toBe(8080);
    expect(parsePort(' 0 ')).toBe(0);
    expect(parsePort(9797)).toBe(9797);
    for (const bad of ['0x50', '1e3', '80.0', '-1', '65536', '', 'http']) {
      expect(() => parsePort(bad), bad).toThrow(`--port ${bad}: expected a port number 0-65535`);
    }
  });

  it('whole numbers: digits only, within the bounds, the flag and value named', () => {
    expect(parseWholeNumber('5', '--limit', 0)).toBe(5);
    expect(parseWholeNumber('32', '--concurrency', 1, 32)).toBe(32);
    expect(() => parseWholeNumber('0x10', '--limit', 0)).toThrow('--limit 0x10: expected a whole number ≥ 0');
    expect(() => parseWholeNumber('0', '--page-size', 1)).toThrow('--page-size 0: expected a whole number ≥ 1');
    expect(() => parseWholeNumber('33', 'concurrency', 1, 32)).toThrow('concurrency 33: expected a whole number from 1 to 32');
  });

  it('positive numbers: decimals > 0, no hex or exponents', () => {
    expect(parsePositiveNumber('2.5', '--timeout', 'seconds')).toBe(2.5);
    for (const bad of ['0', '0x10', '1e3', '-3', 'soon', '']) {
      expect(() => parsePositiveNumber(bad, '--timeout', 'seconds'), bad).toThrow(`--timeout ${bad}: expected seconds > 0`);
    }
  });

  it('timer seconds: decimals from a millisecond to a day, as whole milliseconds', () => {
    expect(parseTimerSeconds('2.5', '--timeout')).toBe(2500);
    expect(parseTimerSeconds('0.001', '--timeout')).toBe(1);
    expect(parseTimerSeconds('86400', '--timeout')).toBe(86_400_000);
    for (const bad of ['0', '0.0001', '0x10', '1e3', '-3', 'soon', '', '86401', '99999999999']) {
      expect(() => parseTimerSeconds(bad, '--timeout'), bad).toThrow(`--timeout ${bad}: expected seconds from 0.001 to 86400`);
    }
  });

  it('ids: positive integers as digit strings, leading zeros dropped', () => {
    expect(parseId('007')).toBe('7');
    expect(parseId('9007199254740993')).toBe('9007199254740993');
    expect(() => parseId('0x50')).toThrow('is not a record id');
  });
});

describe('every command refuses the same text', () => {
  const env = () => {
    const dir = tempDir('svc-opts-');
    return {
      HOME: dir,
      XDG_CONFIG_HOME: dir,
      SVC_CONFIG_DIR: dir,
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_TOKEN: 't',
      NO_COLOR: '1',
      PATH: process.env.PATH,
    };
  };
  it.each([
    [['login', '--no-browser', '--port', '0x50'], '--port 0x50: expected a port number 0-65535'],
    [['webhooks', 'listen', '--port', '0x50'], '--port 0x50: expected a port number 0-65535'],
    [['sandbox', '--port', '70000'], '--port 70000: expected a port number 0-65535'],
    [['prospects', 'list', '--timeout', '0x10'], '--timeout 0x10: expected seconds from 0.001 to 86400'],
    // Was an internal error from the HTTP client (exit 1), after a request was started.
    [['prospects', 'list', '--timeout', '0.0001'], '--timeout 0.0001: expected seconds from 0.001 to 86400'],
    [['prospects', 'list', '--timeout', '9999999999'], '--timeout 9999999999: expected seconds from 0.001 to 86400'],
    [['prospects', 'list', '--limit', '0x10'], '--limit 0x10: expected a whole number ≥ 0'],
  ])('svc %j', async (argv, message) => {
    const r = await runInProcess(argv, env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${message}`);
    expect(r.stdout).toBe('');
  });
});
