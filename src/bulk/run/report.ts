/**
 * The report of a bulk run (`--report FILE`, or `-` for stdout): NDJSON, one line per row in
 * the order rows finish, `{"row":12,"status":"created","id":345,"error":null}` plus details
 * where they help (`field` of an invalid row, `prospect` of an enrolment). Lines are written as
 * rows finish, so a report of an interrupted run is complete up to the interruption.
 */
import fs from 'node:fs';
import { describeErrno, LocalIoError, UsageError } from '../../errors.js';
import { writeOut } from '../../output/io.js';

/** Row statuses of the report (README.md, "Bulk runs and enroll"), `unknown` for a create whose outcome could not be confirmed. */
export type RowStatus = 'created' | 'updated' | 'deleted' | 'skipped' | 'failed' | 'unknown';

/** One report line. */
export interface ReportEntry {
  row: number;
  status: RowStatus;
  id: number | string | null;
  error: string | null;
  [extra: string]: unknown;
}

/** Where report lines go. */
export interface ReportWriter {
  write(entry: ReportEntry): Promise<void> | void;
  close(): void;
}

/** A report file, written synchronously line by line (it survives a kill like the journal). */
export function openReportFile(file: string): ReportWriter {
  let fd: number;
  try {
    // Owner-only: a report carries the rows' ids, and errors that quote their values.
    fd = fs.openSync(file, 'w', 0o600);
  } catch (err) {
    throw new UsageError(`--report ${file}: cannot write the report (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return {
    write(entry) {
      try {
        fs.writeSync(fd, JSON.stringify(entry) + '\n');
      } catch (err) {
        throw new LocalIoError(`--report ${file}: cannot write the report: ${describeErrno(err)}`).hint(
          'free some space (or choose another --report file) and run the same command again: the journal skips the rows already done',
        );
      }
    },
    close() {
      fs.closeSync(fd);
    },
  };
}

/** The report on stdout (`--report -`), honouring backpressure. */
export function stdoutReport(stdout: NodeJS.WritableStream): ReportWriter {
  return {
    write: (entry) => writeOut(stdout, JSON.stringify(entry) + '\n'),
    close() {},
  };
}

/** A report that goes nowhere (no `--report`): failures still reach stderr. */
export const NO_REPORT: ReportWriter = { write() {}, close() {} };
