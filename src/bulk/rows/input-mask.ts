/**
 * Rehearsing on an anonymised copy of an org (`svc sandbox --from-profile`, then
 * `--sandbox-data FILE`): the copy holds deterministic fakes where production holds names,
 * addresses and free text, so an input file written for production would match nothing by
 * e-mail and would write real values into the copy. An {@link InputMask} turns a row's values
 * into the fakes the copy holds — the same fake for the same value — so that matching, diffs and
 * the org's rules see in the copy what they would see in production. Rows, reports and messages
 * keep the values as the user wrote them.
 */
import { toDocument, type WriteData } from '../../api/write-body.js';
import type { PreparedWrite } from './resource-rows.js';

/** How the copy holds the values of one copy's anonymised fields. */
export interface InputMask {
  /** One value of `type.attr` as the copy holds it (unchanged when the field is not anonymised). */
  value(type: string, attr: string, v: string): string;
  /** A record's attributes with every anonymised field replaced (a new object). */
  attributes(type: string, attrs: Record<string, unknown>): Record<string, unknown>;
  /**
   * What to show the user for a value read from the copy: the value they gave, when it is the
   * fake {@link value} made of it in this run; the value itself otherwise.
   */
  shown(v: string): string;
}

/** A row's write data with its attributes as the copy holds them. */
export function maskData(data: WriteData, mask: InputMask): WriteData {
  return { ...data, attributes: mask.attributes(data.type, data.attributes) };
}

/** A write with its attributes as the copy holds them (its body rebuilt from them). */
export function maskWrite(write: PreparedWrite, mask: InputMask): PreparedWrite {
  if (!write.data) return write;
  const data = maskData(write.data, mask);
  return { ...write, data, body: toDocument(data) };
}
