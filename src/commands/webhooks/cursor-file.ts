/**
 * The durable cursor of `webhooks listen --catch-up` (and of `events tail --cursor-file`, whose
 * "receiver" is its standard output): where the receiver stands in the events
 * resource (the last event it took, and the ids taken within the overlap window before it),
 * written owner-only and atomically after every delivery the receiver takes, so that a listener
 * killed at any moment starts again at most one delivery back. The file says whose it is (the
 * profile, the API it reads, the receiver it feeds): a cursor of another org or API means
 * nothing here and is refused rather than trusted.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dataDir } from '../../auth/config-dir.js';
import { UsageError } from '../../errors.js';
import { cursorFromJson, cursorToJson, type EventCursor } from '../../events/cursor.js';
import { othersMayWrite, ownedByAnother, writeFileAtomic } from '../../private-file.js';

/** Whose a cursor file is. */
export interface CursorOwner {
  profile: string;
  /** The API's base URL, or `sandbox:<instance>` for a local sandbox (its port changes). */
  api: string;
  /** The receiver the deliveries go to. */
  forwardTo: string;
}

/** The default file of an owner: one per profile, API and receiver, in the data directory. */
export function defaultCursorFile(env: NodeJS.ProcessEnv, owner: CursorOwner): string {
  const key = createHash('sha256').update(`${owner.api}\n${owner.forwardTo}`).digest('hex').slice(0, 12);
  return path.join(dataDir(env), `listen-cursor.${encodeURIComponent(owner.profile)}.${key}.json`);
}

/**
 * Reads the cursor of `file` for `owner`: undefined when there is none yet.
 * Throws a usage error for a file of another owner, one others may write, or one that is not a cursor file.
 */
export function readCursorFile(file: string, owner: CursorOwner, command = 'svc webhooks listen'): EventCursor | undefined {
  let text: string;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile()) throw new UsageError(`--cursor-file ${file}: not a regular file`);
    // Another user could move the receiver's cursor past events it never got.
    if (othersMayWrite(st) || ownedByAnother(st))
      throw new UsageError(`--cursor-file ${file}: others may write it; a cursor file must be the owner's only (chmod 600)`);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new UsageError(`--cursor-file ${file}: not a cursor file of ${command} (not JSON)`);
  }
  const cursor = cursorFromJson(doc?.['cursor']);
  if (doc?.['kind'] !== 'svc-listen-cursor' || !cursor) throw new UsageError(`--cursor-file ${file}: not a cursor file of ${command}`);
  for (const k of ['profile', 'api', 'forwardTo'] as const) {
    if (doc[k] !== owner[k])
      throw new UsageError(
        `--cursor-file ${file} belongs to ${k === 'forwardTo' ? 'receiver' : k} ${JSON.stringify(doc[k])}, not ${JSON.stringify(owner[k])}: refused`,
      ).hint('its position means nothing here; give another --cursor-file, or remove this one to start from now');
  }
  return cursor;
}

/** Writes the cursor (owner-only, atomically: a kill leaves the old one or the new one). */
export async function writeCursorFile(file: string, owner: CursorOwner, cursor: EventCursor): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const doc = { kind: 'svc-listen-cursor', ...owner, cursor: cursorToJson(cursor), savedAt: new Date().toISOString() };
  await writeFileAtomic(file, JSON.stringify(doc) + '\n', 0o600);
}
