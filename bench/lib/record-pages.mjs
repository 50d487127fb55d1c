/**
 * The pages of a sandbox's first `records` prospects as the API sends them (paged by id, 1,000 a
 * page), kept as their bytes: what the in-process ingest benchmarks feed the mirror.
 */
import { startSandboxProcess } from './sandbox-process.mjs';

/** @returns `{ pages: Buffer[], baseUrl }` (the sandbox is stopped again) */
export async function recordProspectPages(records, log = () => {}) {
  log(`starting a sandbox with ${records} prospects…`);
  const sandbox = await startSandboxProcess({ seed: records });
  try {
    const pages = [];
    let after = 0;
    let n = 0;
    while (n < records) {
      const url = `${sandbox.baseUrl}/prospects?page[limit]=${Math.min(1000, records - n)}&sort=id&filter[id]=${after + 1}..inf`;
      const res = await fetch(url, { headers: { authorization: `Bearer ${sandbox.token}`, accept: 'application/vnd.api+json' } });
      if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
      const text = await res.text();
      const { data } = JSON.parse(text);
      if (data.length === 0) break;
      pages.push(Buffer.from(text));
      n += data.length;
      after = Number(data[data.length - 1].id);
    }
    if (n !== records) throw new Error(`recorded ${n} of ${records} prospects`);
    return { pages, baseUrl: sandbox.baseUrl };
  } finally {
    await sandbox.close();
  }
}
