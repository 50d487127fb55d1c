/**
 * The contract between the generic handlers and the type-specific rules of the spec. Rules are
 * keyed by type name (see `rules/index.ts`); a type without rules behaves as plain CRUD.
 */
import type { ResourceType } from '../../registry/index.js';
import type { ParsedQuery } from '../query/query.js';
import type { Rec, RelValue, Store } from '../data/store.js';

/** Who is calling: the user of the token and the application it was issued to. */
export interface Principal {
  userId: number;
  /** OAuth client id; null for the sandbox's own token (an admin not acting through an app). */
  appId: string | null;
  appName: string | null;
  scopes: ReadonlySet<string>;
  admin: boolean;
}

/** A validated create or update body. */
export interface WriteInput {
  attributes: Record<string, unknown>;
  rels: Record<string, RelValue>;
  /** `meta` of relationship objects (a call's `task` may carry `complete: true`). */
  relMeta: Record<string, Record<string, unknown>>;
}

/** Services a rule may use. */
export interface RuleContext {
  store: Store;
  principal: Principal;
  now(): number;
  /** Runs `fn` after `ms`, unless the sandbox closes first. */
  later(ms: number, fn: () => void): void;
  /** Timings of the simulated automation. */
  timing: { complianceStepMs: number; deliveryMs: number };
}

/** Type-specific behaviour. Every hook is optional. */
export interface TypeRules {
  /** Records that the collection index shows (accounts: only `named` ones). */
  visibleInIndex?(rec: Rec, q: ParsedQuery): boolean;
  /** Adjusts or refuses a create (throw an ErrorResponse); runs after generic validation. */
  beforeCreate?(ctx: RuleContext, input: WriteInput): void;
  /** Follow-up of a create (first step attached, task completed, timers started...). */
  afterCreate?(ctx: RuleContext, rec: Rec, input: WriteInput): void;
  beforeUpdate?(ctx: RuleContext, rec: Rec, input: WriteInput): void;
  afterUpdate?(ctx: RuleContext, rec: Rec, input: WriteInput): void;
  beforeDelete?(ctx: RuleContext, rec: Rec): void;
  /** Item actions by name: change the record or throw a 422. */
  actions?: Record<string, (ctx: RuleContext, rec: Rec, params: Map<string, string>) => void>;
  /** Attributes computed on read (contactHistogram). */
  computed?: Record<string, (store: Store, rec: Rec) => unknown>;
  /** Rewrites an attribute value for the caller (webhook secrets are redacted for others). */
  present?(principal: Principal, rec: Rec, name: string, value: unknown, created: boolean): unknown;
  /** Filters the members of a derived to-many relationship (prospect `activeSequenceStates`). */
  relationFilter?: Record<string, (store: Store, owner: Rec, member: Rec) => boolean>;
}

/** Signature of a rules module. */
export type RulesFor = (rt: ResourceType) => TypeRules | undefined;
