/** URL flags (`--base-url`, `--auth-url`) checked before anything is sent. */
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
