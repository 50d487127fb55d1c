/**
 * A write whose client goes away while the sandbox is still holding the request (its latency,
 * before the body is read) is recorded as broken off (status 0) and not carried out — and the
 * request's handling ends: before, the body read waited for events a closed request had already
 * sent, so the request stayed unanswered in the record for good (seen as a PATCH "sent twice" in
 * test/runs/undo-kill.test.ts when a kill cut one on its way).
 */
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sandboxWithEnv, type TestSandbox, until } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  ({ sb } = await sandboxWithEnv({ seed: 5, latencyMs: 150 }));
});
afterAll(() => sb?.close());

for (const body of ['whole', 'half']) {
  it(`a PATCH cut while the sandbox holds it (${body} body sent) is recorded as broken off and not done`, async () => {
    const id = [...sb.store.table('prospect').keys()][0]!;
    const title = sb.store.table('prospect').get(id)!.attributes['title'];
    const json = JSON.stringify({ data: { type: 'prospect', id, attributes: { title: 'Cut' } } });
    const sent = body === 'whole' ? json : json.slice(0, 20);
    const mark = sb.requests.length;
    const url = new URL(sb.baseUrl);
    await new Promise<void>((resolve, reject) => {
      const s = net.connect(Number(url.port), url.hostname, () => {
        s.write(
          `PATCH /api/v2/prospects/${id} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${sb.token}\r\n` +
            `Content-Type: application/vnd.api+json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${sent}`,
        );
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 30);
      });
      s.on('error', reject);
    });
    const rec = await until(() => {
      const r = sb.requests.slice(mark).find((x) => x.method === 'PATCH');
      return r && r.status !== undefined ? r : undefined;
    }, 2000);
    expect(rec!.status).toBe(0);
    expect(sb.store.table('prospect').get(id)!.attributes['title']).toBe(title);
  });
}
