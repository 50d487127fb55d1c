/**
 * Mail: mailboxes, mailings, aliases and recipients; also the `event` activity record and
 * webhooks. Source: the API's v2 reference, "Resources and their fields", "States", "Events".
 */
import { action, attr, attrs, defineType, rel, timestamps } from '../define.js';
import { WEBHOOK_ACTIONS, WEBHOOK_RESOURCES, webhookActionsOf } from './webhook-events.js';

/** spec: "mailing.state" in States and transitions. */
export const MAILING_STATES = [
  'placeholder', 'drafted', 'scheduled', 'queued', 'delivering',
  'delivered', 'opened', 'replied', 'bounced', 'failed',
] as const;

export const MAIL_TYPES = [
  defineType({
    type: 'mailbox',
    description: "A user's e-mail account used to send and sync mail.",
    attributes: [
      attr('authId', 'integer'),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('editable', 'boolean', 'RO'),
      attr('email', 'string', 'max 255 F S'),
      // Provider codes are "one of a fixed list (names omitted)": no enum possible.
      attr('emailProvider', 'string', 'max 255'),
      attr('emailSignature', 'string', 'max 65535', { description: 'HTML.' }),
      attr('ewsEndpoint', 'string', 'max 255'),
      attr('ewsSslVerifyMode', 'integer', '', {
        description: '0 none, 1 peer, 2 fail if no peer certificate, 4 client once.',
      }),
      attr('exchangeVersion', 'string', 'max 255'),
      attr('imapHost', 'string', 'max 255'),
      attr('imapPort', 'integer'),
      attr('imapSsl', 'boolean'),
      attr('maxEmailsPerDay', 'integer'),
      attr('maxMailingsPerDay', 'integer', '', { description: 'Recommended 500.' }),
      attr('maxMailingsPerWeek', 'integer', '', { description: 'Recommended 5000.' }),
      attr('optOutMessage', 'string', 'max 512'),
      attr('optOutSignature', 'string', 'max 512', { description: 'HTML.' }),
      attr('password', 'string', 'max 65535 WO'),
      attr('prospectEmailExclusions', 'string', 'max 65535', {
        description: 'Newline-delimited address patterns excluded from sync.',
      }),
      attr('providerId', 'integer', 'RO'),
      attr('providerType', 'string', 'max 255 RO'),
      attr('sendDisabled', 'boolean'),
      attr('sendErroredAt', 'date-time', 'RO'),
      attr('sendMaxRetries', 'integer'),
      // `ews`, `smtp` or a mail-relay value whose name is omitted: not a closed set.
      attr('sendMethod', 'string', 'max 255', { description: '`ews`, `smtp` or a mail-relay value.' }),
      attr('sendPeriod', 'integer', '', { description: 'Seconds; recommended 60.' }),
      attr('sendRequiresSync', 'boolean'),
      attr('sendSuccessAt', 'date-time', 'RO'),
      attr('sendThreshold', 'integer', '', { description: 'Sends per sendPeriod; recommended 2.' }),
      attr('mailRelayApiKey', 'string', 'max 65535 WO'),
      attr('mailRelayWebhookUrl', 'string', 'RO'),
      attr('smtpHost', 'string', 'max 255'),
      attr('smtpPassword', 'string', 'max 65535 WO'),
      attr('smtpPort', 'integer'),
      attr('smtpSsl', 'boolean'),
      attr('smtpUsername', 'string', 'max 255'),
      attr('syncActiveFrequency', 'integer', '', { description: 'Seconds between syncs while active.' }),
      attr('syncDisabled', 'boolean'),
      attr('syncErroredAt', 'date-time', 'RO'),
      attr('syncFinishedAt', 'date-time', 'RO'),
      // `ews`, `imap` or a provider-API value whose name is omitted: not a closed set.
      attr('syncMethod', 'string', 'max 255', { description: '`ews`, `imap` or a provider-API value.' }),
      // The spec renders this attribute as `syncServiceFolder` ("renamed here").
      attr('syncServiceFolder', 'boolean'),
      attr('syncPassiveFrequency', 'integer', '', { description: 'Seconds.' }),
      attr('syncSuccessAt', 'date-time', 'RO'),
      attr('updatedAt', 'date-time', 'RO F S'),
      attr('userId', 'integer', 'RO F S'),
      attr('username', 'string', 'max 255'),
      ...attrs('validateSend validateSync', 'boolean', 'WO'),
    ],
    relationships: [
      rel('creator', 'one data links RO ->user'),
      rel('mailAliases', 'many links RO ->mailAlias'),
      rel('mailings', 'many links RO ->mailing'),
      rel('updater', 'one data links RO ->user'),
      rel('user', 'one data links ->user'),
    ],
    actions: [
      action('testSend', 'Test that sending works.'),
      action('testSync', 'Test that syncing works.'),
      action('errorSync', 'Signal that the mailbox sync errored.'),
    ],
    defaultColumns: ['email', 'user', 'sendMethod', 'syncMethod'],
    promptFields: ['email', 'username'],
  }),

  defineType({
    type: 'mailing',
    description: 'One e-mail sent (or to be sent) to a prospect.',
    operations: ['list', 'create', 'get'],
    dataConnections: true,
    attributes: [
      attr('bodyHtml', 'string', '', { description: 'Overrides any associated template.' }),
      attr('bodyText', 'string', 'RO'),
      attr('bouncedAt', 'date-time', 'RO F S'),
      attr('clickCount', 'integer', 'RO'),
      attr('clickedAt', 'date-time', 'RO F S'),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('deliveredAt', 'date-time', 'RO F S'),
      attr('errorBacktrace', 'string', 'max 65535 RO'),
      attr('errorReason', 'string', 'max 255 RO'),
      attr('followUpTaskScheduledAt', 'date-time'),
      attr('followUpTaskType', 'string', 'max 255', { enum: ['follow_up', 'no_reply'] }),
      attr('mailboxAddress', 'string', 'RO'),
      attr('mailingType', 'string', 'max 255 RO F S', { description: 'e.g. sequence, single, campaign.' }),
      attr('markedAsSpamAt', 'date-time', 'RO'),
      attr('messageId', 'string', 'max 255 RO F S'),
      attr('notifyThreadCondition', 'string', 'max 255 RO', { enum: ['always', 'no_reply'] }),
      attr('notifyThreadScheduledAt', 'date-time', 'RO F S'),
      attr('notifyThreadStatus', 'string', 'max 255 RO F S', { enum: ['pending', 'sent', 'skipped'] }),
      attr('openCount', 'integer', 'RO'),
      attr('openedAt', 'date-time', 'RO F S'),
      attr('overrideSafetySettings', 'boolean', 'RO'),
      attr('references', 'string', 'max 65535 RO'),
      attr('repliedAt', 'date-time', 'RO F S'),
      attr('retryAt', 'date-time', 'RO F S'),
      attr('retryCount', 'integer', 'RO'),
      attr('retryInterval', 'integer', 'RO', { description: 'Seconds.' }),
      attr('scheduledAt', 'date-time', 'F S'),
      attr('state', 'string', 'max 255 F S', { enum: MAILING_STATES }),
      attr('stateChangedAt', 'date-time', 'RO F S'),
      attr('subject', 'string'),
      attr('trackLinks', 'boolean'),
      attr('trackOpens', 'boolean'),
      attr('unsubscribedAt', 'date-time', 'RO F S'),
      attr('updatedAt', 'date-time', 'RO F S'),
    ],
    relationships: [
      rel('followUpSequence', 'one data links RO ->sequence'),
      rel('mailbox', 'one data links ->mailbox'),
      rel('opportunity', 'one data links RO ->opportunity'),
      rel('prospect', 'one data links ->prospect'),
      rel('sequence', 'one data links RO ->sequence'),
      rel('sequenceState', 'one data links RO ->sequenceState'),
      rel('sequenceStep', 'one data links RO ->sequenceStep'),
      rel('task', 'one data links RO ->task', 'Task completed upon sending.'),
      rel('tasks', 'many data links RO ->task'),
      rel('template', 'one data links ->template'),
      rel('user', 'one data links RO ->user'),
    ],
    defaultColumns: ['subject', 'state', 'deliveredAt', 'prospect'],
    promptFields: ['subject', 'bodyHtml'],
    webhookActions: webhookActionsOf('mailing'),
  }),

  defineType({
    type: 'mailAlias',
    description: 'Another address a mailbox can send as.',
    operations: ['list', 'get'],
    attributes: [
      attr('canSend', 'boolean'),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('email', 'string', 'max 255'),
      attr('updatedAt', 'date-time', 'RO F S'),
    ],
    relationships: [rel('mailbox', 'one data links ->mailbox')],
    defaultColumns: ['email', 'canSend', 'mailbox'],
  }),

  defineType({
    type: 'recipient',
    description: 'An addressee (to, cc, bcc) of a mailing.',
    attributes: [
      attr('createdAt', 'date-time', 'RO'),
      attr('emailHash', 'string', 'max 255'),
      attr('recipientType', 'string', 'max 3', { enum: ['bcc', 'cc', 'to'] }),
      attr('updatedAt', 'date-time', 'RO'),
      attr('value', 'string', 'max 255', { description: 'Contact address.' }),
    ],
    defaultColumns: ['recipientType', 'value'],
    promptFields: ['recipientType', 'value'],
  }),

  defineType({
    type: 'event',
    description: 'A recorded activity (its name is resource and action joined by an underscore).',
    operations: ['list', 'create', 'get'],
    dataConnections: true,
    attributes: [
      attr('body', 'string', '', { description: 'External events only.' }),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('eventAt', 'date-time', 'F S'),
      attr('externalUrl', 'string', '', { description: 'External events only.' }),
      attr('name', 'string', 'max 255 F S'),
      attr('payload', 'object', '', { description: 'Cannot be updated after creation.' }),
      ...attrs('requestCity requestDevice requestHost', 'string', 'max 255 RO'),
      attr('requestProxied', 'boolean', 'RO', {
        description: 'When true the city is that of the mail server, not the prospect.',
      }),
      attr('requestRegion', 'string', 'max 255 RO'),
      // "Latest events: GET /events with sort=-updatedAt": updatedAt exists and sorts.
      attr('updatedAt', 'date-time', 'RO F S inferred'),
    ],
    relationships: [
      rel('mailing', 'one data links ->mailing'),
      rel('prospect', 'one data links ->prospect'),
      rel('user', 'one data links ->user'),
    ],
    defaultColumns: ['name', 'eventAt', 'prospect', 'user'],
    promptFields: ['name'],
  }),

  defineType({
    type: 'webhook',
    description: 'An HTTPS address the service notifies of resource changes.',
    partial: true,
    // Types come from the Events table; which attributes are RO is "not shown": the ones
    // the service computes (active, cleanupToken, creator app, disabled state) are RO.
    attributes: [
      attr('action', 'string', '', {
        enum: WEBHOOK_ACTIONS,
        description: 'Default `*`; allowed values depend on the resource (see Events).',
      }),
      attr('active', 'boolean', 'RO'),
      attr('cleanupToken', 'string', 'RO sensitive', { description: 'Returned on creation and in every delivery.' }),
      ...timestamps(),
      ...attrs('creatorAppId creatorAppName', 'string', 'RO'),
      attr('disabledReason', 'string', 'RO'),
      ...attrs('disabledSince disabledUntil', 'date-time', 'RO'),
      attr('payloadVersion', 'integer', '', { description: '1 (default) or 2 (adds beforeUpdate).' }),
      attr('resource', 'string', '', { enum: WEBHOOK_RESOURCES, description: 'Default `*` (all).' }),
      // Readable: the service returns it to the app that owns the webhook (Visibility rules).
      attr('secret', 'string', 'sensitive', { description: 'Enables the signature header.' }),
      // The spec gives no length for `url`; 1024 is an inferred limit (description says so).
      attr('url', 'string', 'max 1024', { description: 'HTTPS URL, required (max 1024 inferred).' }),
    ],
    defaultColumns: ['resource', 'action', 'url', 'active'],
    promptFields: ['url', 'resource', 'action'],
  }),
];
