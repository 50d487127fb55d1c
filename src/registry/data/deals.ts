/**
 * Deals: opportunities, their stages and prospect roles, products and purchases.
 * The spec shows only part of opportunity and none of the others' fields ("not shown"):
 * the few fields added here are flagged `inferred`.
 *
 * Custom fields: the spec names seven types with `custom1`..`custom150` (account,
 * opportunity, opportunityLineItem, opportunityProspectRole, product, prospect, purchase),
 * but `opportunityLineItem` is not in the spec's list of 51 resource types, so only six
 * registry types carry `customFields: true`; opportunityLineItem has no entry at all.
 */
import { attr, defineType, rel, timestamps } from '../define.js';
import { webhookActionsOf } from './webhook-events.js';

export const DEAL_TYPES = [
  defineType({
    type: 'opportunity',
    description: 'A sales opportunity (deal).',
    partial: true,
    customFields: true,
    dataConnections: true,
    attributes: [
      attr('amount', 'integer', 'S'),
      attr('closeDate', 'date-time', 'S'),
      attr('createdAt', 'date-time', 'RO F S'),
      attr('currencyType', 'string', 'max 255', { description: 'ISO currency code.' }),
      // "custom1 to custom150 (strings; the first two have max 255)": declared so the limit holds.
      attr('custom1', 'string', 'max 255'),
      attr('custom2', 'string', 'max 255'),
      attr('name', 'string', 'max 255 F S inferred'),
      attr('probability', 'integer', 'inferred', { description: 'Percent.' }),
      attr('updatedAt', 'date-time', 'RO F S inferred'),
    ],
    // "the relationships of opportunity: not shown".
    relationships: [
      rel('account', 'one data links inferred ->account'),
      rel('opportunityStage', 'one data links inferred ->opportunityStage'),
      rel('owner', 'one data links inferred ->user'),
    ],
    defaultColumns: ['name', 'amount', 'closeDate', 'opportunityStage'],
    promptFields: ['name'],
    webhookActions: webhookActionsOf('opportunity'),
  }),

  defineType({
    type: 'opportunityProspectRole',
    description: 'The role a prospect plays in an opportunity.',
    partial: true,
    customFields: true,
    attributes: [attr('role', 'string', 'max 255 F inferred'), attr('primary', 'boolean', 'F inferred'), ...timestamps('RO F S inferred')],
    relationships: [rel('opportunity', 'one data links inferred ->opportunity'), rel('prospect', 'one data links inferred ->prospect')],
    defaultColumns: ['opportunity', 'prospect', 'role', 'primary'],
    promptFields: ['role'],
    webhookActions: webhookActionsOf('opportunityProspectRole'),
  }),

  defineType({
    type: 'opportunityStage',
    description: 'A stage of the opportunity pipeline.',
    partial: true,
    dataConnections: true,
    attributes: [
      attr('name', 'string', 'max 255 F S inferred'),
      attr('order', 'integer', 'F S inferred'),
      ...timestamps('RO F S inferred'),
    ],
    defaultColumns: ['name', 'order'],
    promptFields: ['name'],
  }),

  defineType({
    type: 'product',
    description: 'A product that can be sold.',
    partial: true,
    customFields: true,
    dataConnections: true,
    attributes: [attr('name', 'string', 'max 255 F S inferred'), ...timestamps('RO F S inferred')],
    defaultColumns: ['name', 'createdAt'],
    promptFields: ['name'],
  }),

  defineType({
    type: 'purchase',
    description: 'A purchase made by a prospect.',
    partial: true,
    customFields: true,
    dataConnections: true,
    attributes: [...timestamps('RO F S inferred')],
    relationships: [rel('prospect', 'one data links inferred ->prospect')],
    defaultColumns: ['prospect', 'createdAt'],
    promptFields: [],
  }),
];
