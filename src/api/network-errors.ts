/**
 * Low-level failures (socket, DNS, timeout) described in one plain line and classified for retry.
 */

const RETRYABLE = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  'SVC_RESPONSE_TIMEOUT',
]);

function codeOf(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code ?? e?.cause?.code;
}

/** True for failures where sending the same idempotent request again can succeed. */
export function isRetryableNetworkError(err: unknown): boolean {
  const code = codeOf(err);
  return code !== undefined && RETRYABLE.has(code);
}

/**
 * True when the connection was never made, so the request never left: sending it again is safe
 * even for a create (a sandbox handing its org over to another process answers this way for a
 * moment).
 */
export function isNeverSentError(err: unknown): boolean {
  return codeOf(err) === 'ECONNREFUSED';
}

/** One line a person understands, without the stack. */
export function describeNetworkError(err: unknown): string {
  const code = codeOf(err);
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the server running?)';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
    case 'EPIPE':
      return 'connection closed by the server before the response was complete';
    case 'ENOTFOUND':
      return 'host not found (DNS lookup failed)';
    case 'EAI_AGAIN':
      return 'DNS lookup timed out';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'timed out connecting to the server';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'SVC_RESPONSE_TIMEOUT':
    case 'ETIMEDOUT':
      return 'timed out waiting for the server (see --timeout)';
    case 'UND_ERR_ABORTED':
    case 'ABORT_ERR':
      return 'request aborted';
    default: {
      const msg = err instanceof Error ? err.message : String(err);
      return code ? `${msg} (${code})` : msg;
    }
  }
}
