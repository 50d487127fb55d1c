/**
 * The areas `svc --help` lists resource commands under, so that 51 commands read as a handful of
 * short lists (commander help groups).
 */

/** Help group headings in the order `svc --help` shows them. */
export const RESOURCE_GROUPS = ['CRM', 'Sequences', 'Mail', 'Calls', 'Tasks', 'Content', 'Org and admin', 'Other resources'] as const;

const AREAS: Record<string, (typeof RESOURCE_GROUPS)[number]> = {};
const put = (group: (typeof RESOURCE_GROUPS)[number], types: string) => {
  for (const t of types.split(' ')) AREAS[t] = group;
};
put(
  'CRM',
  'account accountNote prospect prospectNote emailAddress phoneNumber persona stage opportunity opportunityProspectRole opportunityStage product purchase',
);
put('Sequences', 'sequence sequenceState sequenceStep sequenceTemplate ruleset');
put('Mail', 'mailbox mailing mailAlias recipient');
put('Calls', 'call callDisposition callPurpose voiceRecording voiceImport');
put('Tasks', 'task taskDisposition taskPriority taskPurpose');
put('Content', 'template snippet contentCategory contentCategoryMembership contentCategoryOwnership');
put('Org and admin', 'user team role profile orgSetting duty customDuty auditLog complianceRequest');

/** The help group heading of a resource type (`Other resources:` for types of no listed area). */
export function resourceGroup(type: string): string {
  return `${AREAS[type] ?? 'Other resources'}:`;
}
