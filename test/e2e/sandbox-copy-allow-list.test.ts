/**
 * The anonymised copy keeps nothing real (`svc sandbox --from-profile`): a "production" whose
 * every free string field is filled with a marked value, whose records carry attributes beyond
 * the published spec (a personal e-mail, a LinkedIn URL, a phone number as text and as a
 * number, a nested object), whose org has a real name, copied with `--filter` values that are
 * real e-mail addresses. No marked value survives anywhere in the copy file; with
 * `--keep-domains` the domains, and only they, are kept.
 *
 * Every marked value holds a token `zq<k>x` (case varies), which no fake can contain (fakes
 * are hex), so one search of the whole file finds any leak, in whichever field it ended up.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allAttributes, resourceByType } from '../../src/registry/index.js';
import { COPIED_TYPES } from '../../src/commands/sandbox/copy-org.js';
import { defaultOrg } from '../../src/sandbox/data/org.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { runInProcess } from '../helpers/in-process-cli.js';
import { editProfile } from '../helpers/oauth.js';
import { tempDir } from '../helpers/run-svc.js';
import { sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';

let prod: TestSandbox;
let proxy: FaultProxy;
let configDir: string;
let work: string;
const SAMPLE = 12;
/** Real e-mail addresses of the sampled prospects: the `--filter` values. */
const filterEmails: string[] = [];

/** A marked value shaped like what the field holds (the shape matters to the fakes, not to the check). */
function marked(k: number, attr: string): string {
  if (/email|username|owner|recipients/i.test(attr)) return `Ada.ZQ${k}x@dzq${k}x.test`;
  if (/url|endpoint/i.test(attr)) return `https://www.dzq${k}x.test/in/zq${k}x-profile`;
  if (/domain|host/i.test(attr)) return `dzq${k}x.test`;
  if (/phone|number/i.test(attr)) return `+1 (415) 555-01${String(k % 100).padStart(2, '0')} zq${k}x`;
  return `Secret zq${k}x note: call +1 415 555 0199 or mail ada@zq${k}x.test`;
}

beforeAll(async () => {
  const org = defaultOrg();
  org.name = 'ZQ1x Production Corp';
  org.shortName = 'zq2x-prod';
  // A free-text custom field: faked. custom1 (inclusion) keeps values of its list only.
  org.customFields['prospect']!['custom5'] = { type: 'string', required: false, label: 'Private Notes', definition: null };
  ({ sb: prod } = await sandboxWithEnv({ seed: 40, org }));
  let k = 100;
  for (const type of COPIED_TYPES) {
    const rt = resourceByType(type)!;
    const fields = allAttributes(rt).filter(
      (a) =>
        !a.writeOnly &&
        !a.sensitive &&
        !a.enum &&
        !a.onlyOnRequest &&
        (a.type === 'string' || a.type === 'string[]' || a.type === 'date') &&
        (!/^custom\d+$/.test(a.name) || ['custom1', 'custom5', 'custom9'].includes(a.name)),
    );
    for (const rec of prod.store.table(type).values()) {
      const patch: Record<string, unknown> = {};
      for (const a of fields) {
        const v =
          a.type === 'date'
            ? `${type === 'prospect' ? 18 : 19}${String(k % 100).padStart(2, '0')}-0${(k % 9) + 1}-1${k % 10}`
            : marked(k, a.name);
        // A step's date is a schedule and kept; a prospect's dates are facts about a person.
        if (a.type === 'date' && type === 'prospect') dates.add(v);
        patch[a.name] = a.type === 'string[]' ? [v] : v;
        k++;
      }
      prod.store.update(type, rec.id, patch, {}, { silent: true });
    }
  }
  for (let id = 1; id <= SAMPLE; id++) filterEmails.push((prod.store.get('prospect', id)!.attributes['emails'] as string[])[0]!);
  // Attributes beyond the published spec, added to every record production sends.
  proxy = await startFaultProxy(new URL(prod.baseUrl).origin);
  let extra = 9000;
  const withExtras = (o: { attributes?: Record<string, unknown> }) => {
    const n = extra++;
    o.attributes = {
      ...o.attributes,
      personalEmail: `grace.zq${n}x@gmail-zq${n}x.test`,
      linkedInUrl: `https://www.linkedin.com/in/zq${n}x`,
      mobileNumber: `+44 7700 900${String(n % 1000).padStart(3, '0')} zq${n}x`,
      homePhoneDigits: 4155550000 + (n % 10000),
      assistant: { name: `Zq${n}x Assistant`, phones: [`zq${n}x`] },
      hobbies: [`zq${n}x sailing`],
    };
  };
  proxy.always(
    { method: 'GET', path: /^\/api\/v2\/[a-zA-Z]+(\?|$)/ },
    {
      kind: 'rewrite',
      body: (text) => {
        const doc = JSON.parse(text) as { data?: unknown };
        if (Array.isArray(doc.data)) for (const o of doc.data) withExtras(o);
        return JSON.stringify(doc);
      },
    },
  );
  configDir = tempDir();
  work = tempDir('svc-allow-list-');
  fs.writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ profiles: {} }), { mode: 0o600 });
  editProfile(configDir, 'prod', { baseUrl: `${proxy.origin}/api/v2`, authUrl: proxy.origin });
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await prod?.close();
});

const dates = new Set<string>();

async function copy(file: string, extra: string[] = []) {
  const r = await runInProcess(
    [
      'sandbox',
      '--from-profile',
      'prod',
      '--sample',
      String(SAMPLE),
      '--filter',
      `prospect:emails=${filterEmails.join(',')}`,
      '--data',
      file,
      ...extra,
    ],
    { SVC_CONFIG_DIR: configDir, SVC_TOKEN: prod.token },
    60_000,
  );
  expect(r.threw).toBeUndefined();
  expect(r.code, r.stderr).toBe(0);
  return r;
}

describe('an anonymised copy keeps nothing real', () => {
  it('no marked value, extra attribute, personal date, org name or filter value survives, in any field', async () => {
    const file = path.join(work, 'copy.json');
    const r = await copy(file);
    const summary = JSON.parse(r.stdout);
    expect(summary.counts.prospect).toBe(SAMPLE);
    expect(summary.counts.account).toBeGreaterThan(0);
    // The attributes svc does not know are named (not their values) as not copied.
    expect(r.stderr).toMatch(/not copied: \d+ attributes svc does not know \(.*personalEmail/);
    expect(r.stderr).not.toMatch(/zq\d+x/i);
    const text = fs.readFileSync(file, 'utf8');
    expect(text.match(/.{0,60}zq\d+x.{0,20}/gi) ?? []).toEqual([]);
    expect(text.match(/.{0,40}(415.?555|7700.?900).{0,20}/g) ?? []).toEqual([]);
    expect(dates.size).toBeGreaterThan(SAMPLE);
    expect([...dates].filter((d) => text.includes(d))).toEqual([]);
    expect(filterEmails.filter((e) => text.toLowerCase().includes(e.toLowerCase()))).toEqual([]);
    const data = JSON.parse(text);
    // The copy is still a copy: ids, counts and rule values are there.
    expect(data.store.meta.copy.filters).toEqual(['prospect:emails']);
    expect(data.org.id).toBe(1);
    expect(data.org.name).toMatch(/^Company [0-9a-f]{8}$/);
    const p = data.store.tables.prospect[0];
    expect(Object.keys(p.attributes)).not.toContain('personalEmail');
    expect(p.attributes.emails[0]).toMatch(/^u[0-9a-f]{10}@d[0-9a-f]{8}\.example$/);
    expect(p.attributes).not.toHaveProperty('dateOfBirth');
    expect(typeof p.attributes.createdAt).toBe('string');
    const ruleset = data.store.tables.ruleset[0].attributes;
    expect(ruleset.sequenceExclusivity).toBe(prod.store.get('ruleset', data.store.tables.ruleset[0].id)!.attributes['sequenceExclusivity']);
  }, 90_000);

  it('--keep-domains keeps the domains and nothing else of a value', async () => {
    const file = path.join(work, 'domains.json');
    await copy(file, ['--keep-domains']);
    const text = fs.readFileSync(file, 'utf8');
    // Remove every kept domain where a domain belongs: after an @, as a URL's host, as a whole value.
    const rest = text.replace(/(@|https:\/\/|")(d?zq\d+x\.test|gmail-zq\d+x\.test)(?=["/])/gi, '$1');
    expect(rest.match(/.{0,60}zq\d+x.{0,20}/gi) ?? []).toEqual([]);
    // The domains are there.
    expect(text).toMatch(/@dzq\d+x\.test"/);
    expect(text.match(/.{0,40}(415.?555|7700.?900).{0,20}/g) ?? []).toEqual([]);
    expect(filterEmails.filter((e) => text.toLowerCase().includes(e.toLowerCase()))).toEqual([]);
  }, 90_000);
});
