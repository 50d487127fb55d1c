/**
 * `svc sandbox --from-profile NAME`: writes an org file copied from the profile's real org
 * (read-only, within a request budget, anonymised by default), for `svc --sandbox-data FILE …`.
 */
import fs from 'node:fs';
import { PLAN_FORMATS, printJsonResult, refuseOutput } from '../shared/output.js';
import path from 'node:path';
import { parseFilter, type Filter } from '../../api/filter.js';
import type { Context } from '../../runtime/context.js';
import { UsageError } from '../../errors.js';
import { writeOut } from '../../output/io.js';
import { findResource, resourceByType } from '../../registry/index.js';
import { Anonymiser } from '../../anonymise.js';
import { hasScope } from '../../sandbox/rules/scopes.js';
import { DEFAULT_SCOPES } from '../../auth/scopes.js';
import { writeDataFileSync } from '../../sandbox/data/persistence.js';
import { parseWholeNumber } from '../../runtime/option-parsers.js';
import type { SandboxFlags } from './flags.js';
import { orgHolder } from '../../local-sandbox/org-share.js';
import { rehearsalKeyFile, writeRehearsalKey } from '../../local-sandbox/rehearsal-key.js';
import { API_HOURLY_LIMIT, BudgetedClient, DEFAULT_BUDGET } from './copy-budget.js';
import { buildDataFile, COPIED_TYPES, estimateRequests, fetchOrg } from './copy-org.js';
import { progressFile, readProgress, type CopyParams, type CopyProgress } from './copy-progress.js';
import { grouped } from '../../grouped.js';

/** Prospects sampled by default. */
const DEFAULT_SAMPLE = 1_000;

/** `--filter type:expr` → filters by type. */
function parseFilters(list: string[]): Map<string, Filter[]> {
  const out = new Map<string, Filter[]>();
  for (const f of list) {
    const i = f.indexOf(':');
    const rt = i > 0 ? (resourceByType(f.slice(0, i)) ?? findResource(f.slice(0, i))) : undefined;
    if (!rt || !COPIED_TYPES.includes(rt.type)) {
      throw new UsageError(`--filter ${f}: expected TYPE:EXPR with TYPE one of ${COPIED_TYPES.join(', ')}`).hint(
        'for example --filter prospect:title=CEO',
      );
    }
    out.set(rt.type, [...(out.get(rt.type) ?? []), parseFilter(f.slice(i + 1))]);
  }
  return out;
}

const n = grouped;

/** The collections a full copy reads. */
function copiedCollections(): string[] {
  return COPIED_TYPES.map((t) => resourceByType(t)!.path);
}

/** The one command that gives profile `name` every read scope a full copy needs, keeping the scopes it has. */
function loginCommand(name: string, has: string[], missing: string[]): string {
  return `svc login --profile ${name} --scopes "${[...has, ...missing.map((c) => `${c}.read`)].join(' ')}"`;
}

/** Copies the org of profile `name` into the org file. */
export async function fromProfileHandler(ctx: Context, name: string, flags: SandboxFlags): Promise<void> {
  refuseOutput(ctx, 'svc sandbox --from-profile', PLAN_FORMATS);
  if (ctx.globals.sandbox) throw new UsageError('--from-profile copies a real org: drop --sandbox (and SVC_SANDBOX, SVC_SANDBOX_DATA)');
  const sample = flags.sample === undefined ? DEFAULT_SAMPLE : parseWholeNumber(flags.sample, '--sample', 1);
  const budget = flags.budget === undefined ? DEFAULT_BUDGET : parseWholeNumber(flags.budget, '--budget', 1);
  if (budget > API_HOURLY_LIMIT)
    throw new UsageError(`--budget ${budget}: the API allows ${n(API_HOURLY_LIMIT)} requests per user per hour; ask for at most that`);
  const filters = parseFilters(flags.filter ?? []);
  const anonymise = flags.anonymise !== false;
  if (!anonymise && flags.keepDomains)
    throw new UsageError('--keep-domains is about anonymised copies; --no-anonymise keeps everything already');
  const orgFile = path.resolve(flags.data ?? `svc-org-${name.replace(/[^\w.-]+/g, '_')}.json`);
  const holder = orgHolder(ctx.env, orgFile);
  // Its owner would write its own org over the copy when it exits.
  if (holder)
    throw new UsageError(
      `${orgFile}: served by another svc process (pid ${holder}); stop it first, or write the copy elsewhere with --data FILE`,
    );
  // The profile is chosen before the config is first read (it is read lazily), so that the
  // connection, its token refresh and its checks are those of any command run with --profile.
  ctx.globals.profile = name;
  const config = await ctx.config();
  if (!config.get(name))
    throw new UsageError(`--from-profile ${name}: no such profile`).hint(`log in first: svc login --profile ${name} --base-url URL`);
  const conn = await ctx.connection();
  const api = await ctx.api();
  // What the login was granted, when known (a token from SVC_TOKEN says nothing): a copy without
  // teams, rulesets, stages or personas rehearses without the rules that use them, so the scopes
  // a full copy needs are named before anything is sent, with the command that gets them.
  const granted = (config.get(name)?.tokenScopes ?? config.get(name)?.scopes)?.split(/\s+/).filter(Boolean);
  const grantedSet = new Set(granted ?? []);
  const lacking = granted && !ctx.env.SVC_TOKEN ? copiedCollections().filter((c) => !hasScope(grantedSet, c, 'read')) : [];
  if (lacking.length)
    ctx.warn(
      `profile "${name}" may not read ${lacking.join(', ')}: the copy would lack them and the rules that use them; for a full copy first run: ${loginCommand(name, granted ?? [], lacking)}`,
    );
  if (!anonymise)
    ctx.warn(
      '--no-anonymise: the copy holds the real names, e-mail addresses, phone numbers and texts of the org; keep it as safe as production data',
    );
  const params: CopyParams = {
    profile: name,
    baseUrl: conn.baseUrl,
    sample,
    filters: flags.filter ?? [],
    anonymise,
    keepDomains: flags.keepDomains === true,
  };
  const pfile = progressFile(orgFile);
  const earlier = readProgress(pfile, params);
  if (!earlier && fs.existsSync(pfile)) ctx.info(`${pfile}: an unfinished copy made with other options; starting over`);
  const progress: CopyProgress = earlier ?? { version: 1, params, requests: 0, steps: {} };
  const anonymiser = anonymise ? new Anonymiser({ key: progress.key, keepDomains: params.keepDomains }) : undefined;
  progress.key = anonymiser?.key;
  const client = new BudgetedClient(api, budget);
  ctx.info(
    `copying the org of profile "${name}" (${conn.baseUrl}) into ${orgFile}: ${n(sample)} prospects at most, ${anonymise ? 'anonymised' : 'NOT anonymised'}`,
  );
  const estimate = estimateRequests(sample);
  ctx.info(
    `request budget: ${n(budget)} (the API allows ${n(API_HOURLY_LIMIT)} per user per hour); about ${n(estimate)} needed; reads only`,
  );
  if (estimate > budget)
    ctx.warn(`the budget is below the ${n(estimate)} requests this copy needs: it will stop there, and the same command resumes it`);
  if (earlier) ctx.info(`resuming: ${Object.keys(earlier.steps).length} steps done by an earlier run (${n(earlier.requests)} requests)`);
  const unreadable: string[] = [];
  let result: Awaited<ReturnType<typeof fetchOrg>>;
  try {
    result = await fetchOrg({
      client,
      progress,
      progressFile: pfile,
      sample,
      filters,
      anonymiser,
      signal: ctx.signal,
      unreadable: (p) => unreadable.push(p),
      info: (l) => ctx.info(l),
    });
  } catch (err) {
    ctx.info(`${n(client.used)} requests used, ${n(client.left)} of the budget left; progress kept in ${pfile}: the same command resumes`);
    throw err;
  }
  const meta = {
    from: name,
    at: new Date(ctx.clock.now()).toISOString(),
    anonymised: anonymise,
    keepDomains: params.keepDomains,
    sample,
    // The fields filtered on, not the values: those are often real addresses.
    filters: [...filters].flatMap(([type, fs]) => fs.map((f) => `${type}:${f.path.join('.')}`)),
  };
  const { org } = result.root;
  const root = anonymiser
    ? { ...result.root, org: { ...org, name: anonymiser.orgName(org.name), shortName: anonymiser.orgName(org.shortName, true) } }
    : result.root;
  const data = buildDataFile(root, result.custom, result.tables, result.maxIds, meta);
  writeDataFileSync(orgFile, data);
  // Owner-only even when the file existed with wider permissions (the rename keeps the new mode).
  fs.chmodSync(orgFile, 0o600);
  // The key goes beside the copy, not in it: a rehearsal needs it to match input values to the
  // fakes, and a copy handed on goes without it.
  writeRehearsalKey(orgFile, progress.key, params.keepDomains);
  fs.rmSync(pfile, { force: true });
  if (anonymiser && anonymiser.dropped.size > 0) {
    const names = [...anonymiser.dropped].flatMap(([type, attrs]) => [...attrs].map((a) => `${type}.${a}`));
    ctx.info(
      `not copied: ${names.length} attribute${names.length === 1 ? '' : 's'} svc does not know (${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}); an anonymised copy keeps only fields known to hold no personal data`,
    );
  }
  const counts = Object.fromEntries([...result.tables].map(([t, recs]) => [t, recs.length]));
  const customFields = Object.values(result.custom).reduce((s, f) => s + Object.keys(f).length, 0);
  const summary = {
    file: orgFile,
    profile: name,
    anonymised: anonymise,
    customFields,
    counts,
    requests: client.used,
    requestsTotal: progress.requests,
    budget: client.budget,
    budgetLeft: client.left,
  };
  if (!(await printJsonResult(ctx, summary))) {
    const rows = [`custom fields  ${customFields}`, ...Object.entries(counts).map(([t, c]) => `${t.padEnd(14)} ${n(c)}`)];
    await writeOut(ctx.io.stdout, rows.join('\n') + '\n');
  }
  // One line for every type the login could not read (said before starting when the scopes were known).
  if (unreadable.some((c) => !lacking.includes(c)))
    ctx.warn(
      `not copied: ${unreadable.join(', ')} (the profile may not read them); rules that use them are not rehearsed; for a full copy: ${loginCommand(name, granted ?? DEFAULT_SCOPES.split(' '), unreadable)}`,
    );
  if (client.lowered)
    ctx.info(`the hourly limit had ${n(client.remaining ?? 0)} requests left: the budget was lowered to ${n(client.budget)}`);
  ctx.info(
    `requests: ${n(client.used)} used${earlier ? ` (${n(progress.requests)} with the earlier runs)` : ''}, ${n(client.left)} of the budget of ${n(client.budget)} left`,
  );
  const keyNote = progress.key ? ` and its key ${rehearsalKeyFile(orgFile)} (keep it with the copy; do not share it)` : '';
  ctx.info(`wrote ${orgFile}${keyNote} (owner-only); rehearse with: svc --sandbox-data ${orgFile} …`);
}
