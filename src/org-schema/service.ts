/**
 * The org schema as a service of the command's Context (`ctx.orgSchema()`): the profile's cache
 * that `svc schema pull` writes, a pull, and "the cache, else one pull" for names only the org
 * can answer. Commands ask the Context for it instead of importing another command's files; the
 * Context hands it what it needs (`OrgSchemaHost`), so this folder stays below runtime/.
 */
import type { ApiClient } from '../api/client.js';
import { readSchemaCache, schemaCachePath, writeSchemaCache } from './cache.js';
import { writeCompletionExtra } from './completion-extra.js';
import { buildOrgSchema } from './org-schema.js';
import type { OrgSchema } from './types.js';

/** What the service needs from the command it serves (the Context gives it). */
export interface OrgSchemaHost {
  /** The command's profile and API; throws when it has none. `sandbox`: the zero-set-up sandbox. */
  connection(): Promise<{ profileName: string; baseUrl: string; sandbox: boolean }>;
  /** The config directory from the environment alone (no config store loaded). */
  configDir(): string;
  /** The config store's directory (loading the store, which repairs its permissions). */
  storeDir(): Promise<string>;
  api(): Promise<Pick<ApiClient, 'request'>>;
  now(): number;
  dryRun: boolean;
  /** How hints write svc: with the command's `--sandbox` or `--profile` (runtime/svc-again.ts), whose cache it is. */
  svc: string;
  warn(message: string): void;
  info(message: string): void;
  trace(message: string): void;
}

export interface OrgSchemaService {
  /**
   * The profile's cached schema, if any. Never throws: a command works without it (and a
   * missing base URL is reported by the request that needs it, not here).
   */
  cached(): Promise<OrgSchema | undefined>;
  /**
   * Fetches the OpenAPI document and the `/types` document (two requests), writes the profile's
   * cache and the completion extras; returns the schema and the cache file.
   */
  pull(): Promise<{ schema: OrgSchema; file: string }>;
  /**
   * For names only the org can answer (a custom-field label, a field the spec does not show):
   * the cache, else, when `unknown` names something the registry does not know, one pull that
   * caches it — so that labels work without `svc schema pull` first and a name that is no field
   * is refused before anything else is sent. Undefined when neither (a failed pull is a warning:
   * the names then go as written).
   */
  cachedOrPulled(unknown: readonly string[]): Promise<OrgSchema | undefined>;
}

export function orgSchemaService(host: OrgSchemaHost): OrgSchemaService {
  const service: OrgSchemaService = {
    async cached() {
      let file: string;
      let baseUrl: string | undefined;
      try {
        const conn = await host.connection();
        // The zero-set-up sandbox listens on a new port each run while its org persists.
        baseUrl = conn.sandbox ? undefined : conn.baseUrl;
        file = schemaCachePath(host.configDir(), conn.profileName);
      } catch {
        return undefined;
      }
      let schema: OrgSchema | undefined;
      try {
        schema = readSchemaCache(file);
      } catch {
        host.warn(`ignoring the schema cache ${file}: unreadable; run \`${host.svc} schema pull\` again`);
        return undefined;
      }
      if (schema && baseUrl !== undefined && schema.baseUrl.replace(/\/+$/, '') !== baseUrl.replace(/\/+$/, '')) {
        host.warn(`ignoring the schema cache: it was pulled from ${schema.baseUrl}, not ${baseUrl}; run \`${host.svc} schema pull\``);
        return undefined;
      }
      if (schema) host.trace(`org schema from ${file} (pulled ${schema.pulledAt})`);
      return schema;
    },

    async pull() {
      const api = await host.api();
      const conn = await host.connection();
      const configDir = await host.storeDir();
      const file = schemaCachePath(configDir, conn.profileName);
      const [openapi, types] = await Promise.all([
        api.request({ method: 'GET', path: 'schema/openapi.json' }),
        api.request({ method: 'GET', path: 'types' }),
      ]);
      const schema = buildOrgSchema(openapi.doc, types.doc, { profile: conn.profileName, baseUrl: conn.baseUrl, now: host.now() });
      writeSchemaCache(file, schema);
      // Org-only field names for the static completion scripts.
      writeCompletionExtra(configDir);
      return { schema, file };
    },

    async cachedOrPulled(unknown) {
      const cached = await service.cached();
      if (cached || unknown.length === 0) return cached;
      const names = unknown.map((n) => `"${n}"`).join(', ');
      // A dry run sends nothing, reads included: the names go as written, and it says how to know them.
      if (host.dryRun) {
        host.info(`${names} not known and no org schema cached: \`${host.svc} schema pull\` reads your org's labels`);
        return undefined;
      }
      host.info(`${names} not known: pulling the org schema (custom-field labels) once`);
      try {
        return (await service.pull()).schema;
      } catch (err) {
        host.warn(`could not pull the org schema: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      }
    },
  };
  return service;
}
