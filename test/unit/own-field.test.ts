import { describe, expect, it } from 'vitest';
import { recordToWriteData } from '../../src/api/write-body.js';
import { csvRecord } from '../../src/bulk/rows/resource-rows.js';
import { attributesFromFlags } from '../../src/commands/resource-commands/attr-flags.js';
import { recordText, flatten } from '../../src/listing/record-text.js';
import { pick } from '../../src/output/render.js';
import { resourceByType } from '../../src/registry/index.js';
import { deliveryRecord, parseDelivery } from '../../src/webhooks/delivery.js';

const prospect = resourceByType('prospect')!;
/** An object whose own `__proto__` is data (what JSON.parse builds). */
const hostile = () => JSON.parse('{"firstName":"Eve","__proto__":{"polluted":"yes"}}') as Record<string, unknown>;
const own = (o: object) => Object.getOwnPropertyDescriptor(o, '__proto__')?.value as unknown;

describe('a field named __proto__ stays a field', () => {
  it('in flat records (and their JSON, both paths)', () => {
    const r = flatten({ type: 'prospect', id: 1, attributes: hostile() });
    expect(own(r)).toEqual({ polluted: 'yes' });
    expect(Object.getPrototypeOf(r)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(r))).toEqual(JSON.parse(recordText({ type: 'prospect', id: 1, attributes: hostile() })));
    expect(JSON.stringify(r)).toContain('"__proto__":{"polluted":"yes"}');
    expect(pick(r, 'polluted')).toBeUndefined();
    expect(pick(r, 'constructor')).toBeUndefined();
    expect(pick(r, '__proto__')).toEqual({ polluted: 'yes' });
  });

  it('in write bodies from records, CSV rows and --attr flags', () => {
    const body = recordToWriteData(prospect, hostile()).data;
    expect(own(body.attributes)).toEqual({ polluted: 'yes' });
    expect(JSON.stringify(body.attributes)).toContain('"__proto__"');
    const row = csvRecord(prospect, JSON.parse('{"firstName":"Eve","__proto__":"x"}') as Record<string, string>);
    expect(Object.keys(row.record)).toContain('__proto__');
    const flags = attributesFromFlags(prospect, ['__proto__:={"a":1}', 'firstName=Eve']);
    expect(own(flags)).toEqual({ a: 1 });
  });

  it('in webhook delivery records', () => {
    const d = parseDelivery(
      '{"data":{"type":"prospect","id":1,"attributes":{"__proto__":{"polluted":"yes"}}},"meta":{"eventName":"prospect.updated"}}',
    )!;
    const rec = deliveryRecord(d);
    expect(own(rec.attributes as object)).toEqual({ polluted: 'yes' });
  });
});
