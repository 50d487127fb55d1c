/**
 * The `Service-Webhook-Signature` header (spec: Events, Delivery): the hexadecimal HMAC-SHA256
 * of the raw request body, keyed with the webhook's secret.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Name of the signature header, as the service sends it (HTTP headers are case-insensitive). */
export const SIGNATURE_HEADER = 'Service-Webhook-Signature';
/** Name of the header carrying the webhook's cleanup token in every delivery. */
export const CLEANUP_TOKEN_HEADER = 'service-webhook-cleanup-token';

/** Hex HMAC-SHA256 of `body` keyed with `secret`. */
export function signBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * True when `signature` is the right hex HMAC of `body`. Compared in constant time; a missing,
 * empty, odd-length or non-hex header is simply "no match" — never an exception, since the
 * header comes from whoever reached the listener.
 */
export function verifySignature(secret: string, body: Buffer | string, signature: string | string[] | undefined): boolean {
  const given = normalizeSignature(Array.isArray(signature) ? signature[0] : signature);
  if (given === undefined) return false;
  const expected = Buffer.from(signBody(secret, body), 'hex');
  const actual = Buffer.from(given, 'hex');
  // Buffer.from(hex) stops at the first bad pair, so the length check also catches junk.
  if (actual.length !== expected.length) return false;
  return timingSafeEqual(actual, expected);
}

/** Lower-case hex without spaces or a `sha256=` prefix, or undefined when it cannot be hex. */
function normalizeSignature(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const s = raw
    .trim()
    .replace(/^sha256=/i, '')
    .toLowerCase();
  if (s.length === 0 || s.length % 2 !== 0 || !/^[0-9a-f]+$/.test(s)) return undefined;
  return s;
}
