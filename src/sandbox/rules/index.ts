/**
 * Type-specific rules of the spec, keyed by type name. Types not listed are plain CRUD.
 */
import type { ResourceType } from '../../registry/index.js';
import { complianceRules } from './compliance.js';
import { accountRules, prospectRules, templateRules, userRules } from './crm.js';
import { mailboxRules } from './mailboxes.js';
import { mailingRules } from './mailings.js';
import { rulesetRules, sequenceRules, sequenceStateRules, sequenceStepRules, sequenceTemplateRules } from './sequences.js';
import { callRules, taskRules } from './tasks.js';
import type { TypeRules } from './types.js';
import { webhookRules } from './webhooks.js';

const RULES: Record<string, TypeRules> = {
  account: accountRules,
  call: callRules,
  complianceRequest: complianceRules,
  mailbox: mailboxRules,
  mailing: mailingRules,
  prospect: prospectRules,
  ruleset: rulesetRules,
  sequence: sequenceRules,
  sequenceState: sequenceStateRules,
  sequenceStep: sequenceStepRules,
  sequenceTemplate: sequenceTemplateRules,
  task: taskRules,
  template: templateRules,
  user: userRules,
  webhook: webhookRules,
};

/** The rules of a type, if it has any. */
export function rulesFor(rt: ResourceType): TypeRules | undefined {
  return RULES[rt.type];
}
