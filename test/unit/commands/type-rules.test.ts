/** Per-type write rules come from the table, for the types that have one and no others. */
import { describe, expect, it } from 'vitest';
import { checkTypeRules } from '../../../src/commands/resource-commands/type-rules.js';
import { resourceByType } from '../../../src/registry/index.js';

describe('checkTypeRules', () => {
  it('webhook: resource and action must name an event the service offers', () => {
    const webhook = resourceByType('webhook')!;
    expect(checkTypeRules(webhook, { resource: 'user', action: 'destroyed' }, false)).toEqual([
      { field: 'action', reason: expect.stringContaining('do not offer action "destroyed"') },
    ]);
    expect(checkTypeRules(webhook, { resource: 'prospect', action: 'created' }, false)).toEqual([]);
    // An update that changes one side only is left to the service.
    expect(checkTypeRules(webhook, { action: 'destroyed' }, true)).toEqual([]);
  });
  it('types without a rule pass whatever the attributes', () => {
    expect(checkTypeRules(resourceByType('prospect')!, { resource: 'user', action: 'destroyed' }, false)).toEqual([]);
  });
});
