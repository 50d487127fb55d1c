/**
 * create/update/delete/actions before anything is sent, in-process: client-side validation is
 * exit 2 naming the field, a near-miss relationship is named, and `--dry-run` prints the request
 * (method, URL, body) instead of sending it. (The e2e tests keep one refusal through the built
 * binary.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUnsent, type Unsent } from '../../../helpers/unsent.js';

let server: Unsent;
beforeAll(async () => {
  server = await startUnsent();
});
afterAll(() => server.close());

describe('client-side validation: exit 2, field named, nothing sent', () => {
  it.each([
    [['prospects', 'create', '--attr', `title=${'x'.repeat(256)}`], /prospect title: longer than 255/],
    [['sequence-steps', 'create', '--attr', 'stepType=fax'], /stepType: must be one of auto_email, manual_email, call, task/],
    [['accounts', 'create', '--attr', 'numberOfEmployees=many'], /numberOfEmployees.*expected an integer/],
    [['prospects', 'create', '--attr', 'dateOfBirth=1815-13-40'], /dateOfBirth: expected a date/],
    [['prospects', 'create', '--attr', 'optedOut=perhaps'], /optedOut.*expected true or false \(or yes\/no, 1\/0\), got "perhaps"/],
    [['prospects', 'create', '--rel', 'creator=3'], /creator.*read-only/],
    [['prospects', 'create', '--rel', 'account=acme'], /not an id/],
    [['prospects', 'create', '--data', '{not json'], /not valid JSON/],
    // Said as --input says it, not a bare errno ("cannot read file (ENOENT)", a trial).
    [
      ['prospects', 'create', '--data', '@/no/such/file.json'],
      /^error: --data \/no\/such\/file\.json: no such file \(looked for \/no\/such\/file\.json\); check the path after the @$/m,
    ],
    [['prospects', 'create', '--data', '@/'], /^error: --data \/: is a directory, not a file; check the path after the @$/m],
    [['prospects', 'create', '--data', '@/dev/null'], /^error: --data \(\/dev\/null\): is empty; give a JSON object$/m],
    [['tasks', 'mark-complete', '1', '--param', 'bogus=1'], /does not accept "bogus"/],
    [['prospects', 'update', '1'], /nothing to update/],
  ])('%j', async (args, message) => {
    const r = await server.run(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.sent).toEqual([]);
  });

  it('a relationship in --rel: a usage error naming it, nothing sent', async () => {
    const r = await server.run(['prospects', 'create', '--attr', 'firstName=Ada', '--rel', 'acount=4']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/prospect has no relationship "acount" \(did you mean "account"\?\)/);
    expect(r.stderr).not.toMatch(/spec does not say/);
    expect(r.sent).toEqual([]);
  });
});

describe('--dry-run', () => {
  it('prints method, URL and body and sends nothing', async () => {
    const r = await server.run(['prospects', 'create', '--attr', 'firstName=Dry', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/api\/v2\/prospects\n/);
    expect(JSON.parse(r.stdout.split('\n').slice(1).join('\n'))).toEqual({ data: { type: 'prospect', attributes: { firstName: 'Dry' } } });
    const d = await server.run(['prospects', 'delete', '3', '--dry-run']);
    expect(d.stdout.trim()).toMatch(/^DELETE .*\/prospects\/3$/);
    const a = await server.run(['tasks', 'mark-complete', '4', '--param', 'completionNote=done', '--dry-run']);
    expect(decodeURIComponent(a.stdout.trim())).toMatch(/^POST .*\/tasks\/4\/actions\/markComplete\?actionParams\[completionNote\]=done$/);
    expect(server.received).toEqual([]);
  });

  it('a list attribute written as JSON after = is its items, as after := or with commas (it was one address `["…"]`)', async () => {
    const body = async (attr: string) => {
      const r = await server.run(['prospects', 'create', '--attr', attr, '--dry-run']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout.split('\n').slice(1).join('\n')).data.attributes;
    };
    const both = { emails: ['ada@corp.example', 'ada.l@home.example'] };
    expect(await body('emails=["ada@corp.example", "ada.l@home.example"]')).toEqual(both);
    expect(await body('emails:=["ada@corp.example","ada.l@home.example"]')).toEqual(both);
    expect(await body('emails=ada@corp.example,ada.l@home.example')).toEqual(both);
    // Text that is no JSON list of strings stays text, split at commas.
    expect(await body('tags=[vip],[beta]')).toEqual({ tags: ['[vip]', '[beta]'] });
    expect(server.received).toEqual([]);
  });
});
