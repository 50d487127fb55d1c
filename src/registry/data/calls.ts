/**
 * Calls and their lookup types. Source: the API's v2 reference, "Resources and their fields".
 */
import { attr, defineType, rel } from '../define.js';
import { webhookActionsOf } from './webhook-events.js';

export const CALL_TYPES = [
  defineType({
    type: 'call',
    description: 'A logged phone call.',
    operations: ['list', 'create', 'get', 'delete'],
    authorizationMeta: 'canDeleteOnly',
    dataConnections: true,
    attributes: [
      attr('answeredAt', 'date-time'),
      attr('completedAt', 'date-time'),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('dialedAt', 'date-time'),
      attr('direction', 'string', '', {
        enum: ['inbound', 'outbound'],
        description: "From the user's point of view.",
      }),
      attr('externalVendor', 'string', 'max 255', { description: 'Voice provider; may be blank.' }),
      attr('from', 'string', 'max 255 F S', { description: 'Number that placed the call.' }),
      attr('note', 'string', 'max 65535'),
      // The attribute reference says `Answered`/`Not Answered` while the call-logging usage
      // sends `completed`/`no_answer`: the spec contradicts itself, so no enum.
      attr('outcome', 'string', 'max 255 F S', {
        description: 'The spec gives both `Answered`/`Not Answered` and `completed`/`no_answer`.',
      }),
      attr('recordingUrl', 'string', 'max 255 F S'),
      attr('returnedAt', 'date-time'),
      attr('sequenceAction', 'string', 'max 255', {
        enum: ['Advance', 'Finish', 'Finish - No Reply', 'Finish - Replied'],
      }),
      attr('shouldRecordCall', 'boolean'),
      attr('state', 'string', 'max 255 RO F S', { description: 'Values not shown in the spec.' }),
      attr('stateChangedAt', 'date-time', 'RO'),
      attr('tags', 'string[]'),
      attr('to', 'string', 'max 255 F S'),
      attr('uid', 'string', 'max 255', { description: 'Voice trace id.' }),
      attr('updatedAt', 'date-time', 'RO F S'),
      attr('userCallType', 'string', 'max 255 F S', { enum: ['bridge', 'voip'] }),
      attr('vendorCallId', 'string', 'max 63', { description: 'May be blank.' }),
      attr('voicemailRecordingUrl', 'string', 'max 1024 RO'),
    ],
    relationships: [
      rel('callDisposition', 'one data links ->callDisposition'),
      rel('callPurpose', 'one data links ->callPurpose'),
      rel('opportunity', 'one data links ->opportunity'),
      rel('phoneNumber', 'one data links ->phoneNumber'),
      rel('prospect', 'one data links ->prospect'),
      rel('sequence', 'one data links ->sequence'),
      rel('sequenceState', 'one data links ->sequenceState'),
      rel('sequenceStep', 'one data links ->sequenceStep'),
      rel('task', 'one data links ->task', 'meta.complete=true on create completes the task.'),
      rel('user', 'one data links ->user'),
    ],
    defaultColumns: ['direction', 'outcome', 'to', 'prospect', 'createdAt'],
    promptFields: ['direction', 'outcome'],
    webhookActions: webhookActionsOf('call'),
  }),

  defineType({
    type: 'callDisposition',
    description: 'A call outcome users pick when logging a call.',
    attributes: [
      attr('createdAt', 'date-time', 'RO F S'),
      attr('name', 'string', 'max 255 F S'),
      attr('order', 'integer', 'F S', { description: 'Display order.' }),
      attr('outcome', 'string', 'max 255 F S', { enum: ['Answered', 'Not Answered'] }),
      attr('updatedAt', 'date-time', 'RO F S'),
    ],
    relationships: [rel('calls', 'many links RO ->call'), rel('creator', 'one data links RO ->user')],
    defaultColumns: ['name', 'outcome', 'order'],
    promptFields: ['name', 'outcome'],
  }),

  defineType({
    type: 'callPurpose',
    description: 'A call purpose users pick when logging a call.',
    attributes: [
      attr('createdAt', 'date-time', 'RO F S'),
      attr('name', 'string', 'max 255 F S'),
      attr('order', 'integer', 'F S'),
      attr('updatedAt', 'date-time', 'RO F S'),
    ],
    relationships: [rel('calls', 'many links RO ->call'), rel('creator', 'one data links RO ->user')],
    defaultColumns: ['name', 'order'],
    promptFields: ['name'],
  }),
];
