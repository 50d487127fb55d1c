/**
 * The shape of the resource registry: typed data written from the API's v2 reference
 * (README.md, "Registry and spec notes").
 * Every layer (commands, validation, completions, sandbox, OpenAPI) reads these types;
 * nothing in the registry imports from any other layer.
 */

/** Value type of an attribute, as the spec's tables give it. */
export type AttrType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'date-time' | 'string[]' | 'object' | 'array';

/** One attribute of a resource type. */
export interface AttributeSpec {
  name: string;
  type: AttrType;
  /** RO: the service sets it; a client that writes it gets a usage error. */
  readOnly?: boolean;
  /** WO: accepted on writes, never returned. */
  writeOnly?: boolean;
  /** F: usable in `filter[...]`. */
  filterable?: boolean;
  /** S: usable in `sort`. */
  sortable?: boolean;
  /** `max N`: maximum string length in characters. */
  maxLength?: number;
  /** Allowed values, where the spec lists a closed set (numbers for an integer: a webhook's `payloadVersion`). */
  enum?: readonly (string | number)[];
  /**
   * `email`: the spec says the value (each item, for a list) is an e-mail address; `https-url`: an
   * HTTPS URL (a webhook's `url`). The rules are in formats.ts.
   */
  format?: 'email' | 'https-url';
  /** One line for `--help` and the OpenAPI document. */
  description?: string;
  /**
   * True when the spec does not show the attribute but usage elsewhere in the spec implies it
   * (e.g. `user.email`). Such attributes are still validated; the README lists them.
   */
  inferred?: boolean;
  /** Deprecated or costly: only sent/returned when asked for (e.g. `contactHistogram`). */
  onlyOnRequest?: boolean;
  /**
   * A secret the service returns to its owner (a webhook's `secret` and `cleanupToken`):
   * record output shows `***` instead, except the record a create returns (the one time it is
   * needed); `-o raw` and `svc api` print the server's document as sent.
   */
  sensitive?: boolean;
  /**
   * The value that records a person's opt-out (consent: `optedOut` true, `emailsOptStatus`
   * `opted_out`). svc never takes it away as a side effect: a dedupe merge carries it to the
   * survivor, and a file's row does not change it back unless asked (`--allow-opt-in`).
   */
  optOut?: boolean | string;
}

/** One relationship of a resource type. */
export interface RelationshipSpec {
  name: string;
  /** to-one or to-many. */
  kind: 'one' | 'many';
  /** Target resource type (singular camelCase), where known. */
  target?: string;
  /** The identifier is embedded as `data`. */
  data: boolean;
  /** A `links.related` URL is provided. */
  links: boolean;
  /** RO: cannot be written. */
  readOnly?: boolean;
  description?: string;
  inferred?: boolean;
}

/** The five collection/item operations of the spec, in CLI words. */
export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete';

/** The spec's names for the same operations. */
export const SPEC_OPERATION_NAMES: Record<Operation, string> = {
  list: 'instances',
  get: 'self',
  create: 'create',
  update: 'update',
  delete: 'destroy',
};

/** An item action: `POST /{types}/{id}/actions/{name}`. */
export interface ActionSpec {
  /** camelCase name as in the URL (`markComplete`). */
  name: string;
  /** kebab-case CLI subcommand (`mark-complete`). */
  command: string;
  /** Accepted `actionParams[...]` names; anything else is a 400. */
  params: readonly string[];
  description: string;
}

/** Which authorization meta a type returns with `provideAuthorizationMeta`. */
export type AuthorizationMeta = 'canWriteAndDelete' | 'canDeleteOnly';

/** One resource type of the API. */
export interface ResourceType {
  /** Singular camelCase type name (`sequenceState`). */
  type: string;
  /** Collection path segment, the pluralized camelCase name (`sequenceStates`). */
  path: string;
  /** CLI command: kebab-case plural (`sequence-states`). */
  command: string;
  /** One line about the type. */
  description: string;
  attributes: readonly AttributeSpec[];
  relationships: readonly RelationshipSpec[];
  operations: readonly Operation[];
  actions: readonly ActionSpec[];
  /** Has string attributes `custom1`..`custom150`. */
  customFields: boolean;
  /** Returns `meta.dataConnections` with `provideDataConnections`. */
  dataConnections: boolean;
  authorizationMeta: AuthorizationMeta;
  /** The spec shows only part of the type's fields. */
  partial: boolean;
  /** Default columns of the table view (after `id`). */
  defaultColumns: readonly string[];
  /** Fields a person is asked for when `create` runs on a TTY with no attributes. */
  promptFields: readonly string[];
  /** Custom filters that are not attributes (auditLog's `agentEmail`). */
  extraFilters?: readonly string[];
  /** Webhook actions for this resource (spec: Events), when it can be a webhook resource. */
  webhookActions?: readonly string[];
}

/** Number of custom fields on types that have them. */
export const CUSTOM_FIELD_COUNT = 150;
