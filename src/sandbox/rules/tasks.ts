/**
 * Tasks and calls: `markComplete` (with its optional note), `snooze`, and a call whose `task`
 * relationship carries `meta.complete: true` completing that task.
 */
import { ruleError } from '../errors.js';
import type { Rec } from '../data/store.js';
import type { RuleContext, TypeRules } from './types.js';
import { nowText } from './util.js';

/** Completes a task (422 when it already is). */
function completeTask(ctx: RuleContext, task: Rec, note?: string): void {
  if (task.attributes['completed'] === true || task.attributes['state'] === 'completed') {
    throw ruleError(`Task ${task.id} is already completed.`, '/data/attributes/state');
  }
  const now = nowText(ctx.store);
  const attrs: Record<string, unknown> = { state: 'completed', completed: true, completedAt: now };
  // The completion note is kept with the task's note (the spec names no attribute for it).
  if (note) attrs['note'] = task.attributes['note'] ? `${String(task.attributes['note'])}\n\n${note}` : note;
  const change = ctx.store.update('task', task.id, attrs);
  if (change) ctx.store.emit({ ...change, action: 'completed' });
}

const DAY_MS = 86_400_000;

export const taskRules: TypeRules = {
  beforeCreate: (ctx, input) => {
    Object.assign(input.attributes, { state: 'incomplete', completed: false });
    input.rels['user'] ??= { type: 'user', id: ctx.principal.userId };
  },
  actions: {
    markComplete: (ctx, rec, params) => completeTask(ctx, rec, params.get('completionNote')),
    // Snooze moves the due time one day on (from now when the task is already overdue).
    snooze: (ctx, rec) => {
      if (rec.attributes['completed'] === true)
        throw ruleError(`Task ${rec.id} is completed; it cannot be snoozed.`, '/data/attributes/state');
      const due = typeof rec.attributes['dueAt'] === 'string' ? Date.parse(rec.attributes['dueAt'] + 'Z') : ctx.now();
      const next = new Date(Math.max(due, ctx.now()) + DAY_MS).toISOString().slice(0, 19);
      ctx.store.update('task', rec.id, { dueAt: next });
    },
  },
};

export const callRules: TypeRules = {
  beforeCreate: (ctx, input) => {
    const task = input.rels['task'];
    if (input.relMeta['task']?.['complete'] === true && task && !Array.isArray(task)) {
      const t = ctx.store.get('task', task.id)!;
      if (t.attributes['completed'] === true) throw ruleError(`Task ${t.id} is already completed.`, '/data/relationships/task');
    }
    input.rels['user'] ??= { type: 'user', id: ctx.principal.userId };
    Object.assign(input.attributes, { state: 'completed', stateChangedAt: nowText(ctx.store) });
  },
  afterCreate: (ctx, _rec, input) => {
    const task = input.rels['task'];
    // Without meta.complete the task is unchanged (spec, usage rules).
    if (input.relMeta['task']?.['complete'] === true && task && !Array.isArray(task)) {
      completeTask(ctx, ctx.store.get('task', task.id)!);
    }
  },
};
