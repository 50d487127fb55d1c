/**
 * `svc open <type> <id>` and `get --web`: the record's page in the web app, from the profile's
 * `appUrl` template (`svc config set appUrl 'https://app.example.com/{path}/{id}'`). Nothing is
 * sent to the API. `$BROWSER` is honoured (`shared/open-browser.ts`, as login and reports open theirs);
 * `--no-browser` only prints the address.
 */
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { findResource, type ResourceType } from '../../registry/index.js';
import { didYouMean } from '../../suggest.js';
import { RESOURCES } from '../../registry/index.js';
import { parseId } from '../../runtime/option-parsers.js';

/** The address of a record from an `appUrl` template: `{type}` `prospect`, `{path}` `prospects`, `{command}`, `{id}`. */
function webUrl(template: string, rt: ResourceType, id: number | string): string {
  const values: Record<string, string> = { type: rt.type, path: rt.path, command: rt.command, id: String(id) };
  return template.replace(/\{(type|path|command|id)\}/g, (_, k: string) => encodeURIComponent(values[k]!));
}

/** The resource type a user named, or a usage error with a suggestion. */
export function resourceNamed(name: string): ResourceType {
  const rt = findResource(name);
  if (rt) return rt;
  throw new UsageError(
    `unknown type "${name}"${didYouMean(
      name,
      RESOURCES.map((r) => r.command),
    )}`,
  ).hint('`svc resources` lists every type');
}

/** Opens (or prints) the web page of one record. */
export async function openRecord(ctx: Context, rt: ResourceType, idArg: string, opts: { browser?: boolean } = {}): Promise<void> {
  const id = parseId(idArg);
  const store = await ctx.config();
  const name = store.currentName();
  const template = store.get(name)?.settings?.appUrl;
  if (typeof template !== 'string') {
    throw new UsageError(`profile "${name}" has no appUrl: svc does not know the web app's addresses`).hint(
      `set it once, e.g. \`${svcAgain(ctx)} config set appUrl 'https://app.example.com/{path}/{id}'\``,
    );
  }
  const url = webUrl(template, rt, id);
  ctx.io.stdout.write(`${url}\n`);
  if (opts.browser === false) return;
  ctx.info(`Opening ${url} in your browser.`);
  await launch(ctx, url);
}

/** `$BROWSER` (each of its entries in turn, split as the shell would), else the system's opener. */
async function launch(ctx: Context, url: string): Promise<void> {
  const { openBrowser } = await import('../shared/open-browser.js');
  if (!(await openBrowser(url, ctx.env))) {
    const browser = ctx.env.BROWSER?.trim();
    ctx.warn(`could not start a browser${browser ? ` ($BROWSER=${browser})` : ''}; open the address above yourself`);
  }
}
