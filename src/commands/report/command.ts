/**
 * `svc report sequences|sequence <id|name>|mailings|prospect <id>`: wiring only; each report's
 * handler (and the chart and HTML modules) load when it runs.
 */
import type { Command } from 'commander';
import { runCommand, type App } from '../../runtime/app.js';
import type { Context } from '../../runtime/context.js';
import type { ReportFlags } from './shared.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** The rates of the reports read from sequence counters. */
const COUNTER_RATES = `
Rates (null, shown "–", when the denominator is 0):
  open, click, reply, positive, opt-out = that count ÷ deliverCount
  bounce, failure                      = that count ÷ (scheduleCount + deliverCount)`;

/** `report mailings` counts the mailings themselves: every rate is over those delivered (its footer says so). */
const MAILING_RATES = `
Rates (null, shown "–", when none was delivered):
  open, click, reply, bounce = that count ÷ delivered`;

const OUTPUT_HELP = `

Output: the chart on a terminal (bars sized to its width; colour on a TTY; --ascii or NO_COLOR
for plain # bars; --ascii draws it in a pipe too); -o json|csv|ndjson give the numbers the chart
is drawn from (not with --ascii); --html FILE writes
a self-contained page (inline SVG, no network), --open opens it ($BROWSER when set).
Each report says on stderr how many requests it made; --verbose shows them.

Time zone: days, weeks and dates are the machine's (TZ) unless --tz names one (Asia/Tokyo, UTC);
the drawing and the page's footer name it.`;

const RATES_HELP = COUNTER_RATES + OUTPUT_HELP;

/** Options every report takes. */
function common(c: Command): Command {
  return c
    .option('--html <file>', 'write a self-contained HTML page (inline SVG charts) to FILE (.html; - for stdout)')
    .option('--open', 'open the HTML page in a browser ($BROWSER when set)')
    .option('--ascii', 'the chart in plain ASCII bars, also in a pipe (NO_COLOR: plain bars on a terminal)')
    .option('--tz <zone>', 'days in ZONE: an IANA name or UTC (default: local)')
    .option('--bom', 'with -o csv: start with a UTF-8 byte order mark, so Excel reads accents right');
}

/** Registers `svc report`. */
export function registerReport(program: Command, app: App): void {
  const report = program
    .command('report')
    .description("delivery statistics as charts: sequences, one sequence's funnel, mailings over time, a prospect");
  const run =
    (load: (ctx: Context, flags: ReportFlags) => Promise<void>) =>
    (...args: unknown[]) => {
      const c = args[args.length - 1] as Command;
      return runCommand(app, c, (ctx) => load(ctx, c.opts<ReportFlags>()));
    };

  common(
    report
      .command('sequences')
      .description('one row per sequence: delivered and open/click/reply/positive/bounce/opt-out rates, a bar for --by')
      .option('--filter <expr>', 'filter sequences (repeatable), as in list', collect)
      .option('--sort <keys>', 'sequence attributes (sent to the API), or rates: reply, -open, delivered… (sorted here)')
      .option('--limit <n>', 'at most N sequences')
      .option('--by <rate>', 'rate drawn as bars: reply (default), open, click, positive, bounce, optout, failure'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ svc report sequences --by open
  $ svc report sequences --sort -reply --limit 10 -o csv
Requests: 1 + ⌈e-mail steps ÷ 1,000⌉ (sequences, then their e-mail steps' counters).${RATES_HELP}`,
    )
    .action(run(async (ctx, flags) => (await import('./sequences.js')).sequencesReport(ctx, flags)));

  common(
    report.command('sequence <id|name>').description('the funnel of one sequence, step by step, with its templates side by side (A/B)'),
  )
    .addHelpText(
      'after',
      `
Each e-mail step: delivered → opened → clicked → replied; below it, its templates with their rates
and, when two have enough deliveries, whether their reply rates differ significantly
(two-sided two-proportion z-test, p < 0.05; needs ≥ 30 deliveries each). Call steps show their calls.
Above the steps: the enrolments by state (active, finished, paused, …).
Requests: at most 4 (the sequence, its steps with templates, their calls, its enrolments).${RATES_HELP}`,
    )
    .action((idOrName: string, _o: unknown, c: Command) =>
      runCommand(app, c, async (ctx) => (await import('./funnel.js')).funnelReport(ctx, idOrName, c.opts<ReportFlags>())),
    );

  common(
    report
      .command('mailings')
      .description('delivered, opened, clicked, replied, bounced per day, week, mailbox or sequence')
      .option('--filter <expr>', 'filter mailings (repeatable); deliveredAt=FROM..TO sets the range (default: the last 30 days)', collect)
      .option('--by <key>', 'day (default), week, mailbox or sequence'),
  )
    .addHelpText(
      'after',
      `
Mailings delivered in the range are grouped by delivery day, week (Monday), mailbox or sequence;
opened/clicked/replied/bounced count those mailings that have the timestamp (openedAt, …).
Days are local to --tz (else the machine's zone): dates in deliveredAt=FROM..TO are whole local
days, sent as the UTC instants they begin and end at; a date-time there is the API's (UTC).
Requests: ⌈mailings ÷ 1,000⌉ (sparse fields: timestamps and links only).${MAILING_RATES}${OUTPUT_HELP}`,
    )
    .action(run(async (ctx, flags) => (await import('./mailings.js')).mailingsReport(ctx, flags)));

  common(
    report.command('prospect <id>').description('a prospect: 12-month contact histogram (inbound vs outbound), counters, active sequences'),
  )
    .addHelpText(
      'after',
      `
Requests: 1 (the prospect with its histogram, counters and active sequence states included).${RATES_HELP}`,
    )
    .action((id: string, _o: unknown, c: Command) =>
      runCommand(app, c, async (ctx) => (await import('./prospect.js')).prospectReport(ctx, id, c.opts<ReportFlags>())),
    );
}
