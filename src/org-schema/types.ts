/**
 * The organization's schema as `svc schema pull` caches it: per resource type, the attributes
 * the service's OpenAPI document shows beyond the built-in registry, and the custom fields'
 * labels and validations from `GET /types`.
 */
import type { AttributeSpec } from '../registry/index.js';

/** A custom field as `GET /types` describes it in `meta.validations`. */
export interface CustomField {
  /** `custom1`..`custom150`. */
  name: string;
  /** A validation type; unknown ones are kept and not checked. */
  type: string;
  required: boolean;
  label: string;
  /** null, a string (the currency of `currency`), or the options of (multi_)inclusion. */
  definition: null | string | string[];
}

/** What the org adds to one resource type. */
export interface OrgType {
  /** Attributes the OpenAPI document shows that the registry does not know. */
  extraAttributes: AttributeSpec[];
  /** Labelled custom fields, by field name. */
  customFields: Record<string, CustomField>;
}

/** The cache file's content. */
export interface OrgSchema {
  /** Format of the file. */
  version: 1;
  profile: string;
  baseUrl: string;
  /** ISO time of the pull. */
  pulledAt: string;
  types: Record<string, OrgType>;
  /** Types in `/types` or the OpenAPI document that the registry does not know (custom objects). */
  unknownTypes: string[];
}

/** Version of the cache format; other versions are ignored (pull again). */
export const ORG_SCHEMA_VERSION = 1;
