/**
 * `--name GLOB…` of `events tail` and `events replay`: event names as the events resource
 * writes them (`prospect_created`), the webhook spelling accepted too (`prospect.created`),
 * `*` and `?` expanded against the names the registry knows (every webhook resource and
 * action), so the filter goes to the server as a list and no page is read only to be dropped.
 * A name without wildcards passes as written: the service records names the spec does not list;
 * one the registry does not know is returned in `unknown`, for the caller to warn of (a typo,
 * `prospect_udpated`, matched nothing and `--follow` waited for ever, a trial).
 */
import { WEBHOOK_RESOURCE_ACTIONS } from '../registry/data/webhook-events.js';
import { didYouMean } from '../suggest.js';

/** Every `<resource>_<action>` the registry knows. */
function knownNames(): string[] {
  const out: string[] = [];
  for (const [resource, actions] of Object.entries(WEBHOOK_RESOURCE_ACTIONS)) {
    if (resource === '*') continue;
    for (const a of actions) if (a !== '*') out.push(`${resource}_${a}`);
  }
  return out;
}

function globRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

/**
 * The names a list of globs means.
 * @returns the names, or the glob that matches no known name
 */
export function expandNameGlobs(globs: readonly string[]): { names: string[]; unknown: string[] } | { problem: string } {
  const names = new Set<string>();
  const unknown: string[] = [];
  const known = knownNames();
  for (const raw of globs
    .flatMap((g) => g.split(','))
    .map((g) => g.trim())
    .filter(Boolean)) {
    // `prospect.created` is the webhook spelling of the same event.
    const glob = raw.replace(/\.(?=[^.]*$)/, '_');
    if (!/[*?]/.test(glob)) {
      // The service's names are lower case: `Prospect_Created` matched nothing (a review).
      const lower = glob.toLowerCase();
      if (known.includes(lower)) names.add(lower);
      else {
        names.add(glob);
        unknown.push(glob);
      }
      continue;
    }
    const re = globRegExp(glob);
    const hits = known.filter((n) => re.test(n));
    if (hits.length === 0) return { problem: `--name ${raw}: matches no event name (e.g. prospect_created, task_*, *_destroyed)` };
    for (const n of hits) names.add(n);
  }
  return { names: [...names], unknown };
}

/** The warning of a name the registry does not know: sent as written, with the nearest known one. */
export function unknownNameNote(name: string): string {
  return `--name ${name}: no event the spec lists is named so${didYouMean(name, knownNames())}; sent as written`;
}

/** The webhook event name (`prospect.created`) of an events-resource name (`prospect_created`). */
export function webhookEventName(name: string): string {
  const i = name.lastIndexOf('_');
  return i < 0 ? name : `${name.slice(0, i)}.${name.slice(i + 1)}`;
}
