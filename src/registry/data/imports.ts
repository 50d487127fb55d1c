/**
 * Bulk and import records: batches, imports and voice (call-recording) imports. The spec
 * lists these types (and the import/voiceRecording webhook actions) but shows none of their
 * fields; the few given here are flagged `inferred`.
 */
import { attr, defineType, rel, timestamps } from '../define.js';
import { webhookActionsOf } from './webhook-events.js';

const INFERRED_TIMESTAMPS = 'RO F S inferred';

export const IMPORT_TYPES = [
  defineType({
    type: 'batch',
    description: 'A group of bulk operations.',
    partial: true,
    attributes: [attr('state', 'string', 'RO F inferred'), ...timestamps(INFERRED_TIMESTAMPS)],
    relationships: [rel('batchItems', 'many links RO inferred ->batchItem')],
    defaultColumns: ['state', 'createdAt'],
  }),

  defineType({
    type: 'batchItem',
    description: 'One operation of a batch.',
    partial: true,
    attributes: [attr('state', 'string', 'RO F inferred'), ...timestamps(INFERRED_TIMESTAMPS)],
    relationships: [rel('batch', 'one data links inferred ->batch')],
    defaultColumns: ['batch', 'state', 'createdAt'],
  }),

  defineType({
    type: 'import',
    description: 'A data import (webhooks report when one is created and finished).',
    partial: true,
    attributes: [attr('finishedAt', 'date-time', 'RO inferred'), ...timestamps(INFERRED_TIMESTAMPS)],
    defaultColumns: ['createdAt', 'finishedAt'],
    webhookActions: webhookActionsOf('import'),
  }),

  defineType({
    type: 'voiceRecording',
    description: 'A call recording (neutral name for a brand-bearing type).',
    partial: true,
    attributes: timestamps(INFERRED_TIMESTAMPS),
    defaultColumns: ['createdAt'],
    webhookActions: webhookActionsOf('voiceRecording'),
  }),

  defineType({
    type: 'voiceImport',
    description: 'An import of call recordings (neutral name for a brand-bearing type).',
    partial: true,
    attributes: timestamps(INFERRED_TIMESTAMPS),
    defaultColumns: ['createdAt'],
  }),
];
