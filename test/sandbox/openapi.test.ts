/**
 * `GET /schema/openapi.json` must be "valid under a standard OpenAPI validator" (the sandbox's requirement):
 * swagger-parser checks it against the OpenAPI 3.0 schema and resolves every `$ref`.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/sandbox/index.js';
import { start, type Client } from '../helpers/sandbox.js';

let c: Client;
let served: any;
let servedText: string;
beforeAll(async () => {
  c = await start({ seed: 3 });
  const r = await c.get('/schema/openapi.json', null);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  served = r.body;
  servedText = r.text;
});
afterAll(() => c.sb.close());

describe('the served OpenAPI document', () => {
  it("is the document of this sandbox's base URL, byte for byte", async () => {
    // The text is made once per process for a stand-in base URL and each sandbox puts its own
    // in (src/sandbox/http/openapi.ts): a second sandbox, on another port, gets its own URLs.
    expect(servedText).toBe(JSON.stringify(openApiDocument(c.sb.baseUrl)));
    const other = await start({ seed: 3 });
    try {
      const r = await other.get('/schema/openapi.json', null);
      expect(other.sb.baseUrl).not.toBe(c.sb.baseUrl);
      expect(r.text).toBe(JSON.stringify(openApiDocument(other.sb.baseUrl)));
    } finally {
      await other.sb.close();
    }
  });

  it('passes SwaggerParser.validate()', async () => {
    // validate() dereferences in place: give it a copy.
    const api: any = await SwaggerParser.validate(structuredClone(served));
    expect(api.openapi).toBe('3.0.3');
    expect(api.servers).toEqual([{ url: c.sb.baseUrl }]);
    // Dereferenced: the prospect list's items are the prospect schema itself.
    const items = api.paths['/prospects'].get.responses['200'].content['application/vnd.api+json'].schema.properties.data.items;
    expect(items.properties.type.enum).toEqual(['prospect']);
  });

  it('is rejected by the same validator once broken (the check has teeth)', async () => {
    const broken = structuredClone(served);
    broken.paths['/prospects'].get.responses['200'].content['application/vnd.api+json'].schema.properties.data.type = 'list';
    await expect(SwaggerParser.validate(broken)).rejects.toThrow(/schema validation failed/i);
    const dangling = structuredClone(served);
    dangling.paths['/prospects'].get.responses['200'].content['application/vnd.api+json'].schema.properties.data.items = {
      $ref: '#/components/schemas/Nope',
    };
    await expect(SwaggerParser.validate(dangling)).rejects.toThrow(/Nope/);
  });
});
