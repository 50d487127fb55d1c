/**
 * `svc sandbox --seed N --duplicates P`: P % of the prospects get a planted duplicate, written
 * the ways imports write one person twice, and as many near-misses that are not duplicates. The
 * truth is in each planted record's `externalId`: `planted-dup:<id>` names the prospect it
 * duplicates, `near-miss:<id>` the prospect it resembles but is not. `svc dedupe` never reads
 * `externalId`; the tests do, to count precision and recall.
 *
 * Duplicates, by turns:
 * - e-mail: the address in other case or with a `+tag`, the name in other case, the number written another way;
 * - phone: the work number written another way (`(555) 123-0042`, `555.123.0042`), a personal
 *   (free-mail) address, the name with accents or in capitals, no account but the company name
 *   with a legal form (`ACME, Inc.`);
 * - name: a one-letter typo or an accent in the first name, at the same account, a personal address
 *   and a number of its own.
 *
 * Near-misses, by turns: the same name at another account; a colleague at the same account who
 * shares the work number (a switchboard); two colleagues who share the role address `info@`.
 *
 * The records come from their own random stream after the org's prospects: with 0 % nothing is
 * drawn and the org is the one `--seed N` alone makes.
 */
import type { Rec, Ref, RelValue } from './store.js';
import { Prng } from './prng.js';

type Attrs = Record<string, unknown>;

/** What the seeder hands over. */
interface PlantContext {
  add(type: string, attrs: Attrs, rels?: Record<string, RelValue>): Rec | undefined;
  get(type: string, id: number): Rec | undefined;
  ref(type: string, id: number): Ref;
  prospectIds: readonly number[];
  accountIds: readonly number[];
  /** Also make emailAddress and phoneNumber records (small orgs, as for the org's own prospects). */
  withRecords: boolean;
  seed: number;
}

const ACCENTS: Record<string, string> = { a: 'á', e: 'é', i: 'í', o: 'ö', u: 'ü', n: 'ñ', c: 'ç' };
const SUFFIXES = [', Inc.', ' Inc', ' LLC', ', Ltd.', ' GmbH', ' Corp.'];

/** Plants `percent` % duplicates (and as many near-misses) among the prospects. */
export function plantDuplicates(c: PlantContext, percent: number): { duplicates: number; nearMisses: number } {
  const rnd = new Prng(c.seed ^ 0x0d0b1e5);
  const count = Math.round((c.prospectIds.length * percent) / 100);
  // Distinct originals: one planted record each, so that every truth cluster is a pair.
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count * 2, c.prospectIds.length)) chosen.add(c.prospectIds[rnd.int(0, c.prospectIds.length - 1)]!);
  const originals = [...chosen];
  let n = 0;
  for (const id of originals.slice(0, count)) plantDuplicate(c, rnd, c.get('prospect', id)!, n++ % 3);
  let m = 0;
  for (const id of originals.slice(count, count * 2)) plantNearMiss(c, rnd, c.get('prospect', id)!, m++ % 3);
  return { duplicates: n, nearMisses: m };
}

function attrs(p: Rec) {
  const a = p.attributes;
  return {
    first: String(a['firstName']),
    last: String(a['lastName']),
    email: (a['emails'] as string[])[0]!,
    phone: (a['workPhones'] as string[])[0]!,
    company: String(a['company'] ?? ''),
    account: p.rels['account'] as Ref | null,
    owner: p.rels['owner'] as Ref | null,
  };
}

/** The prospect's record, with its address and number records in a small org. */
function addProspect(c: PlantContext, a: Attrs, rels: Record<string, RelValue>): void {
  const p = c.add('prospect', { name: `${a['firstName']} ${a['lastName']}`, optedOut: false, ...a }, rels);
  if (!p || !c.withRecords) return;
  const email = (a['emails'] as string[] | undefined)?.[0];
  const phone = (a['workPhones'] as string[] | undefined)?.[0];
  const prospect = c.ref('prospect', p.id);
  if (email) c.add('emailAddress', { email, emailType: 'work', order: 0, status: 'Valid' }, { prospect });
  if (phone) c.add('phoneNumber', { number: phone, phoneType: 'work' }, { prospect });
}

/** The digits of a `+1 555 123 0042` number, written as a US import would: `(555) 123-0042`. */
function otherPhoneFormat(rnd: Prng, phone: string): string {
  const d = phone.replace(/\D/g, '').slice(-10);
  const [a, b, x] = [d.slice(0, 3), d.slice(3, 6), d.slice(6)];
  return rnd.pick([`(${a}) ${b}-${x}`, `${a}.${b}.${x}`, `1-${a}-${b}-${x}`, `+1 ${a}-${b}-${x}`]);
}

/** One letter of `s` changed: doubled, dropped, or accented. */
function typo(rnd: Prng, s: string): string {
  const i = rnd.int(1, s.length - 1);
  const ch = s[i]!.toLowerCase();
  if (ACCENTS[ch]) return s.slice(0, i) + ACCENTS[ch] + s.slice(i + 1);
  return rnd.chance(0.5) ? s.slice(0, i) + s[i] + s.slice(i) : s.slice(0, i) + s.slice(i + 1);
}

/** A pronounceable word unique to `n`: 650 → `bitaso`. */
function syllables(n: number): string {
  const parts = ['a', 'bi', 'ca', 'do', 'fe', 'gu', 'ha', 'ki', 'lo', 'mu'];
  return [...String(n)].map((d) => parts[Number(d)]).join('') + 'son';
}

function accented(s: string): string {
  return s.replace(/[aeiou]/, (ch) => ACCENTS[ch] ?? ch);
}

function plantDuplicate(c: PlantContext, rnd: Prng, orig: Rec, kind: number): void {
  const o = attrs(orig);
  const truth = { externalId: `planted-dup:${orig.id}`, externalSource: 'import' };
  const rels = { owner: o.owner, ...(kind === 1 ? {} : { account: o.account }) };
  const personal = `${o.first}.${o.last}.${orig.id}@gmail.com`.toLowerCase();
  if (kind === 0) {
    const [local, domain] = o.email.split('@') as [string, string];
    const email = rnd.chance(0.5) ? `${local}+${rnd.pick(['webinar', 'import', 'news'])}@${domain}` : o.email.toUpperCase();
    addProspect(
      c,
      {
        firstName: o.first.toUpperCase(),
        lastName: o.last,
        emails: [email],
        workPhones: [otherPhoneFormat(rnd, o.phone)],
        company: o.company,
        title: 'Imported',
        ...truth,
      },
      rels,
    );
  } else if (kind === 1) {
    addProspect(
      c,
      {
        firstName: accented(o.first),
        lastName: rnd.chance(0.5) ? o.last.toUpperCase() : o.last,
        emails: [personal],
        workPhones: [otherPhoneFormat(rnd, o.phone)],
        company: `${o.company.toUpperCase()}${rnd.pick(SUFFIXES)}`,
        ...truth,
      },
      rels,
    );
  } else {
    addProspect(
      c,
      {
        firstName: typo(rnd, o.first),
        lastName: o.last,
        emails: [personal],
        // A number of its own (a mobile the import had): every prospect has a work number in the demo org.
        workPhones: [
          `+1 558 ${String(500_000 + orig.id)
            .padStart(7, '0')
            .replace(/^(\d{3})/, '$1 ')}`,
        ],
        company: o.company,
        dateOfBirth: '1990-01-01',
        ...truth,
      },
      rels,
    );
  }
}

function plantNearMiss(c: PlantContext, rnd: Prng, orig: Rec, kind: number): void {
  const o = attrs(orig);
  const truth = { externalId: `near-miss:${orig.id}`, externalSource: 'import' };
  const line = String(500_000 + orig.id).padStart(7, '0');
  const ownPhone = `+1 556 ${line.slice(0, 3)} ${line.slice(3)}`;
  if (kind === 0) {
    // The same name at another company.
    let other = c.get('account', rnd.pick(c.accountIds))!;
    if (o.account && other.id === o.account.id) other = c.get('account', c.accountIds.find((x) => x !== o.account!.id)!)!;
    const domain = String(other.attributes['domain']);
    addProspect(
      c,
      {
        firstName: o.first,
        lastName: o.last,
        emails: [`${o.first}.${o.last}.nm${orig.id}@${domain}`.toLowerCase()],
        workPhones: [ownPhone],
        company: other.attributes['name'],
        ...truth,
      },
      { account: c.ref('account', other.id), owner: o.owner },
    );
    return;
  }
  const domain = o.email.split('@')[1]!;
  const colleague = (first: string, last: string, emails: string[], phone: string) =>
    addProspect(
      c,
      { firstName: first, lastName: last, emails, workPhones: [phone], company: o.company, ...truth },
      { account: o.account, owner: o.owner },
    );
  // Colleagues of other names, apart from the org's names and unique to the original (near-misses
  // of two originals at one company must not be one person by name either).
  const first = rnd.pick(['Quinn', 'Rowan', 'Sasha', 'Toni', 'Uma', 'Vic']);
  const last = `${rnd.pick(['Ion', 'Jov', 'Kow', 'Lind', 'Mor'])}${syllables(orig.id)}`;
  if (kind === 1) colleague(first, last, [`${first}.${last}.nm${orig.id}@${domain}`.toLowerCase()], o.phone);
  else {
    colleague(first, last, [`info@${domain}`], ownPhone);
    colleague(
      rnd.pick(['Wren', 'Xena', 'Yuri']),
      `${rnd.pick(['Nak', 'Ok', 'Pet'])}${syllables(orig.id)}`,
      [`Info@${domain}`],
      `+1 557 ${line.slice(0, 3)} ${line.slice(3)}`,
    );
  }
}
