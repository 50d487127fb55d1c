/**
 * The organization: users, teams, roles, profiles, settings, duties, favorites, audit log
 * and compliance requests. Most of these have "fields and relationships not shown" in the
 * spec; the few fields given to them are flagged `inferred`.
 */
import { attr, defineType, rel, timestamps } from '../define.js';
import { webhookActionsOf } from './webhook-events.js';

const INFERRED_TIMESTAMPS = 'RO F S inferred';

export const ORG_TYPES = [
  defineType({
    type: 'user',
    description: 'A person with a login in the organization.',
    partial: true,
    dataConnections: true,
    attributes: [
      attr('email', 'string', 'max 255 F S inferred'),
      attr('firstName', 'string', 'max 255 F S inferred'),
      attr('lastName', 'string', 'max 255 F S inferred'),
      attr('locked', 'boolean', 'F inferred'),
      attr('name', 'string', 'RO inferred', { description: 'Full name.' }),
      attr('username', 'string', 'max 255 F S inferred'),
      ...timestamps(INFERRED_TIMESTAMPS),
    ],
    defaultColumns: ['name', 'email', 'locked'],
    promptFields: ['firstName', 'lastName', 'email'],
    webhookActions: webhookActionsOf('user'),
  }),

  defineType({
    type: 'team',
    description: 'A group of users (teams can own content categories).',
    partial: true,
    attributes: [attr('name', 'string', 'max 255 F S inferred'), ...timestamps(INFERRED_TIMESTAMPS)],
    defaultColumns: ['name'],
    promptFields: ['name'],
  }),

  defineType({
    type: 'role',
    description: 'A position in the hierarchical role tree.',
    attributes: [attr('createdAt', 'date-time', 'RO'), attr('name', 'string', 'max 255 F S'), attr('updatedAt', 'date-time', 'RO')],
    relationships: [rel('parentRole', 'one data links ->role', 'Roles are hierarchical.')],
    defaultColumns: ['name', 'parentRole'],
    promptFields: ['name'],
  }),

  defineType({
    type: 'profile',
    // `svc profiles` manages svc's own config profiles, so the API type gets its own name.
    command: 'api-profiles',
    description: 'A permission profile assigned to users (the API type; `svc profiles` manages svc login profiles).',
    partial: true,
    attributes: [attr('name', 'string', 'max 255 F S inferred'), ...timestamps(INFERRED_TIMESTAMPS)],
    defaultColumns: ['name'],
    promptFields: ['name'],
  }),

  defineType({
    type: 'orgSetting',
    description: 'Organization-wide settings.',
    partial: true,
    attributes: timestamps(INFERRED_TIMESTAMPS),
    defaultColumns: ['createdAt', 'updatedAt'],
  }),

  defineType({
    type: 'duty',
    description: 'A predefined duty (job function) users can pick.',
    operations: ['list'],
    attributes: [
      attr('dutyType', 'string', '', { description: 'Polymorphic duty type.' }),
      attr('symbolicName', 'string', 'max 255', { description: 'Constant for client-side translation.' }),
    ],
    defaultColumns: ['symbolicName', 'dutyType'],
  }),

  defineType({
    type: 'customDuty',
    description: 'An organization-defined duty.',
    operations: ['create'],
    attributes: [attr('dutyType', 'string', '', { description: 'Polymorphic duty type.' }), attr('name', 'string', 'max 255')],
    defaultColumns: ['name', 'dutyType'],
    promptFields: ['name'],
  }),

  defineType({
    type: 'favorite',
    description: "A record in a user's favorites.",
    operations: ['list', 'create', 'get', 'delete'],
    authorizationMeta: 'canDeleteOnly',
    attributes: [
      attr('createdAt', 'date-time', 'RO F S'),
      attr('targetType', 'string', 'max 255 RO F'),
      attr('updatedAt', 'date-time', 'RO F S'),
    ],
    relationships: [rel('creator', 'one data links RO ->user'), rel('user', 'one data links ->user')],
    defaultColumns: ['targetType', 'user', 'createdAt'],
  }),

  defineType({
    type: 'auditLog',
    description: 'An audit-log entry (new audit log API, beta).',
    partial: true,
    attributes: [attr('eventName', 'string', 'F inferred'), ...timestamps(INFERRED_TIMESTAMPS)],
    // "custom filters `agentEmail` and `agentIpAddress` (string, single value)".
    extraFilters: ['agentEmail', 'agentIpAddress'],
    defaultColumns: ['eventName', 'createdAt'],
  }),

  defineType({
    type: 'complianceRequest',
    description: "A regulatory request to delete or export an individual's personal data.",
    operations: ['list', 'create', 'get'],
    attributes: [
      attr('batchComplianceRequestUuid', 'string', '', { description: 'UUID of the owning batch.' }),
      attr('createdAt', 'date-time', 'RO'),
      attr('objectType', 'string', 'max 255', {
        enum: ['Prospect', 'Recipient'],
        description: '`Recipient` for an e-mail address not tied to a prospect.',
      }),
      attr('pii', 'object', '', { description: 'Personal information needed to process the request.' }),
      attr('requestObjectId', 'string', 'max 255', {
        description: 'Prospect id for prospects, e-mail address for recipients.',
      }),
      attr('requestType', 'string', 'max 32', { enum: ['Delete', 'Export'] }),
      attr('requesterId', 'integer', '', { description: 'Id of the submitting user.' }),
      attr('state', 'string', 'max 32 F S', { enum: ['pending', 'running', 'failed', 'done'] }),
      attr('updatedAt', 'date-time', 'RO'),
      attr('uuid', 'string', 'max 255 F S'),
    ],
    relationships: [rel('requester', 'one data links RO ->user')],
    defaultColumns: ['requestType', 'objectType', 'requestObjectId', 'state'],
    promptFields: ['requestType', 'objectType', 'requestObjectId'],
  }),
];
