/**
 * The one-line view of an event for people (`events tail` on a terminal, or `-o table`):
 * `11:18:07  12s ago  prospect_updated  prospect 42  user 1  #812`. Relative times only on a
 * terminal: a file keeps the absolute time alone, which stays true after it is written.
 *
 * On a terminal the times are the machine's clock (`TZ`; the tail names the zone once on
 * stderr), and each event is one line no wider than it (a wrapped line split the event's id,
 * a trial on 80 columns): what tells least gives way first. The relative age goes (the time
 * says it) if the first batch needs its room, then for every line, so that the names stay in one column; then the
 * related ids past the first (the user), the name's padding as far as need be, the first
 * related id (the prospect), and last the record's type (the name says it) and the name, cut
 * with `…`. The time, the record's id and the event's `#id` stay whole. Off a terminal every
 * line is whole, as it always was.
 */
import type { ResourceObject } from '../../api/jsonapi.js';
import { relativeTime } from '../../output/relative-time.js';
import { fitText, terminalSafe, textWidth } from '../../output/terminal-text.js';
import type { Zone } from '../../time-zone.js';

/** The columns the name is padded to, so that most records line up after it. */
const NAME_COLUMN = 22;

function relId(r: ResourceObject, name: string): string | undefined {
  const rel = r.relationships?.[name];
  const data = rel && 'data' in rel ? rel.data : undefined;
  return data && !Array.isArray(data) ? String(data.id) : undefined;
}

/** An event's parts, most telling first within each kind. */
interface EventParts {
  when: string;
  age?: string;
  name: string;
  record?: { type: string; id: string };
  /** Related ids past the record, in the order shown (`prospect 7`, `user 1`). */
  related: string[];
  id: string;
}

/** What a line is drawn with: the moment ages count to, whether they are shown, the zone of the clock times. */
interface ViewOptions {
  now: number;
  relative: boolean;
  /** The zone the times are shown in (a terminal's: people read their own clock); UTC without. */
  zone?: Zone | undefined;
}

/** `YYYY-MM-DDThh:mm:ss` of an instant on the zone's clock (UTC without one). */
function clockTime(t: number, zone: Zone | undefined): string {
  return new Date(t + (zone ? zone.offset(t) : 0)).toISOString().slice(0, 19);
}

function eventParts(r: ResourceObject, t: number, opts: ViewOptions): EventParts {
  const attrs = r.attributes ?? {};
  const p = (typeof attrs['payload'] === 'object' && attrs['payload'] !== null ? attrs['payload'] : {}) as Record<string, unknown>;
  const iso = clockTime(t, opts.zone);
  // Today's events by their time alone; older ones with the date (both on the zone's calendar).
  const when =
    clockTime(opts.now, opts.zone).slice(0, 10) === iso.slice(0, 10) ? iso.slice(11, 19) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  const related: string[] = [];
  const prospect = relId(r, 'prospect');
  if (prospect !== undefined && p['type'] !== 'prospect') related.push(`prospect ${prospect}`);
  const user = relId(r, 'user');
  if (user !== undefined) related.push(`user ${user}`);
  return {
    when,
    ...(opts.relative ? { age: relativeTime(t, opts.now).padEnd(7) } : {}),
    name: String(attrs['name'] ?? '(no name)'),
    ...(p['type'] !== undefined ? { record: { type: String(p['type']), id: String(p['id'] ?? '?') } } : {}),
    related,
    id: `#${String(r.id)}`,
  };
}

/** The line with the name padded to `pad` columns (its own width at least). */
function composed(e: EventParts, pad: number): string {
  const name = terminalSafe(e.name);
  const parts = [e.when];
  if (e.age !== undefined) parts.push(e.age);
  parts.push(name + ' '.repeat(Math.max(0, pad - textWidth(name))));
  if (e.record) parts.push(`${e.record.type} ${e.record.id}`);
  parts.push(...e.related, e.id);
  return terminalSafe(parts.join('  '));
}

/** The line cut to `width` columns as the module's header says (the relative age aside). */
function fitted(e: EventParts, width: number): string {
  const shown = { ...e, related: [...e.related] };
  const over = (pad: number) => textWidth(composed(shown, pad)) - width;
  for (;;) {
    if (over(NAME_COLUMN) <= 0) return composed(shown, NAME_COLUMN);
    // With no more than the first related id left, the padding goes before it does: as far as need be.
    if (shown.related.length <= 1) {
      const pad = Math.max(0, NAME_COLUMN - over(NAME_COLUMN));
      if (over(pad) <= 0) return composed(shown, pad);
    }
    if (shown.related.length === 0) break;
    shown.related.pop();
  }
  if (shown.record && over(0) > 0) {
    const type = terminalSafe(shown.record.type);
    shown.record = { ...shown.record, type: fitText(type, Math.max(1, textWidth(type) - over(0))) };
  }
  if (over(0) > 0) {
    const name = terminalSafe(shown.name);
    shown.name = fitText(name, Math.max(1, textWidth(name) - over(0)));
  }
  const line = composed(shown, 0);
  // A terminal too narrow even for the time and the ids: the line's start.
  return textWidth(line) > width ? fitText(line, width) : line;
}

/** One event as one line (no newline), whole: off a terminal. */
function eventLine(r: ResourceObject, t: number, opts: ViewOptions): string {
  const e = eventParts(r, t, opts);
  // The name padded by UTF-16 units, as before: a file's lines stay as they were.
  return terminalSafe(
    [
      e.when,
      ...(e.age !== undefined ? [e.age] : []),
      e.name.padEnd(NAME_COLUMN),
      ...(e.record ? [`${e.record.type} ${e.record.id}`] : []),
      ...e.related,
      e.id,
    ].join('  '),
  );
}

/**
 * The view of `events tail`: batches of events as lines (no newlines), fitted to a terminal
 * `width` columns wide (undefined: off a terminal, each line whole), the times on `zone`'s clock
 * when given. Whether the relative age is shown is decided once, by the first batch with events:
 * it goes for good when one of its lines is too wide with it, else it stays for every line after
 * (they give up their other parts first), so that the columns do not shift between the events
 * caught up with and those that come live (a trial: `7s ago` on some lines and not on others).
 */
export function eventView(opts: { relative: boolean; width: number | undefined; zone?: Zone | undefined }) {
  let relative = opts.relative;
  let decided = false;
  return (batch: readonly { record: ResourceObject; t: number }[], now: number): string[] => {
    const width = opts.width;
    const view = { now, relative, zone: opts.zone };
    if (width === undefined) return batch.map((e) => eventLine(e.record, e.t, view));
    let events = batch.map((e) => eventParts(e.record, e.t, view));
    if (!decided && events.length > 0) {
      decided = true;
      if (relative && events.some((e) => textWidth(composed(e, NAME_COLUMN)) > width)) {
        relative = false;
        events = events.map(({ age: _age, ...e }) => e);
      }
    }
    return events.map((e) => fitted(e, width));
  };
}
