/** `--data` arguments: inline JSON, `@file`, or `-` for stdin. */
import fs from 'node:fs/promises';
import { nestedDeeperThan, tooDeepMessage } from '../../json-depth.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { parseJson } from '../../lossless-json.js';

/** Reads all of a stream as text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses `--data` into a JSON value; a usage error when unreadable or not JSON. */
export async function readDataArgument(ctx: Context, arg: string): Promise<unknown> {
  let text: string;
  let from: string;
  if (arg === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError('--data -: stdin is a terminal; pipe the JSON in');
    text = await readAll(ctx.io.stdin);
    from = 'stdin';
  } else if (arg.startsWith('@')) {
    from = arg.slice(1);
    try {
      text = await fs.readFile(from, 'utf8');
    } catch (err) {
      throw new UsageError(`--data ${arg}: cannot read file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  } else {
    text = arg;
    from = 'argument';
  }
  let value: unknown;
  try {
    value = parseJson(text) as unknown;
  } catch (err) {
    throw new UsageError(`--data (${from}): not valid JSON: ${(err as Error).message}`);
  }
  if (nestedDeeperThan(value)) throw new UsageError(`--data (${from}): ${tooDeepMessage()}`);
  return value;
}
