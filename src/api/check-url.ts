/** URL flags (`--base-url`, `--auth-url`) checked before anything is sent, and their origins compared. */
import { UsageError } from '../errors.js';

/** Throws a usage error naming the flag unless `url` is an absolute http(s) URL. */
export function checkHttpUrl(url: string, flag: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`${flag}: "${url}" is not a URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new UsageError(`${flag}: only http(s) URLs are supported`);
}

/** The origin (scheme, host, port) of a URL, or undefined when it is missing or not a URL. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
