/** Option parsers shared by the webhook tools. */
import { UsageError } from '../../errors.js';

/** An http(s) URL from a flag. */
export function parseHttpUrl(value: string, flag: string): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new UsageError(`${flag}: "${value}" is not a URL (e.g. http://localhost:3000/hooks)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`${flag}: only http(s) URLs are supported`);
  return u;
}

/** `--payload-version 1|2`. */
export function parsePayloadVersion(value: string): 1 | 2 {
  if (value.trim() === '1') return 1;
  if (value.trim() === '2') return 2;
  throw new UsageError(`--payload-version: expected 1 or 2, got "${value}"`);
}
