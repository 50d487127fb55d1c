/**
 * `svc <type> export <file>`: every record (or those `--filter` picks) in id order, written to
 * `<file>.part` page by page and renamed to `<file>` at the end. `--resume` continues a part
 * file from the record after the last whole one (see output/export-file.ts), so a run killed
 * at any moment and resumed holds every id exactly once.
 *
 * The listing pages by id (`listPages` in keyset mode: `sort=id`, `filter[id]=<after last>..`,
 * ids as digit strings): no ceiling, and a resume starts after the id the file ends with. Records
 * are written by the format's own writer (output/render.ts), the fast path of `list`, into the
 * part file. Requests: ⌈records / page size⌉, plus one when the last page is exactly full and the
 * server still links a next page.
 */
import fs from 'node:fs';
import { MAX_PAGE_SIZE } from '../../api/paginate.js';
import { listPages } from '../../listing/pages.js';
import { parseWholeNumber } from '../../runtime/option-parsers.js';
import { Progress } from '../../bulk/run/progress.js';
import { svcAgain } from '../../runtime/svc-again.js';
import type { Context } from '../../runtime/context.js';
import { InterruptedError, SvcError, UsageError } from '../../errors.js';
import { csvLine } from '../../output/csv.js';
import { PartFile, resumePoint, type ExportFormat } from '../../output/export-file.js';
import { indexIncluded, type FlatRecord } from '../../listing/record-text.js';
import { createRecordWriter } from '../../output/render.js';
import { kebab, type ResourceType } from '../../registry/index.js';
import { exportColumns, withIdFirst } from './export-columns.js';
import { checkQueryNames } from './field-names.js';
import { maskSensitive } from './mask.js';
import { buildListQuery, columnsAsGiven, machineDays, parseColumns, type QueryFlags } from './query-options.js';
import { orgTypeView } from '../../org-schema/org-schema.js';
import { describeOwner, parseOwner, sameOwner, type SideOwner } from '../../bulk/run/side-owner.js';
import { isSymlinkRefusal, noFollow, writeFileAtomicSync } from '../../private-file.js';
import { runOwner } from '../shared/org-owner.js';
import { tipOnce } from '../shared/tip-once.js';
import { grouped } from '../../grouped.js';

/** Options of `export`. */
interface ExportFlags extends Pick<QueryFlags, 'filter' | 'newFilterSyntax'> {
  format?: string;
  resume?: boolean;
  /** `--bom` / `--no-bom`; undefined: a BOM for CSV files named `*.csv`. */
  bom?: boolean;
  columns?: string;
  allColumns?: boolean;
  pageSize?: string;
}

/**
 * The format: `--format`, else from the name (`.ndjson`, `.jsonl`; `.csv` or no extension: CSV).
 * Another extension (`.xlsx`, `.json`) is refused: CSV written under it would open as garbage or
 * not at all.
 */
function exportFormat(file: string, given: string | undefined): ExportFormat {
  if (given !== undefined) {
    if (given !== 'csv' && given !== 'ndjson') throw new UsageError(`--format ${given}: expected csv or ndjson`);
    return given;
  }
  if (/\.(ndjson|jsonl)$/i.test(file)) return 'ndjson';
  const ext = /\.([^./\\]+)$/.exec(file)?.[1];
  if (ext === undefined || ext.toLowerCase() === 'csv') return 'csv';
  throw new UsageError(`export ${file}: export writes CSV (.csv) or NDJSON (.ndjson, .jsonl), not .${ext}`).hint(
    `name the file .csv (Excel opens it) or .ndjson, or give --format csv|ndjson to write that format under this name`,
  );
}

/**
 * An existing target that is not a plain file is refused: the export is renamed into place, which
 * replaced a device, a FIFO or a symbolic link with a file (as root, /dev/full was), and a pipe
 * of the shell's (`>(gzip …)`) failed with ENOENT on its `.part`.
 */
function refuseSpecialTarget(rt: ResourceType, file: string): void {
  const stream = `svc ${rt.command} list --all -o csv (or -o ndjson)`;
  // `-` is stdout to a Unix user: it wrote a file named `-`.
  if (file === '-')
    throw new UsageError('export writes a file (renamed when complete; --resume continues it), not stdout').hint(`for stdout: ${stream}`);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return;
  }
  if (st.isFile()) return;
  const what = st.isDirectory()
    ? 'a directory'
    : st.isSymbolicLink()
      ? 'a symbolic link'
      : st.isFIFO()
        ? 'a pipe (FIFO)'
        : st.isSocket()
          ? 'a socket'
          : 'a device';
  throw new UsageError(`export ${file}: is ${what}, not a file: an export is written beside it and renamed into place`).hint(
    st.isSymbolicLink() ? 'give the path the link points to' : `give a file path; for a pipe or stdout: ${stream}`,
  );
}

export async function exportHandler(ctx: Context, rt: ResourceType, file: string, flags: ExportFlags): Promise<void> {
  refuseSpecialTarget(rt, file);
  if (ctx.globals.dryRun) ctx.warn('--dry-run prints the requests of writes and get; an export reads the org and writes its file as usual');
  const format = exportFormat(file, flags.format);
  const pageSize = flags.pageSize !== undefined ? parseWholeNumber(flags.pageSize, '--page-size', 1) : MAX_PAGE_SIZE;
  if (pageSize > MAX_PAGE_SIZE) throw new UsageError(`--page-size: at most ${MAX_PAGE_SIZE}`);
  if (flags.columns !== undefined && flags.allColumns) throw new UsageError('--columns and --all-columns cannot be used together');
  if (format === 'ndjson' && (flags.columns !== undefined || flags.allColumns || flags.bom)) {
    throw new UsageError('--columns, --all-columns and --bom are for CSV exports (NDJSON lines hold whole records)');
  }
  const part = `${file}.part`;
  if (flags.resume && !fs.existsSync(part) && fs.existsSync(file)) {
    ctx.info(`${file} is complete (no ${part} to resume): nothing to do`);
    return;
  }
  const schema = await (await ctx.orgSchema()).cached();
  const names = schema ? orgTypeView(schema, rt) : undefined;
  const query = buildListQuery(
    rt,
    { filter: flags.filter, newFilterSyntax: flags.newFilterSyntax },
    (m) => ctx.warn(m),
    machineDays(ctx),
    names,
  );
  // As list's: a filter on a field the type does not have is refused before the export starts.
  checkQueryNames(rt, query, { view: () => names, pulled: schema !== undefined, svc: svcAgain(ctx) });
  // A rehearsal on an anonymised copy: values filtered on are matched as its fakes.
  if (ctx.globals.sandboxData !== undefined) await (await import('../shared/rehearsal.js')).maskQueryFilters(ctx, rt.type, query);
  let columns: string[] | undefined;
  let headerNames: string[] | undefined;
  const given = format === 'csv' ? parseColumns(rt, flags.columns, names) : undefined;
  /** A resumed part of the columns an export wrote before `type` was one (continued so). */
  let untypedPart = false;
  if (format === 'csv') {
    if (given) {
      columns = withIdFirst(given);
      // Headed as given (a label heads its column), `id` first as the columns are (every other
      // `id` given left out, as withIdFirst leaves it out).
      const typed = columnsAsGiven(flags.columns)!;
      const at = given.indexOf('id');
      headerNames = [at < 0 ? 'id' : typed[at]!, ...typed.filter((_, i) => given[i] !== 'id')];
    } else {
      const c = exportColumns(rt, schema, flags.allColumns === true);
      columns = c.columns;
      if (c.unused) ctx.info(`leaving out ${c.unused} custom field(s) your org has not labelled (--all-columns keeps them)`);
      else if (!schema && rt.customFields && !flags.allColumns)
        await tipOnce(
          ctx,
          'export-schema-pull',
          `tip: after \`${svcAgain(ctx)} schema pull\`, exports leave out the custom fields your org does not use`,
        );
    }
  }
  const bom = format === 'csv' && (flags.bom ?? /\.csv$/i.test(file));
  // What the part file holds: a resume with another type, format or filter would mix records.
  const what: ExportIdentity = { type: rt.type, format, filter: flags.filter ?? [], newFilterSyntax: flags.newFilterSyntax === true };
  /** The id the part file ends with (digits): the export continues after it. */
  let after: string | undefined;
  let written = 0;
  let keep = 0;
  let header = false;
  /** Whose the export is: the org it reads from, recorded beside the part file. */
  let owner: SideOwner | undefined;
  if (fs.existsSync(part)) {
    if (!flags.resume) {
      throw new UsageError(`${part} exists: an earlier export of ${file} was stopped`).hint(
        'add --resume to continue it, or delete the .part file to start again',
      );
    }
    const before = checkSameExport(part, what);
    const point = await resumePoint(part, format);
    if (point.unreadable)
      throw new UsageError(`${part} is not an NDJSON export (${point.unreadable} line(s) without an id)`).hint(
        'resume with the --format of the first run, or delete the .part file',
      );
    // A part headed by field names (an export begun by an earlier svc, before labels headed their
    // columns) is continued as it is headed.
    const heads = () => [csvLine(headerNames ?? columns!), csvLine(columns!)].map((l) => l.slice(0, -1));
    // A part begun by an svc whose exports left out `type` (list -o csv always wrote it) is
    // continued without it: one layout from its first record to its last.
    const untyped = columns?.filter((c) => c !== 'type');
    if (format === 'csv' && !given && point.header !== undefined && point.header === csvLine(untyped!).slice(0, -1)) {
      columns = untyped;
      untypedPart = true;
    }
    if (format === 'csv' && point.header !== undefined && !heads().includes(point.header)) {
      throw new UsageError(`${part} has other columns than this export would write`).hint(
        'resume with the options of the first run (--columns, --all-columns), or delete the .part file',
      );
    }
    // Records of another org continued with this one's would make one file of two orgs.
    owner = await runOwner(ctx, ownerCommand(rt));
    checkSameOwner(part, before, owner);
    keep = point.offset;
    header = point.header !== undefined;
    written = point.records;
    if (point.lastId !== undefined) {
      if (!/^\d+$/.test(point.lastId))
        throw new UsageError(
          `${part}: its last record's id ${JSON.stringify(point.lastId)} is not a number; delete the .part file to start again`,
        );
      after = point.lastId;
    }
    ctx.info(
      `resuming ${part}: ${grouped(written)} record(s) already written${point.lastId !== undefined ? `, continuing after id ${point.lastId}` : ''}${untypedPart ? '; begun by an earlier svc without the type column, finished without it' : ''}`,
    );
  }

  const api = await ctx.api();
  owner ??= await runOwner(ctx, ownerCommand(rt));
  let out: PartFile;
  try {
    out = await PartFile.open(part, keep);
    // Written whole under a new name, then renamed: a symlink planted at the name is replaced, not followed.
    writeFileAtomicSync(metaPath(part), JSON.stringify({ ...what, owner }) + '\n');
  } catch (err) {
    if (isSymlinkRefusal(err))
      throw new UsageError(`${part}: is a symbolic link; svc writes an export's part file itself, never through a link`).hint(
        `remove ${part} and run the export again`,
      );
    throw err;
  }
  const progress = new Progress({
    stderr: ctx.io.stderr,
    tty: ctx.io.stderrIsTTY && !ctx.globals.verbose,
    label: `${rt.command} export`,
    columns: ctx.io.columns,
    now: () => ctx.clock.now(),
  });
  const masked = rt.attributes.some((a) => a.sensitive);
  try {
    if (keep === 0 && bom) await out.write('\ufeff');
    if (columns && !header) await out.write(csvLine(headerNames ?? columns));
    progress.advance(written, false);
    progress.start();
    const sink = out.sink();
    // The format's own writer (output/render.ts), into the part file; the header is written above.
    const writer = createRecordWriter({ format, io: { ...ctx.io, stdout: sink, stdoutIsTTY: false }, columns, headerWritten: true });
    const prepare = masked ? (r: FlatRecord) => maskSensitive([r])[0]! : undefined;
    const q = { ...query, count: true };
    let counted = false;
    for await (const page of listPages(api, rt.path, {
      query: q,
      all: true,
      pageSize,
      keyset: { after },
      warn: (m) => ctx.warn(m),
      signal: ctx.signal,
    })) {
      if (!counted) {
        counted = true;
        const c = page.doc.meta?.count;
        if (typeof c === 'number') progress.setTotal(written + c);
      }
      await writer.resources({ doc: page.doc, resources: page.records, included: indexIncluded(page.doc), prepare });
      sink.check();
      // A page is on its way to the file before the next is asked for: a kill loses at most the page on the wire.
      written += page.records.length;
      progress.advance(page.records.length);
    }
    await writer.end();
    await sink.done();
    progress.stop();
    await out.finish(file);
    fs.rmSync(metaPath(part), { force: true });
  } catch (err) {
    progress.stop();
    await out.close();
    if (ctx.signal.aborted) {
      throw new InterruptedError(`export interrupted after ${grouped(written)} record(s)`).hint(
        `continue with the same command and --resume (${part} is kept)`,
      );
    }
    if (err instanceof SvcError) err.hint(`${part} is kept: add --resume to continue`);
    throw err;
  }
  ctx.info(
    `exported ${grouped(written)} ${written === 1 ? kebab(rt.type) : rt.command} to ${file}${bom ? ' (UTF-8 with BOM, for Excel)' : ''}`,
  );
}

/** What an export was asked for, kept beside its part file while it runs. */
interface ExportIdentity {
  type: string;
  format: ExportFormat;
  filter: string[];
  newFilterSyntax: boolean;
}

const metaPath = (part: string) => `${part}.json`;

/** The command an export's part belongs to (with the org, see bulk/run/side-owner.ts). */
const ownerCommand = (rt: ResourceType) => `${rt.command} export`;

/**
 * Refuses to resume a part file written for another type, format or filter; returns what the
 * first run recorded (undefined when its record was removed: the checks of the file itself remain).
 */
function checkSameExport(part: string, what: ExportIdentity): (ExportIdentity & { owner?: unknown }) | undefined {
  let before: ExportIdentity & { owner?: unknown };
  try {
    const fd = fs.openSync(metaPath(part), noFollow('r'));
    try {
      before = JSON.parse(fs.readFileSync(fd, 'utf8')) as ExportIdentity & { owner?: unknown };
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const { owner: _owner, ...options } = before;
  if (JSON.stringify(options) === JSON.stringify(what)) return before;
  const filters = (w: ExportIdentity) => (w.filter.length ? w.filter.map((f) => `--filter ${f}`).join(' ') : 'no filter');
  throw new UsageError(`${part} was written by another export (${before.type}, ${before.format}, ${filters(before)})`).hint(
    'resume with the options of the first run, or delete the .part file (and its .json) to start again',
  );
}

/**
 * Refuses to resume a part file read from another org (or as another user): only a part whose
 * record names this org is continued.
 */
function checkSameOwner(part: string, before: { owner?: unknown } | undefined, owner: SideOwner): void {
  const theirs = parseOwner(before?.owner);
  if (theirs && sameOwner(theirs, owner)) return;
  const fix = `export to another file, or delete ${part} (and ${metaPath(part)}) to start again from this org`;
  if (!theirs)
    throw new UsageError(
      `${part}: no record of the org it was exported from (${metaPath(part)} is missing or older); it is not continued`,
    ).hint(fix);
  throw new UsageError(`${part} was exported by ${describeOwner(theirs)}; this export is ${describeOwner(owner)}`).hint(fix);
}
