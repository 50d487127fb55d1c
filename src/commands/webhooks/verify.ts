/** Handler of `svc webhooks verify --secret S --signature HEX [FILE|-]`. */
import fs from 'node:fs/promises';
import type { Context } from '../../runtime/context.js';
import { SvcError, UsageError } from '../../errors.js';
import { verifySignature } from '../../webhooks/signature.js';

/** Options of `verify`. */
interface VerifyFlags {
  secret?: string;
  signature?: string;
}

/** The signature does not match (exit 1, one line on stderr). */
class SignatureMismatch extends SvcError {
  constructor() {
    super('signature does not match the body and secret', 1);
  }
}

async function readBody(ctx: Context, file: string | undefined): Promise<Buffer> {
  if (file === undefined || file === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError('no body: give a file, or pipe the raw body to stdin');
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
    return Buffer.concat(chunks);
  }
  try {
    return await fs.readFile(file);
  } catch (err) {
    throw new UsageError(`${file}: cannot read file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Exit 0 when the signature matches the body, 1 when it does not (one line on stderr). */
export async function verifyHandler(ctx: Context, file: string | undefined, flags: VerifyFlags): Promise<void> {
  const secret = flags.secret ?? ctx.env.SVC_WEBHOOK_SECRET;
  if (!secret) throw new UsageError('--secret is required (or SVC_WEBHOOK_SECRET)');
  if (flags.signature === undefined) throw new UsageError('--signature is required (the Service-Webhook-Signature header value)');
  ctx.addSecret(secret);
  // The exact bytes: the signature is over the raw body, so no decoding or trimming.
  const body = await readBody(ctx, file);
  if (!verifySignature(secret, body, flags.signature)) {
    // A body copied from a terminal or saved with echo gains a final newline the sender never signed.
    const bare = body.subarray(0, body.length - (body.at(-1) === 0x0a ? (body.at(-2) === 0x0d ? 2 : 1) : 0));
    if (bare.length < body.length && verifySignature(secret, bare, flags.signature))
      throw new SignatureMismatch().hint(
        'it matches the body without its final newline, which was added when it was saved: keep the raw bytes (printf %s, not echo)',
      );
    throw new SignatureMismatch();
  }
  ctx.info('signature matches');
}
