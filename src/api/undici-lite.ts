/**
 * The two pieces of undici the API client uses — the keep-alive `Agent` and `request` — taken
 * from undici's own files. Its index loads every feature (fetch, WebSocket, caches, mocks,
 * proxies), which costs every command that makes a request ~25 ms of start-up; the build also
 * leaves out undici's HTTP/2 client, which svc never negotiates (README § Build).
 */
// Performance machinery (src/README.md, Build): undici's private files (undici pinned to ~7.30.2) and `--liftoff-only`.
import { setFlagsFromString } from 'node:v8';
import type { Agent as AgentType, Dispatcher } from 'undici';
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import requestImpl from 'undici/lib/api/api-request.js';

let baselineOnly = false;

/**
 * A keep-alive agent. undici parses HTTP with llhttp compiled to WebAssembly; V8 re-compiles its
 * hot functions with its optimising tier in the background, and a process cannot exit before
 * those jobs end (~80 ms after every command). The baseline tier parses a 5 MB page in a few
 * milliseconds, so svc keeps to it.
 */
export function createAgent(opts: AgentType.Options): Dispatcher {
  if (!baselineOnly) {
    baselineOnly = true;
    setFlagsFromString('--liftoff-only');
  }
  return new AgentImpl(opts);
}

/** undici's `request(url, options)`, on the given dispatcher. */
export function request(
  url: URL,
  opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher },
): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = opts;
  return requestImpl.call(dispatcher, { ...rest, origin: url.origin, path: `${url.pathname}${url.search}` });
}
