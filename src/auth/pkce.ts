/**
 * The random values of one login: the CSRF `state` and the PKCE pair (RFC 7636, S256).
 * Each comes from the OS CSPRNG (32 bytes, base64url) so that nobody can guess them.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh unguessable `state` (43 characters). */
export function randomState(): string {
  return randomBytes(32).toString('base64url');
}

/** A PKCE verifier and its S256 challenge. */
interface PkcePair {
  verifier: string;
  challenge: string;
  method: 'S256';
}

/** A fresh PKCE pair: the verifier is 43 characters of the RFC 7636 alphabet. */
export function pkcePair(): PkcePair {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256(verifier), method: 'S256' };
}

/** BASE64URL(SHA256(ASCII(verifier))), RFC 7636 § 4.2. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Compares two secrets in constant time (a differing length is not secret). */
export function sameSecret(a: string | null | undefined, b: string): boolean {
  if (typeof a !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
