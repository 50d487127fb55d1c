#!/usr/bin/env node
/**
 * The floor of the listing benchmark: the least a client can do to turn the recorded pages into
 * NDJSON — fetch each URL in turn with undici, parse the page, write each resource object as one
 * line (no flattening, no prefetch). `MODE=bytes` writes each body whole, decoded to text and not
 * parsed (transport only).
 * Usage: `node raw-loop.mjs <base origin> <urls.json> [token]`.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [origin, urlsFile, token = ''] = process.argv.slice(2);
const urls = JSON.parse(readFileSync(urlsFile, 'utf8'));
const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
const write = (s) => (process.stdout.write(s) ? undefined : new Promise((r) => process.stdout.once('drain', r)));
for (const path of urls) {
  const res = await request(origin + path, {
    dispatcher,
    headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.api+json' },
  });
  const text = await res.body.text();
  if (process.env.MODE === 'bytes') {
    await write(text);
    continue;
  }
  let chunk = '';
  for (const r of JSON.parse(text).data) {
    chunk += `${JSON.stringify(r)}\n`;
    if (chunk.length >= 65536) {
      await write(chunk);
      chunk = '';
    }
  }
  if (chunk) await write(chunk);
}
await dispatcher.close();
