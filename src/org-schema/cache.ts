/**
 * The org-schema cache: one JSON file per profile in the config directory
 * (`schema.<profile>.json`, mode 0600 like the config itself), written atomically.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ORG_SCHEMA_VERSION, type OrgSchema } from './types.js';
import { writePrivateFileSync } from '../private-file.js';

/** The cache file of a profile. */
export function schemaCachePath(configDir: string, profile: string): string {
  return path.join(configDir, `schema.${encodeURIComponent(profile)}.json`);
}

/**
 * Reads a profile's cache. Undefined when there is none (the common case, one failed stat) or
 * when it was written by another format version.
 * @throws Error when the file exists but is not readable JSON (the caller says how to fix it)
 */
export function readSchemaCache(file: string): OrgSchema | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const data = JSON.parse(text) as OrgSchema;
  if (data?.version !== ORG_SCHEMA_VERSION || typeof data.types !== 'object') return undefined;
  return data;
}

/** Writes a profile's cache (directory 0700, file 0600), replacing it atomically. */
export function writeSchemaCache(file: string, schema: OrgSchema): void {
  writePrivateFileSync(file, JSON.stringify(schema, null, 1) + '\n');
  if (process.platform !== 'win32') fs.chmodSync(file, 0o600);
}
