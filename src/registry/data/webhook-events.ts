/**
 * Webhook resources and their actions, copied from the spec's Events section
 * ("Webhook registration values", second table). `*` means "all" on both axes.
 */
export const WEBHOOK_RESOURCE_ACTIONS: Record<string, readonly string[]> = {
  '*': ['*', 'created', 'updated', 'destroyed'],
  account: ['*', 'created', 'updated', 'destroyed'],
  call: ['*', 'created', 'updated', 'destroyed'],
  emailAddress: ['*', 'created', 'updated', 'destroyed'],
  opportunity: ['*', 'created', 'updated', 'destroyed'],
  opportunityProspectRole: ['*', 'created', 'updated', 'destroyed'],
  prospect: ['*', 'created', 'updated', 'destroyed'],
  sequence: ['*', 'created', 'updated', 'destroyed'],
  import: ['*', 'created', 'finished'],
  voiceRecording: ['*', 'created'],
  mailing: ['*', 'created', 'updated', 'destroyed', 'bounced', 'delivered', 'opened', 'replied'],
  sequenceState: ['*', 'created', 'updated', 'destroyed', 'advanced', 'finished'],
  task: ['*', 'created', 'updated', 'destroyed', 'completed'],
  user: ['*', 'created', 'updated'],
};

/** Every value the webhook `resource` attribute accepts (`*` included). */
export const WEBHOOK_RESOURCES: readonly string[] = Object.keys(WEBHOOK_RESOURCE_ACTIONS);

/** Every value the webhook `action` attribute accepts for some resource (union of the rows). */
export const WEBHOOK_ACTIONS: readonly string[] = [...new Set(Object.values(WEBHOOK_RESOURCE_ACTIONS).flat())];

/** The actions of one webhook resource, for `defineType({ webhookActions })`. */
export function webhookActionsOf(resource: string): readonly string[] {
  const actions = WEBHOOK_RESOURCE_ACTIONS[resource];
  if (!actions) throw new Error(`registry: ${resource} is not a webhook resource`);
  return actions;
}
