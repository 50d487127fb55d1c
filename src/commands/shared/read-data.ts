/** `--data` arguments: inline JSON, `@file`, or `-` for stdin. */
import fs from 'node:fs';
import { unreadableFile } from '../../unreadable-file.js';
import { nestedDeeperThan, tooDeepMessage } from '../../json-depth.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { parseJson } from '../../lossless-json.js';
import { encodingByBom } from '../../bulk/input/input-encoding.js';

/**
 * The largest `--data` body: the API's own limit on a request body (the sandbox answers 413
 * past it). A file or stdin is read no further: `--data @/dev/urandom` stops at the cap.
 */
const MAX_DATA_BYTES = 10 * 1024 * 1024;

/** Thrown by {@link readAll} past its cap. */
class TooLong extends Error {}

/** Reads all of a stream as text; past `maxBytes`, stops reading (the stream is destroyed) and throws. */
export async function readAll(stream: NodeJS.ReadableStream, maxBytes = Infinity): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += b.length;
    if (size > maxBytes) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      throw new TooLong();
    }
    chunks.push(b);
  }
  return decodeText(Buffer.concat(chunks));
}

/**
 * Text by its byte order mark: UTF-16 as Windows PowerShell 5.1 writes a file (`Out-File`, `>`)
 * and Notepad's "Unicode", else UTF-8 (a mark of its own dropped). `--data @file` refused a
 * PowerShell file, and a Notepad one (a trial, a review).
 */
function decodeText(b: Buffer): string {
  try {
    // The mark names the encoding as for --input (bulk/input/input-encoding.ts); the decoder drops it.
    return new TextDecoder(encodingByBom(b) ?? 'utf-8', { fatal: true }).decode(b);
  } catch {
    // Windows PowerShell's Set-Content writes Windows-1252: sent, its é became � (a review).
    throw new NotUtf8();
  }
}

/** Thrown by {@link readAll} for text that is not UTF-8 (nor UTF-16 by its mark). */
class NotUtf8 extends Error {}

/** Parses `--data` into a JSON value; a usage error when unreadable or not JSON. */
export async function readDataArgument(ctx: Context, arg: string): Promise<unknown> {
  let text: string;
  let from: string;
  const notUtf8 = (from: string) =>
    new UsageError(`--data (${from}): not UTF-8 text (Windows-1252?); nothing was sent`).hint(
      'save it as UTF-8 (PowerShell: Set-Content -Encoding utf8; Notepad: Save As, UTF-8)',
    );
  const tooLong = () =>
    new UsageError(`--data ${arg}: more than 10 MiB, the most the API takes in one request body`).hint(
      'send one record per request, or several with --input FILE (bulk)',
    );
  if (arg === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError('--data -: stdin is a terminal; pipe the JSON in');
    try {
      text = await readAll(ctx.io.stdin, MAX_DATA_BYTES);
    } catch (err) {
      if (err instanceof TooLong) throw tooLong();
      if (err instanceof NotUtf8) throw notUtf8('stdin');
      throw err;
    }
    from = 'stdin';
  } else if (arg.startsWith('@')) {
    from = arg.slice(1);
    try {
      // A stream, not readFile: a device or a pipe (/dev/urandom) is read only up to the cap.
      text = await readAll(fs.createReadStream(from), MAX_DATA_BYTES);
    } catch (err) {
      if (err instanceof TooLong) throw tooLong();
      if (err instanceof NotUtf8) throw notUtf8(from);
      // Said as --input says it (it was a bare errno: "cannot read file (ENOENT)", a trial).
      throw unreadableFile('--data', from, err, 'check the path after the @');
    }
  } else {
    text = arg;
    from = 'argument';
  }
  if (text.trim() === '') throw new UsageError(`--data (${from}): is empty; give a JSON object`);
  let value: unknown;
  try {
    value = parseJson(text) as unknown;
  } catch (err) {
    throw new UsageError(`--data (${from}): not valid JSON: ${(err as Error).message}`);
  }
  if (nestedDeeperThan(value)) throw new UsageError(`--data (${from}): ${tooDeepMessage()}`);
  return value;
}
