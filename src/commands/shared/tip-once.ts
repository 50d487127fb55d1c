/**
 * A tip said once per profile, not on every run: which tips were shown is remembered in the
 * config directory (`tips-shown.json`: tip name → profiles). A file that cannot be read or
 * written only means the tip may be said again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { configDir } from '../../auth/config-dir.js';
import type { Context } from '../../runtime/context.js';
import { writePrivateFileSync } from '../../private-file.js';

/** Says `text` (an info line) unless `tip` was shown before for the command's profile. */
export async function tipOnce(ctx: Context, tip: string, text: string): Promise<void> {
  let profile: string;
  try {
    profile = (await ctx.connection()).profileName;
  } catch {
    return ctx.info(text);
  }
  const file = path.join(configDir(ctx.env), 'tips-shown.json');
  let shown: Record<string, string[]> = {};
  try {
    const data: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) shown = data as Record<string, string[]>;
  } catch {
    // None yet, or unreadable: written anew below.
  }
  const profiles = Array.isArray(shown[tip]) ? shown[tip] : [];
  if (profiles.includes(profile)) return;
  ctx.info(text);
  try {
    writePrivateFileSync(file, JSON.stringify({ ...shown, [tip]: [...profiles, profile] }) + '\n');
  } catch {
    // Said again next time: nothing worse.
  }
}
