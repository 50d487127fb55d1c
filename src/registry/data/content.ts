/**
 * Reusable content: templates, snippets and the content categories that group them.
 * Templates and snippets are known only from the spec's "Usage shapes" section; anything
 * beyond those shapes is flagged `inferred`.
 */
import { attr, defineType, rel, timestamps } from '../define.js';

export const CONTENT_TYPES = [
  defineType({
    type: 'template',
    description: 'An e-mail template; one created without a name is hidden from template lists.',
    partial: true,
    attributes: [
      attr('bodyHtml', 'string'),
      attr('ccRecipients', 'string[]'),
      attr('name', 'string'),
      attr('subject', 'string'),
      ...timestamps('RO F S inferred'),
    ],
    relationships: [
      rel('mailings', 'many links RO ->mailing'),
      rel('sequenceTemplates', 'many links RO ->sequenceTemplate'),
      rel('tasks', 'many links RO ->task'),
      rel('owner', 'one data ->user'),
    ],
    defaultColumns: ['name', 'subject', 'owner'],
    promptFields: ['name', 'subject', 'bodyHtml'],
  }),

  defineType({
    type: 'snippet',
    description: 'A reusable piece of HTML for e-mails.',
    partial: true,
    attributes: [attr('bodyHtml', 'string'), attr('name', 'string'), ...timestamps('RO F S inferred')],
    // Usage shapes: "relationship `owner` (user)"; data is implied by the shape (not shown).
    relationships: [rel('owner', 'one data ->user')],
    defaultColumns: ['name', 'owner'],
    promptFields: ['name', 'bodyHtml'],
  }),

  defineType({
    type: 'contentCategory',
    description: 'A category grouping sequences, snippets or templates.',
    attributes: [
      attr('allowSequences', 'boolean'),
      attr('allowSnippets', 'boolean'),
      attr('allowTemplates', 'boolean'),
      attr('color', 'string', 'max 255', { description: 'Background colour.' }),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('name', 'string', 'max 255 F S'),
      attr('updatedAt', 'date-time', 'RO F S'),
    ],
    relationships: [rel('creator', 'one data links RO ->user')],
    defaultColumns: ['name', 'allowSequences', 'allowSnippets', 'allowTemplates'],
    promptFields: ['name'],
  }),

  defineType({
    type: 'contentCategoryMembership',
    description: 'Puts a sequence, snippet or template in a content category.',
    operations: ['list', 'create', 'get', 'delete'],
    authorizationMeta: 'canDeleteOnly',
    attributes: timestamps(),
    relationships: [
      // Polymorphic: "must be a sequence, snippet or template" — no single target type.
      rel('content', 'one data links', 'A sequence, snippet or template (give type:id).'),
      rel('contentCategory', 'one data links ->contentCategory'),
      rel('creator', 'one data links RO ->user'),
    ],
    defaultColumns: ['contentCategory', 'content', 'createdAt'],
    promptFields: ['contentCategory', 'content'],
  }),

  defineType({
    type: 'contentCategoryOwnership',
    description: 'Gives a team ownership of a content category.',
    operations: ['list', 'create', 'delete'],
    authorizationMeta: 'canDeleteOnly',
    attributes: timestamps(),
    relationships: [
      rel('contentCategory', 'one data links ->contentCategory'),
      rel('creator', 'one data links RO ->user'),
      rel('owner', 'one data links ->team', 'Must be a team.'),
    ],
    defaultColumns: ['contentCategory', 'owner', 'createdAt'],
    promptFields: ['contentCategory', 'owner'],
  }),
];
