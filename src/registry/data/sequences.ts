/**
 * Sequence automation: sequences, their steps and step templates, enrolments (sequence
 * states), rulesets. Source: the API's v2 reference, "Resources and their fields" and "States and
 * transitions". To-many relationships with only `links` are RO (nothing to write).
 */
import { action, attr, attrs, defineType, rel } from '../define.js';
import { webhookActionsOf } from './webhook-events.js';

/** The eleven delivery counters of sequence steps and sequence templates. */
const COUNTERS =
  'bounceCount clickCount deliverCount failureCount negativeReplyCount neutralReplyCount ' +
  'openCount optOutCount positiveReplyCount replyCount scheduleCount';

/** spec: "sequenceState.state" in States and transitions. */
const SEQUENCE_STATE_STATES = ['pending', 'active', 'paused', 'finished', 'disabled', 'failed', 'bounced', 'opted_out'] as const;

export const SEQUENCE_TYPES = [
  defineType({
    type: 'sequence',
    description: 'An automated series of steps (e-mails, calls, tasks) prospects are enrolled in.',
    partial: true,
    attributes: [
      attr('automationPercentage', 'number', 'RO', { description: 'Share of `auto_email` steps.' }),
      ...attrs('bounceCount failureCount', 'integer', 'RO'),
      ...attrs('clickCount deliverCount', 'integer', 'RO F S'),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('description', 'string', 'max 1024'),
      attr('durationInDays', 'integer', 'RO'),
      attr('enabled', 'boolean', 'RO'),
      attr('enabledAt', 'date-time', 'RO F S'),
      attr('finishOnReply', 'boolean', '', {
        description: 'Deprecated; true when primaryReplyAction is `finish`.',
      }),
      attr('lastUsedAt', 'date-time', 'RO F S'),
      attr('locked', 'boolean', 'RO'),
      attr('lockedAt', 'date-time', 'RO F S'),
      attr('maxActivations', 'integer', '', { description: 'Only when sequenceType is `date`.' }),
      attr('name', 'string', 'max 255'),
      attr('primaryReplyAction', 'string'),
      attr('sequenceType', 'string', '', {
        enum: ['interval', 'date'],
        description: 'Set at creation.',
      }),
      attr('updatedAt', 'date-time', 'RO F S inferred'),
    ],
    // "the relationships of sequence (only `ruleset` is seen in use): not shown".
    relationships: [
      rel('ruleset', 'one data links ->ruleset', 'Attach by updating the sequence.'),
      rel('owner', 'one data links inferred ->user'),
    ],
    defaultColumns: ['name', 'sequenceType', 'enabled', 'lastUsedAt'],
    promptFields: ['name', 'sequenceType'],
    webhookActions: webhookActionsOf('sequence'),
  }),

  defineType({
    type: 'sequenceState',
    description: "A prospect's enrolment in a sequence.",
    operations: ['list', 'create', 'get', 'delete'],
    authorizationMeta: 'canDeleteOnly',
    attributes: [
      attr('activeAt', 'date-time', 'RO'),
      ...attrs(
        'bounceCount failureCount negativeReplyCount neutralReplyCount optOutCount positiveReplyCount scheduleCount',
        'integer',
        'RO',
      ),
      attr('callCompletedAt', 'date-time', 'RO F S'),
      ...attrs('clickCount deliverCount openCount replyCount', 'integer', 'RO F S'),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('errorReason', 'string', 'max 255 RO'),
      attr('pauseReason', 'string', 'max 255 RO F S'),
      attr('repliedAt', 'date-time', 'RO F S'),
      attr('state', 'string', 'max 255 RO F S', { enum: SEQUENCE_STATE_STATES }),
      attr('stateChangedAt', 'date-time', 'RO F S'),
      attr('updatedAt', 'date-time', 'RO F S'),
    ],
    relationships: [
      rel('account', 'one data links RO ->account'),
      rel('activeStepMailings', 'many data links RO ->mailing'),
      rel('activeStepTasks', 'many data links RO ->task'),
      rel('creator', 'one data links RO ->user'),
      rel('opportunity', 'one data links RO ->opportunity'),
      rel('sequenceStep', 'one data links RO ->sequenceStep'),
      rel('calls', 'many links RO ->call'),
      rel('mailings', 'many links RO ->mailing'),
      rel('tasks', 'many links RO ->task'),
      rel('mailbox', 'one data links ->mailbox', 'Mailbox used for mailing steps.'),
      rel('prospect', 'one data links ->prospect', 'Primary prospect.'),
      rel('sequence', 'one data links ->sequence'),
    ],
    actions: [
      action('finish', 'Finish an active sequence state.'),
      action('pause', 'Pause an active sequence state.'),
      action('resume', 'Resume a paused sequence state.'),
    ],
    defaultColumns: ['state', 'prospect', 'sequence', 'stateChangedAt'],
    // Creating one needs exactly these three relationships (States and transitions).
    promptFields: ['prospect', 'sequence', 'mailbox'],
    webhookActions: webhookActionsOf('sequenceState'),
  }),

  defineType({
    type: 'sequenceStep',
    description: 'One step of a sequence.',
    attributes: [
      ...attrs(COUNTERS, 'integer', 'RO'),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('date', 'date', 'F S', { description: 'Only for date-based sequences.' }),
      attr('displayName', 'string', 'RO'),
      attr('interval', 'integer', '', {
        description: 'Minutes until the step activates; only for interval-based sequences.',
      }),
      attr('order', 'integer', 'F S'),
      attr('stepType', 'string', 'max 255 F S', { enum: ['auto_email', 'manual_email', 'call', 'task'] }),
      attr('taskAutoskipDelay', 'integer', '', {
        description: 'Seconds after a task becomes overdue until it is skipped.',
      }),
      attr('taskNote', 'string', 'max 65535'),
      attr('updatedAt', 'date-time', 'RO F S'),
    ],
    relationships: [
      rel('callPurpose', 'one data links ->callPurpose'),
      rel('calls', 'many links RO ->call'),
      rel('mailings', 'many links RO ->mailing'),
      rel('tasks', 'many links RO ->task'),
      rel('creator', 'one data links RO ->user'),
      rel('updater', 'one data links RO ->user'),
      rel('sequence', 'one data links ->sequence'),
      rel('sequenceTemplates', 'many data links RO ->sequenceTemplate'),
      rel('taskPriority', 'one data links ->taskPriority'),
    ],
    defaultColumns: ['sequence', 'order', 'stepType', 'displayName'],
    promptFields: ['sequence', 'stepType', 'interval'],
  }),

  defineType({
    type: 'sequenceTemplate',
    description: 'Links a template to a sequence step; deleting it removes the template from the step.',
    attributes: [
      ...attrs(COUNTERS, 'integer', 'RO'),
      ...attrs('createdAt updatedAt enabledAt', 'date-time', 'RO'),
      attr('enabled', 'boolean', 'RO'),
      attr('isReply', 'boolean', '', { description: 'Reply e-mail rather than a new thread.' }),
    ],
    relationships: [
      rel('creator', 'one data links RO ->user'),
      rel('updater', 'one data links RO ->user'),
      rel('sequenceStep', 'one data links ->sequenceStep'),
      rel('template', 'one data links ->template'),
    ],
    defaultColumns: ['sequenceStep', 'template', 'enabled', 'isReply'],
    promptFields: ['sequenceStep', 'template'],
  }),

  defineType({
    type: 'ruleset',
    description: 'Settings shared by sequences: exclusivity, opt-out handling, stage changes.',
    attributes: [
      attr('applyCompletedStageIn', 'integer', '', {
        description: 'Seconds after the sequence completes before completedStage is applied.',
      }),
      attr('autoResumeOotoProspects', 'boolean', 'F S'),
      attr('autoResumeOotoProspectsExpiresIn', 'integer', '', { description: 'Seconds.' }),
      attr('autoResumeOotoProspectsIn', 'integer', '', { description: 'Seconds.' }),
      attr('callOptOutAction', 'string', 'max 4'),
      attr('clicksNeededBeforeCallTaskCreated', 'integer'),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('emailOptOutAction', 'string', 'max 4'),
      attr('includeUnsubscribeLinks', 'boolean', 'F S'),
      attr('meetingBookedAction', 'string', 'max 255'),
      attr('minimumProspectTouchedInterval', 'integer', '', { description: 'Seconds.' }),
      attr('name', 'string', 'max 255 F S'),
      attr('ootoAutoExtractionEnabled', 'boolean'),
      attr('opensNeededBeforeCallTaskCreated', 'integer'),
      // The attribute table gives `only_if_inactive`; one usage example spells it
      // `onlyIfActive`. The table is the reference, so the enum follows it.
      attr('permitDuplicateProspects', 'string', 'max 255 F S', {
        enum: ['allow', 'disallow', 'only_if_inactive'],
        description: 'Default `disallow`. (A spec usage example spells the third value `onlyIfActive`.)',
      }),
      attr('sequenceExclusivity', 'string', 'max 255 F S', {
        enum: ['all_sequences', 'exclusive_sequences', 'none'],
        description: 'Default `none`.',
      }),
      attr('smsOptOutAction', 'string', 'max 4'),
      attr('smsReceivedAction', 'string', 'max 255'),
      attr('stepOverridesEnabled', 'boolean'),
      attr('updatedAt', 'date-time', 'RO F S'),
    ],
    relationships: [
      ...['bouncedStage', 'completedStage', 'deliveredStage', 'finishedStage', 'optedOutStage', 'repliedStage', 'startedStage'].map((n) =>
        rel(n, 'one data links ->stage'),
      ),
      rel('callTaskPriority', 'one data links ->taskPriority', 'Deprecated alias of callTaskPriorityFromOpens.'),
      rel('callTaskPriorityFromClicks', 'one data links ->taskPriority'),
      rel('callTaskPriorityFromOpens', 'one data links ->taskPriority'),
      rel('owner', 'one data links ->user'),
      rel('sequences', 'many links RO ->sequence'),
    ],
    defaultColumns: ['name', 'sequenceExclusivity', 'permitDuplicateProspects'],
    promptFields: ['name'],
  }),
];
