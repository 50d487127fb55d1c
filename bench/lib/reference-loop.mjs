#!/usr/bin/env node
/**
 * The reference of the format figures (bench/README.md § Every output format): the plain client a
 * user could write instead of svc — fetch a page of prospects with undici, `JSON.parse` it,
 * `JSON.stringify` each record as one line — for the first N prospects, paged by id as `svc … list`
 * pages past the offset cap. Its CPU time a record is measured in the same rounds as each format's
 * and the formats are given as ratios to it, a yardstick that does not move when svc gets faster.
 * Usage: `node reference-loop.mjs <base URL> <token> <records>`.
 */
import { Agent, request } from 'undici';

const [base, token, wanted] = process.argv.slice(2);
const limit = Number(wanted);
const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
const write = (s) => (process.stdout.write(s) ? undefined : new Promise((r) => process.stdout.once('drain', r)));
let written = 0;
let after = 0;
while (written < limit) {
  const size = Math.min(1000, limit - written);
  const url = `${base}/prospects?page[limit]=${size}&sort=id&filter[id]=${after + 1}..inf`;
  const res = await request(url, { dispatcher, headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.api+json' } });
  if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode} ${(await res.body.text()).slice(0, 200)}`);
  const { data } = JSON.parse(await res.body.text());
  if (data.length === 0) break;
  let chunk = '';
  for (const r of data) chunk += `${JSON.stringify(r)}\n`;
  await write(chunk);
  written += data.length;
  after = Number(data[data.length - 1].id);
}
await dispatcher.close();
