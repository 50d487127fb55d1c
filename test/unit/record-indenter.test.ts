/**
 * recordIndenter copies runs of members from the previous record's output: whatever the records
 * in turn, each must come out as indentJson(text, 1) writes it alone — records that share most
 * members, that differ in one value, in the last value only (a number that goes on), in the
 * number or order of members, with whitespace a server wrote, with escapes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indentJson, recordIndenter } from '../../src/listing/flat-text.js';
import { propertyRuns } from '../helpers/property-runs.js';

/** Records built from a small pool of members, so that neighbours share runs of them. */
const member = fc.tuple(
  fc.constantFrom('id', 'a', 'b', 'c', 'custom1', 'custom2', 'x"y', 'é', 'n'),
  fc.oneof(
    fc.constant('null'),
    fc.constantFrom(
      '1',
      '12',
      '123',
      '-0.5',
      '1e3',
      'true',
      'false',
      '"s"',
      '"s,"',
      '"\\":"',
      '"é"',
      '[]',
      '{}',
      '[1,[2,{}]]',
      '{"k":[null,"v"]}',
    ),
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  ),
);
const record = fc.tuple(fc.array(member, { maxLength: 12 }), fc.constantFrom('', ' ', '\n  ')).map(([members, space]) => {
  const seen = new Set<string>();
  const unique = members.filter(([k]) => !seen.has(k) && seen.add(k));
  return `{${space}${unique.map(([k, v]) => `${JSON.stringify(k)}${space}:${v}`).join(`,${space}`)}}`;
});
/** A run of records, each a copy of the one before with a few members changed, added or removed. */
const listing = fc.array(fc.tuple(record, fc.nat(3)), { minLength: 1, maxLength: 12 }).map((list) => {
  const out: string[] = [];
  for (const [r, keep] of list)
    out.push(keep === 0 || out.length === 0 ? r : out[out.length - 1]!.replace(/"12"/g, '"123"').replace(/:12\b/g, ':123'));
  return out;
});

describe('recordIndenter', () => {
  it('writes each record as indentJson(text, 1) does, whatever came before', () => {
    fc.assert(
      fc.property(listing, (texts) => {
        const indent = recordIndenter();
        for (const t of texts) expect(indent(t)).toBe(indentJson(t, 1));
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  it('copies runs but not a last number that goes on, nor a member of another name', () => {
    const indent = recordIndenter();
    const texts = [
      '{"id":1,"a":null,"b":null,"c":12}',
      '{"id":2,"a":null,"b":null,"c":123}',
      '{"id":2,"a":null,"b":null,"c":123,"d":[1]}',
      '{"id":2,"a":null,"bb":null,"c":123,"d":[1]}',
      '{"id":2,"a":null,"b":null}',
      '{}',
      '[1,2]',
      '{"id":2,"a":null,"b":null}',
    ];
    for (const t of texts) expect(indent(t)).toBe(indentJson(t, 1));
    expect(indent('{"id":2,"a":null,"b":null}')).toBe('{\n    "id": 2,\n    "a": null,\n    "b": null\n  }');
  });
});
