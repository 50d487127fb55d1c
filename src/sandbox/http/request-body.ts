/**
 * Request bodies, read on demand and bounded: the HTTP layer reads a body only once the request
 * has passed authentication (an unauthenticated client cannot make the sandbox hold anything),
 * never more than a cap (413 with an error document), and a body that breaks off or cannot be
 * decoded ends that request alone, never the process.
 */
import type { IncomingMessage } from 'node:http';
import { errors } from '../errors.js';

/** Largest request body the version-2 endpoints accept. @default 10 MiB */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Largest form body of the OAuth endpoints (a handful of short fields). */
export const MAX_FORM_BYTES = 64 * 1024;

/** At most this many characters of each body are kept in the request record (tests read small bodies). */
const RECORDED_BODY_CHARS = 16 * 1024;

/** The client broke the request off (connection closed, malformed chunked encoding): nothing to answer. */
export class BrokenRequest extends Error {}

/** The body of one request, read at most once, when a handler asks for it. */
export class RequestBody {
  private reading: Promise<string> | undefined;
  private finished = false;
  /** The text read so far ('' until read). */
  text = '';

  constructor(private readonly req: IncomingMessage) {}

  /**
   * True when the whole request came in (read by us, or parsed by Node and waiting to be
   * discarded; a request without a body is complete at once): the connection may serve another.
   */
  get consumed(): boolean {
    return this.finished || this.req.complete;
  }

  /** Reads the body as UTF-8; throws 413 past `limit` bytes and {@link BrokenRequest} when cut short. */
  read(limit: number): Promise<string> {
    this.reading ??= this.readUpTo(limit);
    return this.reading;
  }

  private readUpTo(limit: number): Promise<string> {
    const req = this.req;
    const declared = Number(req.headers['content-length']);
    // Refused before a byte is read when the client announces the size.
    if (Number.isFinite(declared) && declared > limit) return Promise.reject(errors.payloadTooLarge(limit));
    // Gone while the request was held (its latency, before the read): Node has destroyed the
    // request and its buffered body, and the events the read waits for were sent already.
    if (req.destroyed && !req.readableEnded)
      return Promise.reject(new BrokenRequest('the client closed the connection before the body was read'));
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (err?: unknown) => {
        req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
        if (err) reject(err);
      };
      const onData = (c: Buffer) => {
        size += c.length;
        if (size > limit) {
          req.pause();
          done(errors.payloadTooLarge(limit));
          return;
        }
        chunks.push(c);
      };
      const onEnd = () => {
        this.finished = true;
        this.text = Buffer.concat(chunks).toString('utf8');
        done();
        resolve(this.text);
      };
      const onError = (err: Error) => done(new BrokenRequest(err.message));
      const onClose = () => done(new BrokenRequest('the client closed the connection before the body ended'));
      req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    });
  }
}

/** The part of a body kept in the request record. */
export function recordedBody(text: string): string {
  if (text.length <= RECORDED_BODY_CHARS) return text;
  // A copy: a slice of a string may keep the whole original alive, and records stay around.
  const head = Buffer.from(text.slice(0, RECORDED_BODY_CHARS), 'utf8').toString('utf8');
  return `${head}…(${text.length} characters, truncated)`;
}
