/**
 * The progress file of a copy: each finished step's records (already anonymised), the
 * anonymisation key and the requests used, written atomically and owner-only after every step,
 * so that an interrupted copy resumes where it stopped — with the same fakes.
 */
import fs from 'node:fs';
import { writePrivateFileSync } from '../../private-file.js';

/** What identifies a copy: a progress file made with other options is not resumed. */
export interface CopyParams {
  profile: string;
  baseUrl: string;
  sample: number;
  filters: string[];
  anonymise: boolean;
  keepDomains: boolean;
}

/** Content of the progress file. */
export interface CopyProgress {
  version: 1;
  params: CopyParams;
  /** Anonymisation key (hex), undefined without anonymisation. */
  key?: string;
  /** Requests used by earlier runs of this copy. */
  requests: number;
  /** Step name → its result. */
  steps: Record<string, unknown>;
}

/** Where the progress of a copy into `orgFile` is kept. */
export function progressFile(orgFile: string): string {
  return `${orgFile}.progress`;
}

function sameParams(a: CopyParams, b: CopyParams): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The progress of an earlier run with the same options, if any. */
export function readProgress(file: string, params: CopyParams): CopyProgress | undefined {
  let p: CopyProgress;
  try {
    p = JSON.parse(fs.readFileSync(file, 'utf8')) as CopyProgress;
  } catch {
    return undefined;
  }
  return p.version === 1 && sameParams(p.params, params) ? p : undefined;
}

/** Writes the progress (0600: it holds the key that makes the fakes). */
export function writeProgress(file: string, p: CopyProgress): void {
  writePrivateFileSync(file, JSON.stringify(p));
}
