/**
 * The way `svc runs undo` gives to enrol again prospects whose finished enrolment's state is gone
 * (a merge deleted it with the duplicate): no `sequence-states delete` of a state that answers
 * 404, the recorded sequence and mailbox, and the prospect's new id where the undo re-created it,
 * one `svc enroll` a sequence and mailbox (test/dedupe/undo.test.ts runs one against the sandbox).
 */
import { describe, expect, it } from 'vitest';
import { enrolRecreatedLines, goneStatesText } from '../../../../src/commands/runs/undo-rows.js';

const gone = (state: string, prospect: string, sequence: string, mailbox = '1') =>
  ({ state, prospect, sequence, mailbox, gone: true }) as const;

describe('the way to enrol again after a state went with its prospect', () => {
  it('after the undo: the new ids, one enroll a sequence and mailbox', () => {
    const newIds = new Map([
      ['861', '882'],
      ['313', '883'],
      ['122', '884'],
    ]);
    const states = [gone('101', '861', '1'), gone('102', '313', '1'), gone('103', '122', '2'), gone('104', '77', '1')];
    expect(enrolRecreatedLines('svc --sandbox', states, (p) => newIds.get(p))).toEqual([
      'to enrol again prospects 861, 313, re-created as 882, 883 (their finished enrolments went with them): svc --sandbox enroll --sequence 1 --mailbox 1 --prospect 882,883',
      'to enrol again prospect 122, re-created as 884 (its finished enrolment went with it): svc --sandbox enroll --sequence 2 --mailbox 1 --prospect 884',
    ]);
  });

  it('before it: the re-created wait for their new ids; the rest are enrolled by the ids recorded, or placeholders, never a delete', () => {
    const recreated = new Set(['861']);
    const text = goneStatesText(
      'svc --profile eu',
      [gone('101', '861', '1'), gone('102', '77', '3', '2'), gone('103', 'ID', 'ID', 'ID')],
      (p) => recreated.has(p),
    );
    expect(text).toBe(
      'State 101 went with its prospect 861, which this undo re-creates under a new id: once it has, it says the enroll that enrols it again. ' +
        'States 102, 103 are gone: to enrol their prospects again, svc --profile eu enroll --sequence 3 --mailbox 2 --prospect 77; ' +
        'svc --profile eu enroll --sequence SEQUENCE-ID --mailbox MAILBOX-ID --prospect PROSPECT-ID',
    );
    expect(text).not.toMatch(/sequence-states delete/);
  });
});
