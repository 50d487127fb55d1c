/**
 * `svc dedupe prospects|accounts`: reads the mirror (never the API), finds clusters of likely
 * duplicates (src/dedupe/cluster.ts) and prints one row per record of each cluster — the
 * cluster, its score, the reasons its records match, and whether the record would survive —
 * in any output format; `--plan FILE` also writes the merge plan (plan.ts).
 */
import { clusterAccounts, clusterProspects, DEFAULT_MIN_SCORE, type Cluster, type MatchBy } from '../../dedupe/cluster.js';
import { region as phoneRegion, REGIONS } from '../../dedupe/phone.js';
import { LocalIoError, UsageError } from '../../errors.js';
import type { FlatRecord } from '../../listing/record-text.js';
import { mirrorHeader, openReadMirror } from '../../mirror/reader.js';
import { notAFile, writeFileAtomicSync } from '../../private-file.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { recordWriter } from '../shared/output.js';
import { mirrorTarget } from '../sync/mirror-file.js';
import type { FindFlags } from './flags.js';
import { loadRows, mirrorCatalog, readAccounts, readProspects, type MirrorRecord } from './mirror-records.js';
import { buildPlan, KEEP_RULES, rankMembers, type KeepRule } from './plan.js';
import { grouped } from '../../grouped.js';

const BY: readonly MatchBy[] = ['email', 'phone', 'name'];

/** `--by email,phone,name`. */
function parseBy(v: string | undefined, type: 'prospect' | 'account'): MatchBy[] {
  if (v === undefined) return type === 'account' ? ['name'] : [...BY];
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.find((b) => !BY.includes(b as MatchBy));
  if (bad !== undefined || !list.length) throw new UsageError(`--by ${v}: expected a comma-separated list of email, phone, name`);
  if (type === 'account' && list.some((b) => b !== 'name'))
    throw new UsageError(`--by ${v}: accounts match by domain, and by name with --by name (the default)`);
  return list as MatchBy[];
}

/** `--min-score S`: 0 to 1. */
function parseScore(v: string | undefined): number {
  if (v === undefined) return DEFAULT_MIN_SCORE;
  const t = v.trim();
  if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(t))
    throw new UsageError(`--min-score ${v}: expected a number from 0 to 1 (default ${DEFAULT_MIN_SCORE})`);
  return Number(t);
}

function parseKeep(v: string | undefined): KeepRule {
  if (v === undefined) return 'most-activity';
  if (!KEEP_RULES.includes(v as KeepRule))
    throw new UsageError(`--keep ${v}: expected newest, oldest or most-complete (default: most activity, then oldest)`);
  return v as KeepRule;
}

/** Runs `svc dedupe prospects|accounts`. */
export async function findHandler(ctx: Context, type: 'prospect' | 'account', flags: FindFlags): Promise<void> {
  const by = parseBy(flags.by, type);
  const minScore = parseScore(flags.minScore);
  const keep = parseKeep(flags.keep);
  const home = phoneRegion(flags.region ?? 'US');
  if (!home) throw new UsageError(`--region ${flags.region}: expected one of ${Object.keys(REGIONS).join(', ')}`);
  if (flags.plan !== undefined && flags.plan.trim() === '') throw new UsageError('--plan: give a file name');
  const notFile = flags.plan !== undefined ? notAFile(flags.plan) : undefined;
  if (notFile)
    throw new UsageError(`--plan ${flags.plan}: is ${notFile}, not a file: the plan is written beside it and renamed into place`).hint(
      'give a file path, e.g. --plan merge.json',
    );
  const target = await mirrorTarget(ctx, { db: flags.db, schema: flags.schema });
  // A SQLite file or a PostgreSQL schema, read with the same statements (mirror-records.ts).
  const db = await openReadMirror(target);
  const where = db.where;
  try {
    const started = ctx.clock.now();
    const m = await mirrorCatalog(db);
    let read: Awaited<ReturnType<typeof readProspects>> | Awaited<ReturnType<typeof readAccounts>>;
    try {
      read = type === 'prospect' ? await readProspects(m) : await readAccounts(m);
    } catch (err) {
      throw new UsageError(`${where}: ${(err as Error).message}`).hint(`run \`${svcAgain(ctx)} sync ${type}s\` first`);
    }
    const clusters =
      type === 'prospect'
        ? clusterProspects(read.match as Parameters<typeof clusterProspects>[0], { by, minScore, region: home })
        : clusterAccounts(read.match, { by, minScore });
    await loadRows(
      m,
      `${type}s`,
      read.records,
      clusters.flatMap((c) => c.ids),
    );
    const dups = clusters.reduce((n, c) => n + c.ids.length - 1, 0);
    ctx.info(
      `${grouped(clusters.length)} cluster(s), ${grouped(dups)} likely duplicate(s) among ${grouped(read.records.size)} ${type}s of the mirror (${((ctx.clock.now() - started) / 1000).toFixed(1)} s)`,
    );
    if (flags.plan !== undefined) {
      const { baseUrl, orgId, orgName } = await mirrorHeader(db);
      const org = { baseUrl, id: orgId, name: orgName };
      const plan = await buildPlan(m, type, clusters, read.records, { keep, mirror: where, org, now: ctx.clock.now(), region: home });
      try {
        // Owner-only: the plan holds names and addresses.
        writeFileAtomicSync(flags.plan, JSON.stringify(plan, null, 2) + '\n');
      } catch (err) {
        throw new LocalIoError(`cannot write ${flags.plan}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      }
      ctx.info(`merge plan written to ${flags.plan}: check it, then \`${svcAgain(ctx)} dedupe apply ${flags.plan} --plan\` to preview`);
    }
    await printClusters(ctx, clusters, read.records, keep, type);
  } finally {
    await db.close();
  }
}

/** One row per record of each cluster, the survivor first. */
async function printClusters(
  ctx: Context,
  clusters: Cluster[],
  records: Map<number, MirrorRecord>,
  keep: KeepRule,
  type: 'prospect' | 'account',
): Promise<void> {
  const columns = ['cluster', 'score', 'id', 'survivor', 'record', 'reasons'];
  // -o raw alone prints the clusters as -o json does; with --query its result, one element a line.
  const format = ctx.output === 'raw' && !ctx.shape?.query ? 'json' : ctx.output;
  const writer = recordWriter(ctx, { format, io: ctx.io, columns });
  let page: FlatRecord[] = [];
  for (let i = 0; i < clusters.length; i++) {
    const c = clusters[i]!;
    const { ranked } = rankMembers(
      c.ids.map((id) => records.get(id)!),
      keep,
      type,
    );
    for (const r of ranked)
      page.push({
        cluster: i + 1,
        score: c.score,
        id: r.id,
        survivor: r === ranked[0],
        record: r.label,
        reasons: c.reasons.filter((why) => why.startsWith(`${r.id} ~`) || why.includes(` ~ ${r.id}:`)).join('; '),
      } as unknown as FlatRecord);
    if (page.length >= 1000) {
      await writer.page({}, page);
      page = [];
    }
  }
  if (page.length) await writer.page({}, page);
  await writer.end();
}
