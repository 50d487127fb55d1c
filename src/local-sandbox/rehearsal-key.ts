/**
 * The key of an anonymised copy (`svc sandbox --from-profile`), kept beside it in `<file>.key`
 * (owner-only), so that a rehearsal with `--sandbox-data FILE` can turn the values of an input
 * file written for production into the fakes the copy holds (bulk/rows/input-mask.ts). Apart from the
 * copy because it lets whoever has it test a guess ("is this fake ada@corp.com?"): a copy handed
 * to someone else goes without it.
 */
import fs from 'node:fs';
import { Anonymiser } from '../anonymise.js';
import type { CustomFieldValidation } from '../sandbox/data/org.js';
import { writePrivateFileSync } from '../private-file.js';

/** What the key file holds. */
interface RehearsalKey {
  version: 1;
  /** HMAC key (hex) the copy's fakes were made with. */
  key: string;
  keepDomains: boolean;
}

/** Where the key of the copy `orgFile` is kept. */
export function rehearsalKeyFile(orgFile: string): string {
  return `${orgFile}.key`;
}

/** Writes the key of a finished copy (0600, atomically); a copy made without anonymising has none. */
export function writeRehearsalKey(orgFile: string, key: string | undefined, keepDomains: boolean): void {
  const file = rehearsalKeyFile(orgFile);
  if (key === undefined) {
    fs.rmSync(file, { force: true });
    return;
  }
  const body: RehearsalKey = { version: 1, key, keepDomains };
  writePrivateFileSync(file, JSON.stringify(body));
}

/** The copy's fakes of input values: the shape of bulk's `InputMask` (this layer does not import bulk). */
interface CopyMask {
  value(type: string, attr: string, v: string): string;
  attributes(type: string, attrs: Record<string, unknown>): Record<string, unknown>;
  shown(v: string): string;
}

/** What a rehearsal on `orgFile` needs: the mask, none (a copy that is not anonymised), or why it has none. */
type RehearsalMaskResult = { mask: CopyMask } | { mask?: undefined; missing?: string };

function customFieldsOf(orgFile: string): Record<string, Record<string, CustomFieldValidation>> | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(orgFile, 'utf8')) as {
      org?: { customFields?: Record<string, Record<string, CustomFieldValidation>> };
      store?: { meta?: { copy?: { anonymised?: boolean } } };
    };
    // Only a copy that says it is anonymised has fakes to match.
    if (data.store?.meta?.copy?.anonymised !== true) return undefined;
    return data.org?.customFields ?? {};
  } catch {
    return undefined;
  }
}

/** The mask of an anonymised copy, read from its key file. */
export function readRehearsalMask(orgFile: string): RehearsalMaskResult {
  const custom = customFieldsOf(orgFile);
  if (!custom) return {};
  let k: RehearsalKey;
  try {
    k = JSON.parse(fs.readFileSync(rehearsalKeyFile(orgFile), 'utf8')) as RehearsalKey;
  } catch {
    return { missing: `${rehearsalKeyFile(orgFile)}: no key beside this anonymised copy` };
  }
  if (k.version !== 1 || typeof k.key !== 'string' || !/^[0-9a-f]{64}$/.test(k.key))
    return { missing: `${rehearsalKeyFile(orgFile)}: not the key of a copy` };
  const a = new Anonymiser({ key: k.key, keepDomains: k.keepDomains === true });
  // The fakes of the values the user gave, mapped back: what a message shows is what they wrote.
  const given = new Map<string, string>();
  return {
    mask: {
      value: (type, attr, v) => {
        const kind = a.kind(type, attr, custom[type]);
        if (!kind || v === '') return v;
        const fake = a.fake(kind, v);
        given.set(fake, v);
        return fake;
      },
      shown: (v) => given.get(v) ?? v,
      attributes: (type, attrs) => a.input(type, attrs, custom[type]),
    },
  };
}
