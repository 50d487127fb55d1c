/**
 * Webhook event names (`<resource>.<action>`, spec: Events) checked against the registry's
 * table of webhook resources and actions.
 */
import { WEBHOOK_RESOURCE_ACTIONS } from '../registry/data/webhook-events.js';
import { nearMiss } from '../suggest.js';

/** One resource/action pair a webhook can subscribe to (`*` allowed on both sides). */
export interface EventSelector {
  resource: string;
  action: string;
}

function resourceList(): string {
  return Object.keys(WEBHOOK_RESOURCE_ACTIONS).join(', ');
}

/**
 * A problem with a resource/action pair, or undefined when the service accepts it.
 * Used for `webhooks create`, `listen --events` and `trigger`.
 */
function checkResourceAction(resource: string, action: string): string | undefined {
  const actions = WEBHOOK_RESOURCE_ACTIONS[resource];
  if (!actions)
    return `"${resource}" is not a webhook resource (${meant(resource, Object.keys(WEBHOOK_RESOURCE_ACTIONS))}use one of ${resourceList()})`;
  if (!actions.includes(action))
    return `webhooks on ${resource} do not offer action "${action}" (${meant(action, actions)}use one of ${actions.join(', ')})`;
  return undefined;
}

/** `did you mean "updated"? ` for a near miss (the plural command name, a tense, a case), else ''. */
function meant(given: string, names: readonly string[]): string {
  const near = nearMiss(given, names);
  return near && near !== '*' ? `did you mean "${near}"? ` : '';
}

/**
 * Parses `--events prospect.created,task.*,mailing` (a bare resource means all its actions).
 * @returns the selectors, or a problem naming the bad entry
 */
export function parseEventList(list: string): { selectors: EventSelector[] } | { problem: string } {
  const selectors: EventSelector[] = [];
  for (const raw of list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const dot = raw.lastIndexOf('.');
    const resource = dot < 0 ? raw : raw.slice(0, dot);
    const action = dot < 0 ? '*' : raw.slice(dot + 1);
    const problem = checkResourceAction(resource, action);
    if (problem) return { problem: `${raw}: ${problem}` };
    selectors.push({ resource, action });
  }
  if (selectors.length === 0) return { problem: 'no events given (e.g. prospect.created,task.*)' };
  return { selectors };
}

/**
 * A concrete event to simulate (`trigger`): both sides named, no wildcards.
 * @returns the pair, or a problem
 */
export function parseConcreteEvent(name: string): EventSelector | { problem: string } {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || dot === name.length - 1) return { problem: `"${name}": expected <resource>.<action>, e.g. prospect.created` };
  const resource = name.slice(0, dot);
  const action = name.slice(dot + 1);
  if (resource === '*' || action === '*') return { problem: `"${name}": name one resource and one action (no *)` };
  const problem = checkResourceAction(resource, action);
  return problem ? { problem } : { resource, action };
}

/** True when a delivery's event name is one the selectors ask for. */
export function eventMatches(selectors: readonly EventSelector[], eventName: string): boolean {
  const dot = eventName.lastIndexOf('.');
  const resource = dot < 0 ? eventName : eventName.slice(0, dot);
  const action = dot < 0 ? '' : eventName.slice(dot + 1);
  return selectors.some((s) => (s.resource === '*' || s.resource === resource) && (s.action === '*' || s.action === action));
}

/**
 * Checks the resource/action pair of a webhook write (`svc webhooks create|update`), which the
 * per-attribute enums alone cannot do: `user` has no `destroyed`. Creation fills the service's
 * defaults (`*`); an update that changes only one side is left to the service.
 */
export function checkWebhookAttributes(attributes: Record<string, unknown>, forUpdate: boolean): { field: string; reason: string }[] {
  const has = (k: string) => attributes[k] !== undefined && attributes[k] !== null;
  if (forUpdate && !(has('resource') && has('action'))) return [];
  const resource = has('resource') ? String(attributes.resource) : '*';
  const action = has('action') ? String(attributes.action) : '*';
  if (!WEBHOOK_RESOURCE_ACTIONS[resource]) return []; // the enum check already named it
  const problem = checkResourceAction(resource, action);
  return problem ? [{ field: 'action', reason: problem }] : [];
}
