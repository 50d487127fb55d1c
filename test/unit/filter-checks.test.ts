/**
 * The pure parts of the filter and field-name guards: spaces around values, date checks and
 * whole-day ranges, enum and boolean values, reversed id ranges, repeated fields, near misses.
 */
import { describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/api/filter.js';
import {
  checkFilterValues,
  type FilterDays,
  refuseRepeatedFields,
  relativeDate,
} from '../../src/commands/resource-commands/filter-checks.js';
import { nearMiss } from '../../src/suggest.js';
import type { AttributeSpec } from '../../src/registry/index.js';
import { zoneNamed } from '../../src/time-zone.js';

const DT: AttributeSpec = { name: 'createdAt', type: 'date-time', filterable: true };
const D: AttributeSpec = { name: 'dateOfBirth', type: 'date', filterable: true };

/** Days counted from `now` in `zone`, whatever the test process's TZ. */
const daysIn = (zone: string, now = Date.now()): FilterDays => ({ now, zone: () => zoneNamed(zone) });
/** Filters without days: the zone is never asked for. */
const NO_DAYS: FilterDays = {
  now: 0,
  zone: () => {
    throw new Error('the zone was asked for');
  },
};

describe('parseFilter: spaces around values', () => {
  it.each([
    ['title=CEO, CFO', ['CEO', 'CFO']],
    ['title= CEO ,CFO ', ['CEO', 'CFO']],
    ['title= CEO', ['CEO']],
  ])('%s is trimmed and marked', (expr, values) => {
    const f = parseFilter(expr);
    expect(f.values).toEqual(values);
    expect(f.trimmed).toBe(true);
  });

  it.each([
    ['title=CEO,\\ CFO', ['CEO', ' CFO']],
    ['title=CEO\\ ,CFO', ['CEO ', 'CFO']],
    ['title=VP Sales,CEO', ['VP Sales', 'CEO']],
    ['title= ', [' ']],
  ])('%s keeps its spaces', (expr, values) => {
    const f = parseFilter(expr);
    expect(f.values).toEqual(values);
    expect(f.trimmed).toBeUndefined();
  });
});

describe('checkFilterValues', () => {
  const check = (spec: AttributeSpec, expr: string, days = daysIn('UTC')) => checkFilterValues(spec, parseFilter(expr), expr, days);

  it("a bare date on a date-time field becomes that local day's range of UTC instants (the API's times are UTC)", () => {
    expect(check(DT, 'createdAt=2026-11-07')).toMatchObject({ kind: 'range', from: '2026-11-07T00:00:00Z', to: '2026-11-07T23:59:59Z' });
    expect(check(DT, 'createdAt=2026-11-07', daysIn('Asia/Tokyo'))).toMatchObject({
      kind: 'range',
      from: '2026-11-06T15:00:00Z',
      to: '2026-11-07T14:59:59Z',
    });
    // A day of 23 hours: New York's change to daylight saving.
    expect(check(DT, 'createdAt=2026-03-08', daysIn('America/New_York'))).toMatchObject({
      from: '2026-03-08T05:00:00Z',
      to: '2026-03-09T03:59:59Z',
    });
  });

  it("a range's bare bounds are the start of its first local day and the end of its last; times and open ends as written", () => {
    const sydney = daysIn('Australia/Sydney');
    expect(check(DT, 'createdAt=2026-11-01..2026-11-07', sydney)).toMatchObject({
      from: '2026-10-31T13:00:00Z',
      to: '2026-11-07T12:59:59Z',
    });
    expect(check(DT, 'createdAt=2026-11-01T12:00:00..', NO_DAYS)).toMatchObject({ from: '2026-11-01T12:00:00', to: undefined });
    expect(check(DT, 'createdAt=..2026-11-07', sydney)).toMatchObject({ from: undefined, to: '2026-11-07T12:59:59Z' });
    expect(check(DT, 'createdAt=2026-11-01..2026-11-07T05:00:00', sydney)).toMatchObject({
      from: '2026-10-31T13:00:00Z',
      to: '2026-11-07T05:00:00',
    });
  });

  it('date fields are checked but not widened, in any zone', () => {
    expect(check(D, 'dateOfBirth=1990-02-28', daysIn('Pacific/Kiritimati'))).toMatchObject({ kind: 'eq', values: ['1990-02-28'] });
    expect(check(D, 'dateOfBirth=1990-02-01..1990-02-28', NO_DAYS)).toMatchObject({ from: '1990-02-01', to: '1990-02-28' });
    expect(() => check(D, 'dateOfBirth=1990-02-30')).toThrow(/"1990-02-30" is not a valid date/);
  });

  it.each(['createdAt=2024-13-45', 'createdAt=2023-02-29..', 'createdAt=..2024-01-01T24:30:00', 'createdAt=soon'])(
    '%s is a usage error',
    (expr) => {
      expect(() => check(DT, expr)).toThrow(expect.objectContaining({ exitCode: 2 }));
    },
  );

  it('a list of bare dates is refused; a list of date-times passes', () => {
    expect(() => check(DT, 'createdAt=2026-11-07,2026-11-08')).toThrow(/means a whole day/);
    expect(check(DT, 'createdAt=2026-11-07T10:00:00,2026-11-08T10:00:00').kind).toBe('list');
  });

  it('relative dates are local days counted from now in the zone, sent on a date-time field as their UTC instants', () => {
    // 3 March 2026 00:30 in Los Angeles (08:30 UTC), before New York's and LA's change to daylight saving.
    const days = daysIn('America/Los_Angeles', Date.UTC(2026, 2, 3, 8, 30));
    const at = (spec: AttributeSpec, expr: string) => checkFilterValues(spec, parseFilter(expr), expr, days);
    expect(at(DT, 'createdAt=7d..')).toMatchObject({ kind: 'range', from: '2026-02-24T08:00:00Z', to: undefined });
    expect(at(DT, 'createdAt=2w..yesterday')).toMatchObject({ from: '2026-02-17T08:00:00Z', to: '2026-03-03T07:59:59Z' });
    expect(at(DT, 'createdAt=today')).toMatchObject({ kind: 'range', from: '2026-03-03T08:00:00Z', to: '2026-03-04T07:59:59Z' });
    expect(at(D, 'dateOfBirth=yesterday')).toMatchObject({ kind: 'eq', values: ['2026-03-02'] });
    expect(at(DT, 'createdAt=..TODAY')).toMatchObject({ from: undefined, to: '2026-03-04T07:59:59Z' });
    expect(() => at(DT, 'createdAt=7x..')).toThrow(expect.objectContaining({ hints: [expect.stringMatching(/today, yesterday, 7d/)] }));
    // Not on other types: "7d" may be a real value there.
    const f = parseFilter('title=7d');
    expect(checkFilterValues({ name: 'title', type: 'string' }, f, 'title=7d', NO_DAYS)).toBe(f);
  });

  it('today holds a record stamped a second ago east and west of UTC (a trial: Sydney and Kiritimati found nothing)', () => {
    // 13:28:42 UTC on 30 November: already 1 December in Kiritimati (UTC+14), in Sydney (UTC+11)
    // too, still 30 November in Pago Pago (UTC-11).
    const now = Date.UTC(2026, 10, 30, 13, 28, 42);
    const today = (zone: string) => checkFilterValues(DT, parseFilter('updatedAt=today'), 'updatedAt=today', daysIn(zone, now));
    expect(today('Pacific/Kiritimati')).toMatchObject({ from: '2026-11-30T10:00:00Z', to: '2026-12-01T09:59:59Z' });
    expect(today('Australia/Sydney')).toMatchObject({ from: '2026-11-30T13:00:00Z', to: '2026-12-01T12:59:59Z' });
    expect(today('Pacific/Pago_Pago')).toMatchObject({ from: '2026-11-30T11:00:00Z', to: '2026-12-01T10:59:59Z' });
    expect(today('UTC')).toMatchObject({ from: '2026-11-30T00:00:00Z', to: '2026-11-30T23:59:59Z' });
    const stamped = Date.parse('2026-11-30T13:28:41Z');
    for (const zone of ['Pacific/Kiritimati', 'Australia/Sydney', 'Pacific/Pago_Pago', 'UTC']) {
      const { from, to } = today(zone);
      expect(Date.parse(from!) <= stamped && stamped <= Date.parse(to!), zone).toBe(true);
    }
  });

  it('hours and minutes back are the UTC date-time on a date-time field, only as range bounds', () => {
    const now = Date.UTC(2026, 2, 3, 0, 30, 15, 500);
    const at = (spec: AttributeSpec, expr: string) => checkFilterValues(spec, parseFilter(expr), expr, { ...NO_DAYS, now });
    expect(at(DT, 'createdAt=2h..')).toMatchObject({ kind: 'range', from: '2026-03-02T22:30:15', to: undefined });
    expect(at(DT, 'createdAt=90M..30m')).toMatchObject({ from: '2026-03-02T23:00:15', to: '2026-03-03T00:00:15' });
    expect(() => at(DT, 'createdAt=30m..2h')).toThrow(/the range starts \(2026-03-03T00:00:15\) after it ends/);
    expect(() => at(DT, 'createdAt=2h')).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/one moment/),
        hints: [expect.stringContaining("--filter 'createdAt=2h..'")],
      }),
    );
    // A date has no hours: refused as any other non-date, the hint without them.
    expect(() => at(D, 'dateOfBirth=2h..')).toThrow(expect.objectContaining({ hints: [expect.not.stringMatching(/2h/)] }));
    expect(() => at(DT, 'createdAt=2x..')).toThrow(expect.objectContaining({ hints: [expect.stringMatching(/2h or 30m/)] }));
  });

  it('relativeDate steps calendar days across month and year ends, from the date in the zone', () => {
    const noon = Date.UTC(2026, 0, 1, 12);
    expect(relativeDate('1d', daysIn('UTC', noon))).toBe('2025-12-31');
    expect(relativeDate('0d', daysIn('UTC', noon))).toBe('2026-01-01');
    // Noon UTC on 1 January is already 2 January in Kiritimati.
    expect(relativeDate('1d', daysIn('Pacific/Kiritimati', noon))).toBe('2026-01-01');
    expect(relativeDate('2026-01-01', NO_DAYS)).toBeUndefined();
  });

  it('other types pass unchanged', () => {
    const f = parseFilter('title=2024-13-45');
    expect(checkFilterValues({ name: 'title', type: 'string' }, f, 'title=2024-13-45', NO_DAYS)).toBe(f);
    expect(checkFilterValues(undefined, f, 'x', NO_DAYS)).toBe(f);
  });
});

describe('checkFilterValues: enums, booleans and id ranges (a trial: these matched nothing, exit 0)', () => {
  const STATE: AttributeSpec = { name: 'state', type: 'string', filterable: true, enum: ['pending', 'active', 'paused'] };
  const OUTCOME: AttributeSpec = { name: 'outcome', type: 'string', filterable: true, enum: ['Answered', 'Not Answered'] };
  const NAMED: AttributeSpec = { name: 'named', type: 'boolean', filterable: true };
  const check = (spec: AttributeSpec | undefined, expr: string) => checkFilterValues(spec, parseFilter(expr), expr, NO_DAYS);
  const refusal = (spec: AttributeSpec | undefined, expr: string): { message: string; hints: string[]; exitCode: number } => {
    try {
      check(spec, expr);
    } catch (err) {
      return err as { message: string; hints: string[]; exitCode: number };
    }
    throw new Error(`${expr} was not refused`);
  };

  it('an enum value in another case is sent as the list writes it, each item of a list too', () => {
    expect(check(STATE, 'state=Active')).toMatchObject({ kind: 'eq', values: ['active'] });
    expect(check(STATE, 'state=active,PAUSED')).toMatchObject({ kind: 'list', values: ['active', 'paused'] });
    expect(check(OUTCOME, 'outcome=not answered')).toMatchObject({ values: ['Not Answered'] });
    expect(check(STATE, 'state=Active..Paused')).toMatchObject({ from: 'active', to: 'paused' });
  });

  it('any other enum value is refused with the values and the near one', () => {
    const e = refusal(STATE, 'state=active,actve');
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe('filter "state=active,actve": "actve" is not a value of state, which is one of: pending, active, paused');
    expect(e.hints).toEqual(["did you mean active? --filter 'state=active'"]);
    expect(refusal(STATE, 'state=pending,actve').hints).toEqual(["did you mean active? --filter 'state=pending,active'"]);
    expect(refusal(STATE, 'state=zzz').hints).toEqual([]);
  });

  it.each([
    ['named=yes', 'true'],
    ['named=1', 'true'],
    ['named=True', 'true'],
    ['named=NO', 'false'],
    ['named=0', 'false'],
    ['named=false', 'false'],
  ])('%s is sent as %s, as --attr reads it', (expr, sent) => {
    expect(check(NAMED, expr)).toMatchObject({ kind: 'eq', values: [sent] });
  });

  it('a number is sent as it was checked: full-width digits as ASCII ones (１..５ passed the check and was sent as typed)', () => {
    const SCORE: AttributeSpec = { name: 'engagedScore', type: 'number', filterable: true };
    expect(check(SCORE, 'engagedScore=１..５')).toMatchObject({ kind: 'range', from: '1', to: '5' });
    expect(check(SCORE, 'engagedScore=８５,－２．５')).toMatchObject({ kind: 'list', values: ['85', '-2.5'] });
    expect(refusal(SCORE, 'engagedScore=５..１').message).toMatch(/the range starts \(5\) after it ends \(1\)/);
  });

  it('a boolean given anything else is refused', () => {
    const e = refusal(NAMED, 'named=maybe');
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe('filter "named=maybe": "maybe" is not true or false (named is a boolean)');
  });

  it.each(['id=9..2', 'account.id=4..2'])('%s, a reversed range of ids, is refused as a reversed number range is', (expr) => {
    const e = refusal(undefined, expr);
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(/the range starts \((9|4)\) after it ends \(2\), so it matches nothing/);
  });

  it('ranges of ids the right way round, open ones and ids that are not whole numbers pass', () => {
    for (const expr of ['id=2..9', 'id=9..', 'account.id=..4', 'id=b..a', 'account.id=4']) {
      const f = parseFilter(expr);
      expect(checkFilterValues(undefined, f, expr, NO_DAYS)).toBe(f);
    }
  });
});

describe('refuseRepeatedFields', () => {
  const given = (...exprs: string[]) => exprs.map((e) => ({ given: e, filter: parseFilter(e) }));
  const hintOf = (exprs: string[]): string => {
    try {
      refuseRepeatedFields(given(...exprs));
    } catch (err) {
      return (err as { hints: string[] }).hints.join('\n');
    }
    return 'no error';
  };

  it('one filter per field passes', () => {
    expect(() => refuseRepeatedFields(given('title=CEO', 'firstName=Ada', 'account.id=1'))).not.toThrow();
  });

  it.each([
    [['title=CEO', 'title=CFO'], 'title=CEO,CFO'],
    [['title=CEO,CTO', 'title=CFO,CEO'], 'title=CEO,CTO,CFO'],
    [['name=Acme\\, Inc', 'name=Beta'], 'name=Acme\\, Inc,Beta'],
    [['updatedAt=2024-01-01..', 'updatedAt=..2024-02-01'], 'updatedAt=2024-01-01..2024-02-01'],
    [['account.id=1', 'account.id=2'], 'account.id=1,2'],
  ])('%j: refused, suggesting %s', (exprs, one) => {
    expect(() => refuseRepeatedFields(given(...exprs))).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(hintOf(exprs)).toContain(`--filter '${one}'`);
  });

  it('two filters that cannot be merged: refused with a general hint', () => {
    expect(hintOf(['updatedAt=2024-01-01..2024-02-01', 'updatedAt=2024-03-01'])).toMatch(/give one --filter for updatedAt/);
  });
});

describe('nearMiss', () => {
  const names = ['firstName', 'lastName', 'name', 'title', 'account', 'emails'];
  it.each([
    ['fistName', 'firstName'],
    ['lastname', 'lastName'],
    ['nmae', 'name'],
    ['titel', 'title'],
    ['email', 'emails'],
    ['ACCOUNT', 'account'],
  ])('%s → %s', (given, near) => expect(nearMiss(given, names)).toBe(near));

  it.each(['colour', 'xy', 'somethingElse'])('%s has no near miss', (given) => expect(nearMiss(given, names)).toBeUndefined());
});
