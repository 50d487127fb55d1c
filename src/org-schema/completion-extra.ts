/**
 * `completion-extra.txt` in the config directory: the attribute names that only pulled org
 * schemas show, one `<command> <kind> <name>` line each, read by the static completion scripts
 * (so completing still starts no Node process). Rebuilt from every profile's cache on each pull.
 */
import fs from 'node:fs';
import path from 'node:path';
import { resourceByType } from '../registry/index.js';
import { readSchemaCache } from './cache.js';
import { writePrivateFileSync } from '../private-file.js';

/** File name of the extra completion words, beside the config. */
const COMPLETION_EXTRA_FILE = 'completion-extra.txt';

/** Lines for every cached schema in `configDir` (sorted, no duplicates). */
function completionExtraLines(configDir: string): string[] {
  const lines = new Set<string>();
  let files: string[] = [];
  try {
    files = fs.readdirSync(configDir).filter((f) => /^schema\..+\.json$/.test(f));
  } catch {
    return [];
  }
  for (const f of files) {
    let schema: ReturnType<typeof readSchemaCache>;
    try {
      schema = readSchemaCache(path.join(configDir, f));
    } catch {
      continue;
    }
    for (const [type, t] of Object.entries(schema?.types ?? {})) {
      const rt = resourceByType(type);
      if (!rt) continue;
      for (const a of t.extraAttributes) {
        if (!/^[A-Za-z0-9_.-]+$/.test(a.name)) continue;
        if (a.filterable) lines.add(`${rt.command} filter ${a.name}`);
        if (a.sortable) lines.add(`${rt.command} sort ${a.name}`);
        if (!a.readOnly) lines.add(`${rt.command} attr ${a.name}`);
        if (!a.writeOnly) lines.add(`${rt.command} fields ${a.name}`);
      }
    }
  }
  return [...lines].sort();
}

/** Rewrites the file (0600); removes it when there is nothing to add. */
export function writeCompletionExtra(configDir: string): void {
  const file = path.join(configDir, COMPLETION_EXTRA_FILE);
  const lines = completionExtraLines(configDir);
  if (lines.length === 0) {
    fs.rmSync(file, { force: true });
    return;
  }
  writePrivateFileSync(file, lines.join('\n') + '\n');
}
