/**
 * Tasks and their lookup types. The task is known only from the spec's "Usage shapes"
 * section and the action table; its other fields are "not shown" and flagged `inferred`.
 */
import { action, attr, defineType, rel, timestamps } from '../define.js';
import { webhookActionsOf } from './webhook-events.js';

/** Lookup types (priority, purpose, disposition) have no fields shown in the spec. */
function lookupType(type: string, description: string) {
  return defineType({
    type,
    description,
    partial: true,
    attributes: [attr('name', 'string', 'max 255 F S inferred'), ...timestamps('RO F S inferred')],
    defaultColumns: ['name'],
    promptFields: ['name'],
  });
}

export const TASK_TYPES = [
  defineType({
    type: 'task',
    description: 'A to-do for a user: a call, an e-mail, an action item or a meeting.',
    partial: true,
    dataConnections: true,
    attributes: [
      attr('action', 'string', '', { enum: ['action_item', 'call', 'email', 'in_person'] }),
      attr('completed', 'boolean', 'RO'),
      attr('completedAt', 'date-time', 'RO'),
      attr('createdAt', 'date-time', 'RO F S inferred'),
      attr('dueAt', 'date-time', 'F S inferred'),
      attr('note', 'string', 'inferred'),
      // Spec: "filterable; value `incomplete` is used in filters"; States: "Values seen:
      // incomplete, completed (the webhook usage also shows an in-progress value)". The set
      // is not closed and the in-progress spelling is not given, so no enum. RO because
      // state changes go through markComplete/snooze; S is a guess (both unstated).
      attr('state', 'string', 'RO F S', {
        description: 'Values seen: incomplete, completed, and an in-progress value.',
      }),
      attr('subject', 'string', 'inferred'),
      attr('updatedAt', 'date-time', 'RO F S inferred'),
    ],
    relationships: [
      rel('prospect', 'one data links ->prospect'),
      rel('user', 'one data links ->user'),
      rel('account', 'one data links inferred ->account'),
      rel('mailbox', 'one data links inferred ->mailbox'),
      rel('sequence', 'one data links inferred ->sequence'),
      rel('sequenceState', 'one data links inferred ->sequenceState'),
      rel('taskPriority', 'one data links inferred ->taskPriority'),
      rel('template', 'one data links inferred ->template'),
    ],
    actions: [
      // "parameters: not shown": none are accepted, so any --param is a 400 from the service.
      action('snooze', 'Snooze a task (the spec documents no parameters).', []),
      action('markComplete', 'Complete a task; optional completionNote.', ['completionNote']),
    ],
    defaultColumns: ['action', 'state', 'dueAt', 'subject', 'prospect'],
    promptFields: ['action', 'subject', 'dueAt'],
    webhookActions: webhookActionsOf('task'),
  }),

  lookupType('taskPriority', 'A task priority.'),
  lookupType('taskPurpose', 'A task purpose.'),
  lookupType('taskDisposition', 'A task disposition (outcome).'),
];
