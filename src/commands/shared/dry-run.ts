/**
 * What `--dry-run` prints for commands that send single requests: each request as it would go
 * out — method and URL, the headers that matter (secrets as `***`), a blank line, the JSON body
 * indented — then notes such as files that would be written. One format for every command.
 */
import type { Context } from '../../runtime/context.js';
import { writeOut } from '../../output/io.js';

/** A request a command would send. */
interface PlannedRequest {
  method: string;
  url: URL | string;
  /** Shown as `name: value` lines; mask secrets before. */
  headers?: Record<string, string>;
  body?: unknown;
  /** The body as the bytes that would be sent, printed as they are instead of `body` indented (a signed body). */
  rawBody?: string;
}

/** The dry-run text of `requests`, then `notes` in parentheses, one per line. */
export function dryRunText(requests: PlannedRequest[], notes: string[] = []): string {
  let text = '';
  for (const r of requests) {
    const headers = Object.entries(r.headers ?? {}).map(([k, v]) => `${k}: ${v}\n`);
    text += `${r.method} ${String(r.url)}\n${headers.join('')}`;
    const body = r.rawBody ?? (r.body !== undefined ? JSON.stringify(r.body, null, 2) : undefined);
    if (body !== undefined) text += `${headers.length ? '\n' : ''}${body}\n`;
  }
  return text + notes.map((n) => `(${n})\n`).join('');
}

/** Prints what `--dry-run` would send on stdout (data: a script may read it). */
export async function printDryRun(ctx: Context, requests: PlannedRequest[], notes?: string[]): Promise<void> {
  await writeOut(ctx.io.stdout, dryRunText(requests, notes));
}
