/**
 * The connection string svc hands the driver (src/postgres-url.ts): sslmode prefer, require and
 * verify-ca as verify-full, the check pg 8 makes of all four, so that the driver does not print
 * its paragraph about it; with uselibpqcompat=true, and everything else, as written.
 */
import { describe, expect, it } from 'vitest';
import { driverConnectionString, sslFix } from '../../src/postgres-url.js';

describe('driverConnectionString', () => {
  it.each([
    ['postgres://u:p%40ss@h:5432/db?sslmode=require', 'postgres://u:p%40ss@h:5432/db?sslmode=verify-full'],
    [
      'postgres://u@h/db?application_name=x&sslmode=prefer&connect_timeout=3',
      'postgres://u@h/db?application_name=x&sslmode=verify-full&connect_timeout=3',
    ],
    ['postgresql://u@h/db?sslmode=verify-ca&sslrootcert=/ca.pem', 'postgresql://u@h/db?sslmode=verify-full&sslrootcert=/ca.pem'],
    ['postgres://u@h/db?sslmode=require#x', 'postgres://u@h/db?sslmode=verify-full#x'],
  ])('%s → %s', (given, sent) => {
    expect(driverConnectionString(given)).toBe(sent);
  });

  it.each([
    'postgres://u@h/db',
    'postgres://u@h/db?sslmode=disable',
    'postgres://u@h/db?sslmode=no-verify',
    'postgres://u@h/db?sslmode=verify-full',
    'postgres://u@h/db?sslmode=requirex',
    'postgres://u@h/db?xsslmode=require',
    'postgres://u@h/db?sslmode=require&uselibpqcompat=true',
    'postgres://u:sslmode=require@h/db',
  ])('%s as written', (given) => {
    expect(driverConnectionString(given)).toBe(given);
  });
});

describe('sslFix', () => {
  it('names the fix of a server without SSL and of a certificate that does not verify, and nothing else', () => {
    expect(sslFix('The server does not support SSL connections')).toMatch(/sslmode=disable/);
    expect(sslFix('self-signed certificate in certificate chain')).toMatch(/sslrootcert=FILE.*sslmode=no-verify/);
    expect(sslFix("Hostname/IP does not match certificate's altnames: IP: 10.0.0.1 is not in the cert's list")).toMatch(/sslrootcert/);
    expect(sslFix('relation "x" does not exist')).toBeUndefined();
  });
});
