/**
 * All 51 resource types of the API's v2 reference ("Resource types that exist"), grouped by domain.
 * Order does not matter: `../index.ts` sorts them by type name.
 */
import type { ResourceType } from '../types.js';
import { CALL_TYPES } from './calls.js';
import { CONTENT_TYPES } from './content.js';
import { CRM_TYPES } from './crm.js';
import { DEAL_TYPES } from './deals.js';
import { IMPORT_TYPES } from './imports.js';
import { MAIL_TYPES } from './mail.js';
import { ORG_TYPES } from './org.js';
import { SEQUENCE_TYPES } from './sequences.js';
import { TASK_TYPES } from './tasks.js';

export { WEBHOOK_RESOURCE_ACTIONS } from './webhook-events.js';

export const RESOURCE_TYPES: ResourceType[] = [
  ...CRM_TYPES,
  ...DEAL_TYPES,
  ...SEQUENCE_TYPES,
  ...CONTENT_TYPES,
  ...TASK_TYPES,
  ...CALL_TYPES,
  ...MAIL_TYPES,
  ...ORG_TYPES,
  ...IMPORT_TYPES,
];
