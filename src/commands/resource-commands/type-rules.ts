/**
 * Write rules of one resource type that its attributes' specs cannot state (a pair of fields
 * that must agree), keyed by registry type: the write path asks this table, never tests a type
 * by name. The registry itself holds data only (it is snapshotted as JSON at build time).
 */
import type { ResourceType } from '../../registry/index.js';
import { checkWebhookAttributes } from '../../webhooks/events.js';

type FieldProblem = { field: string; reason: string };
type TypeRule = (attributes: Record<string, unknown>, forUpdate: boolean) => FieldProblem[];

const TYPE_RULES: Readonly<Record<string, TypeRule>> = {
  // `resource` and `action` together name an event the service offers (`user` has no `destroyed`).
  webhook: checkWebhookAttributes,
};

/** Problems with the attributes of a create (`forUpdate` false) or update of `rt`. */
export function checkTypeRules(rt: ResourceType, attributes: Record<string, unknown>, forUpdate: boolean): FieldProblem[] {
  return TYPE_RULES[rt.type]?.(attributes, forUpdate) ?? [];
}
