/**
 * The prospects of `svc enroll`'s rows, in batches, never one request per row (the batching is
 * key-match.ts's): e-mail addresses → prospect ids (`--by email`), and ids checked to exist
 * (`--by id`, `--prospect`). Addresses are matched ignoring case, as upsert matches them: the
 * prospects' addresses are read once and compared lower-cased (key-match.ts).
 */
import type { PageClient } from '../../api/paginate.js';
import type { EnrollItem } from './enroll-rows.js';
import { idValue } from '../../lossless-json.js';
import type { InputMask } from './input-mask.js';
import { foldedLookup, keyLookup, maskedLookup, normKey, resolveInBatches, type KeyLookup } from './key-match.js';

/** Finds the prospects of some addresses: lower-cased address → ids. */
type EmailLookup = (emails: string[]) => Promise<Map<string, FoundProspect[]>>;

/** A prospect a lookup found: its id and what says whether it may be mailed. */
interface FoundProspect {
  id: number | string;
  attributes: Record<string, unknown>;
}

/** What opts a prospect out of the mailings a sequence sends (the spec's optedOut; emailsOptStatus). */
const CONSENT = ['optedOut', 'emailsOptStatus'];

/**
 * The failure of an opted-out prospect's row, before anything is sent: the server refuses the
 * enrolment, and the summary promised it "to enroll" (a trial's dry run said 3, the run made 2).
 */
function optedOut(p: FoundProspect): string | undefined {
  if (p.attributes['optedOut'] === true || p.attributes['emailsOptStatus'] === 'opted_out')
    return `opted out: prospect ${p.id} has opted out of email, and a sequence would mail it`;
  return undefined;
}

/**
 * A lookup through the list endpoint; on an anonymised rehearsal copy, of the addresses' fakes.
 * @param wanted every address the rows give (as written): only those are kept from the read of the
 *   prospects' addresses, so memory follows the file, not the org
 */
export function emailLookup(client: PageClient, mask?: InputMask, wanted?: Iterable<string>): EmailLookup {
  const fake = (v: string) => (mask ? mask.value('prospect', 'emails', v) : v);
  const keep = wanted ? new Set([...wanted].map((v) => normKey(fake(v)))) : undefined;
  const plain = foldedLookup(client, {
    path: 'prospects',
    type: 'prospect',
    attr: 'emails',
    fields: ['emails', ...CONSENT],
    ...(keep ? { wanted: keep } : {}),
  });
  const look = mask ? maskedLookup(plain, fake) : plain;
  return async (emails) => {
    const out = new Map<string, FoundProspect[]>();
    for (const [k, recs] of await look(emails))
      out.set(
        k,
        recs.map((r) => ({ id: r.id, attributes: r.attributes ?? {} })),
      );
    return out;
  };
}

/**
 * Resolves the addresses of the items flowing through, a batch at a time, keeping their order.
 * Items already decided (invalid, done) pass through without a lookup; an address that no
 * prospect has, or that several have, becomes a failed row.
 */
export function resolveEmails(items: AsyncIterable<EnrollItem>, lookup: EmailLookup): AsyncGenerator<EnrollItem> {
  const asRecords = async (values: string[]) => {
    const m = new Map<string, { id: number | string; attributes: Record<string, unknown>; relationships: Record<string, unknown> }[]>();
    for (const [k, found] of await lookup(values))
      m.set(
        k.toLowerCase(),
        found.map((p) => ({ id: p.id, attributes: p.attributes, relationships: {} })),
      );
    return m;
  };
  return resolveInBatches(items, asRecords, {
    keyOf: (item) => (!item.outcome && item.email && item.prospectId === undefined ? item.email : undefined),
    apply: (item, recs) => {
      const ids = recs.map((r) => r.id);
      const out = recs.length === 1 ? optedOut(recs[0]!) : undefined;
      if (out) item.outcome = { status: 'failed', id: null, error: out, extra: { email: item.email, prospect: idValue(String(ids[0])) } };
      else if (ids.length === 1) item.prospectId = idValue(String(ids[0]));
      else if (ids.length === 0)
        item.outcome = {
          status: 'failed',
          id: null,
          error: `not found: no prospect has the address ${item.email}`,
          extra: { email: item.email },
        };
      else {
        item.outcome = {
          status: 'failed',
          id: null,
          error: `ambiguous: ${ids.length} prospects have the address ${item.email} (ids ${ids.join(', ')}); enroll by id`,
          extra: { email: item.email },
        };
      }
    },
  });
}

/** Which of some prospect ids exist, and may be mailed: `filter[id]=a,b,…` with the consent fields, up to 500 ids a request. */
export function idLookup(client: PageClient): KeyLookup {
  return keyLookup(client, { path: 'prospects', type: 'prospect', attr: 'id', fields: CONSENT });
}

/**
 * Checks that the prospects of the items flowing through exist, a batch at a time, keeping their
 * order: an id no prospect has fails its row before anything is sent, where the summary counted
 * it "to enroll" and the server refused it after the others were enrolled (a trial). Items
 * already decided pass through, and so do prospects in the sequence (`known`: their state
 * proves them), without a lookup.
 */
export function resolveIds(
  items: AsyncIterable<EnrollItem>,
  lookup: KeyLookup,
  known: ReadonlyMap<number | string, unknown>,
): AsyncGenerator<EnrollItem> {
  return resolveInBatches(items, lookup, {
    keyOf: (item) => (!item.outcome && item.prospectId !== undefined && !known.has(item.prospectId) ? String(item.prospectId) : undefined),
    apply: (item, recs) => {
      const out = recs[0] ? optedOut({ id: recs[0].id, attributes: recs[0].attributes ?? {} }) : undefined;
      if (out) item.outcome = { status: 'failed', id: null, error: out, extra: { prospect: item.prospectId } };
      if (recs.length > 0) return;
      item.unknownId = true;
      item.outcome = {
        status: 'failed',
        id: null,
        error: `not found: no prospect has id ${item.prospectId}`,
        extra: { prospect: item.prospectId },
      };
    },
  });
}
