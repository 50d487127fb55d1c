/**
 * Guards the registry data against the API's v2 reference: type list, paths, operations, actions,
 * custom fields, name collisions and cross-references.
 */
import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import {
  RESOURCES,
  allAttributes,
  findAttribute,
  findRelationship,
  findResource,
  resourceByType,
  type Operation,
} from '../../src/registry/index.js';
import { WEBHOOK_RESOURCE_ACTIONS } from '../../src/registry/data/webhook-events.js';

/** spec: Conventions, "Resource types that exist". */
const SPEC_TYPES = (
  'account, accountNote, auditLog, batch, batchItem, call, callDisposition, callPurpose, ' +
  'complianceRequest, contentCategory, contentCategoryMembership, contentCategoryOwnership, ' +
  'customDuty, duty, emailAddress, event, favorite, import, voiceRecording, voiceImport, mailAlias, ' +
  'mailbox, mailing, opportunity, opportunityProspectRole, opportunityStage, orgSetting, persona, ' +
  'phoneNumber, product, profile, prospect, prospectNote, purchase, recipient, role, ruleset, ' +
  'sequence, sequenceState, sequenceStep, sequenceTemplate, snippet, stage, task, taskDisposition, ' +
  'taskPriority, taskPurpose, team, template, user, webhook'
).split(', ');

const ALL_PATHS = (
  'accounts accountNotes auditLogs batches batchItems calls callDispositions callPurposes ' +
  'complianceRequests contentCategories contentCategoryMemberships contentCategoryOwnerships ' +
  'customDuties duties emailAddresses events favorites imports voiceRecordings voiceImports ' +
  'mailAliases mailboxes mailings opportunities opportunityProspectRoles opportunityStages ' +
  'orgSettings personas phoneNumbers products profiles prospects prospectNotes purchases recipients ' +
  'roles rulesets sequences sequenceStates sequenceSteps sequenceTemplates snippets stages tasks ' +
  'taskDispositions taskPriorities taskPurposes teams templates users webhooks'
).split(' ');

const ALL: Operation[] = ['list', 'get', 'create', 'update', 'delete'];
const CRUD_NO_UPDATE: Operation[] = ['list', 'get', 'create', 'delete'];

/** spec: Endpoints, "Operations by resource" (instances→list, self→get, destroy→delete). */
const SPEC_OPERATIONS: Record<string, Operation[]> = {
  accounts: ALL,
  callDispositions: ALL,
  callPurposes: ALL,
  contentCategories: ALL,
  emailAddresses: ALL,
  mailboxes: ALL,
  prospects: ALL,
  recipients: ALL,
  roles: ALL,
  rulesets: ALL,
  sequenceSteps: ALL,
  sequenceTemplates: ALL,
  calls: CRUD_NO_UPDATE,
  complianceRequests: ['list', 'get', 'create'],
  contentCategoryMemberships: CRUD_NO_UPDATE,
  contentCategoryOwnerships: ['list', 'create', 'delete'],
  customDuties: ['create'],
  duties: ['list'],
  events: ['list', 'get', 'create'],
  favorites: CRUD_NO_UPDATE,
  mailAliases: ['list', 'get'],
  mailings: ['list', 'get', 'create'],
  sequenceStates: CRUD_NO_UPDATE,
  accountNotes: CRUD_NO_UPDATE,
};

/** Relationships whose target is not one registry type, and why. */
const UNKNOWN_TARGETS: Record<string, string> = {
  'contentCategoryMembership.content': 'polymorphic: sequence, snippet or template',
};

const CUSTOM_FIELD_TYPES = ['account', 'opportunity', 'opportunityProspectRole', 'product', 'prospect', 'purchase'];

const sorted = (xs: readonly string[]) => [...xs].sort();
const must = (name: string) => {
  const rt = findResource(name);
  if (!rt) throw new Error(`no resource ${name}`);
  return rt;
};

describe('registry: types', () => {
  it('has exactly the 51 types of the spec', () => {
    expect(SPEC_TYPES).toHaveLength(51);
    expect(RESOURCES).toHaveLength(51);
    expect(sorted(RESOURCES.map((r) => r.type))).toEqual(sorted(SPEC_TYPES));
  });

  it('has no opportunityLineItem (named for custom fields but not a listed type)', () => {
    expect(resourceByType('opportunityLineItem')).toBeUndefined();
  });

  it('derives collection paths and commands, irregular plurals included', () => {
    const paths: Record<string, [string, string]> = {
      opportunity: ['opportunities', 'opportunities'],
      batch: ['batches', 'batches'],
      mailAlias: ['mailAliases', 'mail-aliases'],
      customDuty: ['customDuties', 'custom-duties'],
      duty: ['duties', 'duties'],
      contentCategory: ['contentCategories', 'content-categories'],
      taskPriority: ['taskPriorities', 'task-priorities'],
      mailbox: ['mailboxes', 'mailboxes'],
      emailAddress: ['emailAddresses', 'email-addresses'],
      sequenceState: ['sequenceStates', 'sequence-states'],
      prospect: ['prospects', 'prospects'],
    };
    for (const [type, [path, command]] of Object.entries(paths)) {
      const rt = resourceByType(type)!;
      expect(rt.path, type).toBe(path);
      expect(rt.command, type).toBe(command);
    }
    // All 51 collection paths, written out by hand (spec: "pluralized camelCase type name").
    expect(sorted(RESOURCES.map((r) => r.path))).toEqual(sorted(ALL_PATHS));
    for (const rt of RESOURCES) {
      // `svc profiles` is svc's own config profiles, so the API's profile type is renamed.
      const expected = rt.type === 'profile' ? 'api-profiles' : rt.path.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
      expect(rt.command, rt.type).toBe(expected);
    }
    // Every path in the operations table names a type.
    for (const path of Object.keys(SPEC_OPERATIONS)) expect(findResource(path), path).toBeDefined();
    // Every command is unique and kebab-case.
    const commands = RESOURCES.map((r) => r.command);
    expect(new Set(commands).size).toBe(51);
    for (const c of commands) expect(c).toMatch(/^[a-z]+(-[a-z]+)*$/);
  });

  it('has every resource command of the CLI contract', () => {
    for (const c of [
      'prospects',
      'sequence-states',
      'email-addresses',
      'content-categories',
      'opportunities',
      'mail-aliases',
      'batches',
      'custom-duties',
    ]) {
      expect(findResource(c)?.command, c).toBe(c);
    }
  });

  it('finds a type by command, camelCase alias and singular', () => {
    for (const name of ['sequence-states', 'sequenceStates', 'sequenceState', 'sequence-state']) {
      expect(findResource(name)?.type, name).toBe('sequenceState');
    }
    expect(findResource('opportunity')?.path).toBe('opportunities');
    expect(findResource('mail-alias')?.type).toBe('mailAlias');
    expect(findResource('nope')).toBeUndefined();
  });
});

describe('registry: operations and actions', () => {
  it('matches the spec table exactly, and gives all five to types it does not list', () => {
    for (const rt of RESOURCES) {
      const expected = SPEC_OPERATIONS[rt.path] ?? ALL;
      expect(sorted(rt.operations), rt.path).toEqual(sorted(expected));
    }
  });

  it('has exactly the spec item actions', () => {
    const actions = Object.fromEntries(
      RESOURCES.filter((r) => r.actions.length).map((r) => [r.type, r.actions.map((a) => `${a.name}:${a.command}:${a.params.join('|')}`)]),
    );
    expect(actions).toEqual({
      sequenceState: ['finish:finish:', 'pause:pause:', 'resume:resume:'],
      mailbox: ['testSend:test-send:', 'testSync:test-sync:', 'errorSync:error-sync:'],
      task: ['snooze:snooze:', 'markComplete:mark-complete:completionNote'],
    });
  });
});

describe('registry: fields', () => {
  it('gives custom1..custom150 to the six custom-field types only', () => {
    for (const rt of RESOURCES) {
      const has = CUSTOM_FIELD_TYPES.includes(rt.type);
      expect(rt.customFields, rt.type).toBe(has);
      expect(findAttribute(rt, 'custom1') !== undefined, rt.type).toBe(has);
      expect(findAttribute(rt, 'custom150') !== undefined, rt.type).toBe(has);
      expect(findAttribute(rt, 'custom151'), rt.type).toBeUndefined();
      expect(findAttribute(rt, 'custom0'), rt.type).toBeUndefined();
      if (has) expect(allAttributes(rt).filter((a) => /^custom\d+$/.test(a.name))).toHaveLength(150);
    }
    const opp = must('opportunities');
    expect(findAttribute(opp, 'custom1')?.maxLength).toBe(255);
    expect(findAttribute(opp, 'custom2')?.maxLength).toBe(255);
    expect(findAttribute(opp, 'custom3')?.maxLength).toBeUndefined();
  });

  it('has no duplicate names, no attribute/relationship collision, no id/type attribute', () => {
    for (const rt of RESOURCES) {
      const attrs = allAttributes(rt).map((a) => a.name);
      const rels = rt.relationships.map((r) => r.name);
      expect(new Set(attrs).size, `${rt.type} attributes`).toBe(attrs.length);
      expect(new Set(rels).size, `${rt.type} relationships`).toBe(rels.length);
      expect(
        attrs.filter((a) => rels.includes(a)),
        rt.type,
      ).toEqual([]);
      expect(
        attrs.filter((a) => a === 'id' || a === 'type'),
        rt.type,
      ).toEqual([]);
      expect(
        rels.filter((r) => r === 'id' || r === 'type'),
        rt.type,
      ).toEqual([]);
    }
  });

  it('points every relationship at an existing type, or lists it as unknown', () => {
    for (const rt of RESOURCES) {
      for (const r of rt.relationships) {
        const key = `${rt.type}.${r.name}`;
        if (UNKNOWN_TARGETS[key]) expect(r.target, key).toBeUndefined();
        else expect(r.target && resourceByType(r.target) ? r.target : undefined, key).toBeDefined();
      }
    }
    expect(findRelationship(must('content-category-ownerships'), 'owner')?.target).toBe('team');
  });

  it('names real fields in defaultColumns and promptFields', () => {
    for (const rt of RESOURCES) {
      const known = (f: string) => !!findAttribute(rt, f) || !!findRelationship(rt, f);
      expect(rt.defaultColumns.length, rt.type).toBeGreaterThan(0);
      for (const c of rt.defaultColumns) expect(known(c), `${rt.type}.${c}`).toBe(true);
      for (const p of rt.promptFields) {
        expect(known(p), `${rt.type}.${p}`).toBe(true);
        const a = findAttribute(rt, p);
        const r = findRelationship(rt, p);
        expect(a?.readOnly || r?.readOnly, `${rt.type}.${p} is writable`).toBeFalsy();
      }
      if (!rt.operations.includes('create')) expect(rt.promptFields, rt.type).toEqual([]);
    }
    expect(must('prospects').promptFields).toEqual(['firstName', 'lastName', 'title', 'emails']);
    expect(must('accounts').promptFields).toEqual(['name', 'domain']);
    expect(must('sequences').promptFields).toEqual(['name', 'sequenceType']);
  });

  it('never marks an attribute both RO and WO, and keeps max lengths and formats on strings, enums on strings and integers', () => {
    for (const rt of RESOURCES) {
      for (const a of rt.attributes) {
        expect(a.readOnly && a.writeOnly, `${rt.type}.${a.name}`).toBeFalsy();
        if (a.maxLength !== undefined) expect(a.type, `${rt.type}.${a.name}`).toBe('string');
        if (a.format === 'https-url') expect(a.type, `${rt.type}.${a.name}`).toBe('string');
        // An enum's values are of the attribute's own type: 1 and 2, not "1" and "2", for an integer.
        if (a.enum)
          expect(
            [a.type, a.enum.every(a.type === 'integer' ? Number.isInteger : (v) => typeof v === 'string')],
            `${rt.type}.${a.name}`,
          ).toEqual([expect.stringMatching(/^(string|integer)$/), true]);
      }
    }
    expect(findAttribute(must('webhooks'), 'payloadVersion')?.enum).toEqual([1, 2]);
  });

  it('carries the spec flags and enums spot-checked', () => {
    const p = must('prospects');
    expect(findAttribute(p, 'contactHistogram')).toMatchObject({ readOnly: true, onlyOnRequest: true });
    expect(findAttribute(p, 'emails')).toMatchObject({ type: 'string[]', filterable: true });
    expect(findAttribute(p, 'emailsOptStatus')?.enum).toEqual(['opted_in', 'opted_out']);
    expect(findAttribute(p, 'title')).toMatchObject({ maxLength: 255, filterable: true, sortable: true });
    expect(findRelationship(p, 'account')).toMatchObject({ kind: 'one', data: true, links: true });
    expect(findRelationship(must('accounts'), 'prospects')?.readOnly).toBe(true);
    const mb = must('mailboxes');
    expect(findAttribute(mb, 'password')).toMatchObject({ writeOnly: true, maxLength: 65535 });
    expect(findAttribute(mb, 'sendMethod')?.enum).toBeUndefined();
    expect(findAttribute(mb, 'syncMethod')?.enum).toBeUndefined();
    expect(findAttribute(must('calls'), 'outcome')?.enum).toBeUndefined();
    expect(findAttribute(must('calls'), 'direction')?.enum).toEqual(['inbound', 'outbound']);
    expect(findAttribute(must('rulesets'), 'permitDuplicateProspects')?.enum).toEqual(['allow', 'disallow', 'only_if_inactive']);
    expect(findAttribute(must('sequence-states'), 'state')).toMatchObject({ readOnly: true });
    expect(findAttribute(must('sequence-states'), 'state')?.enum).toHaveLength(8);
    expect(findAttribute(must('mailings'), 'state')?.enum).toHaveLength(10);
    expect(findAttribute(must('recipients'), 'recipientType')?.enum).toEqual(['bcc', 'cc', 'to']);
    expect(must('audit-logs').extraFilters).toEqual(['agentEmail', 'agentIpAddress']);
  });

  it('marks what the spec does not show as inferred, and partial types as partial', () => {
    for (const t of [
      'user',
      'team',
      'stage',
      'persona',
      'opportunityStage',
      'phoneNumber',
      'product',
      'purchase',
      'profile',
      'orgSetting',
      'taskPriority',
      'taskPurpose',
      'taskDisposition',
      'batch',
      'batchItem',
      'import',
      'voiceRecording',
      'voiceImport',
      'accountNote',
      'prospectNote',
      'auditLog',
      'opportunityProspectRole',
      'task',
      'template',
      'snippet',
      'sequence',
      'opportunity',
      'account',
      'prospect',
      'webhook',
    ]) {
      const rt = resourceByType(t)!;
      expect(rt.partial, t).toBe(true);
    }
    for (const t of ['user', 'team', 'stage', 'persona', 'product', 'purchase', 'batch', 'voiceImport']) {
      const rt = resourceByType(t)!;
      expect(
        rt.attributes.every((a) => a.inferred),
        t,
      ).toBe(true);
      expect(
        rt.relationships.every((r) => r.inferred),
        t,
      ).toBe(true);
    }
  });
});

describe('registry: meta', () => {
  it('flags dataConnections and canDeleteOnly exactly as the spec lists', () => {
    const dc = RESOURCES.filter((r) => r.dataConnections).map((r) => r.type);
    expect(sorted(dc)).toEqual(
      sorted([
        'account',
        'call',
        'event',
        'mailing',
        'opportunity',
        'opportunityStage',
        'product',
        'prospect',
        'purchase',
        'stage',
        'task',
        'user',
      ]),
    );
    const cdo = RESOURCES.filter((r) => r.authorizationMeta === 'canDeleteOnly').map((r) => r.type);
    expect(sorted(cdo)).toEqual(sorted(['contentCategoryMembership', 'contentCategoryOwnership', 'favorite', 'sequenceState', 'call']));
  });

  it('gives webhook actions from the Events table', () => {
    const withActions = RESOURCES.filter((r) => r.webhookActions).map((r) => r.type);
    expect(sorted(withActions)).toEqual(sorted(Object.keys(WEBHOOK_RESOURCE_ACTIONS).filter((k) => k !== '*')));
    for (const t of withActions) {
      expect(resourceByType(t)!.webhookActions).toEqual(WEBHOOK_RESOURCE_ACTIONS[t]);
    }
    expect(WEBHOOK_RESOURCE_ACTIONS['*']).toEqual(['*', 'created', 'updated', 'destroyed']);
    expect(WEBHOOK_RESOURCE_ACTIONS.mailing).toContain('replied');
    expect(WEBHOOK_RESOURCE_ACTIONS.sequenceState).toContain('advanced');
    const hook = must('webhooks');
    expect(findAttribute(hook, 'resource')?.enum).toContain('*');
    expect(findAttribute(hook, 'secret')?.writeOnly).toBeFalsy();
  });
});

describe('registry: hand-written fixtures from the spec agree with it', () => {
  const load = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as Record<string, any>;

  function checkResource(obj: Record<string, any>) {
    const rt = resourceByType(obj.type)!;
    expect(rt, obj.type).toBeDefined();
    expect(typeof obj.id).toBe('number');
    for (const name of Object.keys(obj.attributes ?? {})) {
      const a = findAttribute(rt, name);
      expect(a, `${obj.type}.${name}`).toBeDefined();
      expect(a?.writeOnly, `${obj.type}.${name} is returned`).toBeFalsy();
    }
    for (const [name, body] of Object.entries<any>(obj.relationships ?? {})) {
      const r = findRelationship(rt, name);
      expect(r, `${obj.type}.${name}`).toBeDefined();
      if (body.data === undefined) expect(r?.data, `${obj.type}.${name} is links-only`).toBe(false);
      const ids = body.data == null ? [] : Array.isArray(body.data) ? body.data : [body.data];
      expect(Array.isArray(body.data) || body.data == null ? true : r?.kind === 'one').toBe(true);
      for (const id of ids) expect(id.type, `${obj.type}.${name}`).toBe(r?.target);
    }
  }

  it('prospect.json', () => checkResource(load('prospect.json').data));

  it('collection.json', () => {
    const doc = load('collection.json');
    for (const r of doc.data) checkResource(r);
    for (const r of doc.included) checkResource(r);
    expect(Object.keys(doc.meta).sort()).toEqual(['count', 'count_truncated']);
  });

  it('error-422.json', () => {
    const [err] = load('error-422.json').errors;
    expect(err.id).toBe('validationError');
    const name = err.source.pointer.split('/').pop();
    expect(findAttribute(must('prospects'), name)).toBeDefined();
  });

  it('webhook-v2.json', () => {
    const doc = load('webhook-v2.json');
    checkResource(doc.data);
    const [resource, act] = doc.meta.eventName.split('.');
    expect(WEBHOOK_RESOURCE_ACTIONS[resource]).toContain(act);
    expect(doc.beforeUpdate).toMatchObject({ type: doc.data.type, id: doc.data.id });
    for (const k of Object.keys(doc.beforeUpdate).filter((k) => k !== 'type' && k !== 'id')) {
      expect(findAttribute(must(doc.data.type), k), k).toBeDefined();
    }
  });
});
