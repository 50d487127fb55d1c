/**
 * Mailboxes: `validateSend`/`validateSync` on save, and the testSend, testSync and errorSync
 * actions. A mailbox can send when sending is enabled and its send method is configured
 * (SMTP host and port for `smtp`, an endpoint for `ews`); likewise for syncing.
 */
import { ruleError } from '../errors.js';
import type { Rec } from '../data/store.js';
import type { RuleContext, TypeRules, WriteInput } from './types.js';
import { nowText } from './util.js';

type Attrs = Record<string, unknown>;

function merged(rec: Rec | undefined, input: WriteInput): Attrs {
  return { ...(rec?.attributes ?? {}), ...input.attributes };
}

/** Why sending would fail, or undefined when it works. */
function sendProblem(a: Attrs): string | undefined {
  if (a['sendDisabled'] === true) return 'Sending is disabled for this mailbox (sendDisabled).';
  const method = a['sendMethod'] ?? 'smtp';
  if (method === 'smtp' && (!a['smtpHost'] || !a['smtpPort'])) return 'SMTP sending needs smtpHost and smtpPort.';
  if (method === 'ews' && !a['ewsEndpoint']) return 'EWS sending needs ewsEndpoint.';
  return undefined;
}

/** Why syncing would fail, or undefined when it works. */
function syncProblem(a: Attrs): string | undefined {
  if (a['syncDisabled'] === true) return 'Syncing is disabled for this mailbox (syncDisabled).';
  const method = a['syncMethod'] ?? 'imap';
  if (method === 'imap' && (!a['imapHost'] || !a['imapPort'])) return 'IMAP syncing needs imapHost and imapPort.';
  if (method === 'ews' && !a['ewsEndpoint']) return 'EWS syncing needs ewsEndpoint.';
  return undefined;
}

function validateSave(rec: Rec | undefined, input: WriteInput): void {
  const a = merged(rec, input);
  const send = input.attributes['validateSend'] === true ? sendProblem(a) : undefined;
  if (send) throw ruleError(send, '/data/attributes/validateSend');
  const sync = input.attributes['validateSync'] === true ? syncProblem(a) : undefined;
  if (sync) throw ruleError(sync, '/data/attributes/validateSync');
  // The two flags steer this save only; they are not part of the mailbox.
  delete input.attributes['validateSend'];
  delete input.attributes['validateSync'];
}

function test(ctx: RuleContext, rec: Rec, kind: 'send' | 'sync'): void {
  const problem = kind === 'send' ? sendProblem(rec.attributes) : syncProblem(rec.attributes);
  const now = nowText(ctx.store);
  if (problem) {
    ctx.store.update('mailbox', rec.id, kind === 'send' ? { sendErroredAt: now } : { syncErroredAt: now });
    throw ruleError(problem, kind === 'send' ? '/data/attributes/sendMethod' : '/data/attributes/syncMethod');
  }
  ctx.store.update('mailbox', rec.id, kind === 'send' ? { sendSuccessAt: now } : { syncSuccessAt: now, syncFinishedAt: now });
}

export const mailboxRules: TypeRules = {
  beforeCreate: (ctx, input) => {
    validateSave(undefined, input);
    const user = input.rels['user'];
    const userId = user && !Array.isArray(user) ? user.id : ctx.principal.userId;
    input.rels['user'] ??= { type: 'user', id: userId };
    Object.assign(input.attributes, { userId, editable: true, providerType: 'sandbox' });
    input.attributes['username'] ??= input.attributes['email'] ?? null;
  },
  beforeUpdate: (_ctx, rec, input) => {
    validateSave(rec, input);
    const user = input.rels['user'];
    if (user && !Array.isArray(user)) input.attributes['userId'] = user.id;
  },
  actions: {
    testSend: (ctx, rec) => test(ctx, rec, 'send'),
    testSync: (ctx, rec) => test(ctx, rec, 'sync'),
    errorSync: (ctx, rec) => {
      ctx.store.update('mailbox', rec.id, { syncErroredAt: nowText(ctx.store) });
    },
  },
};
