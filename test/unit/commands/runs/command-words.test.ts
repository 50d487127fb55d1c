/**
 * A run's command in the words that tell runs apart on a terminal (`svc runs list`, `svc runs
 * prune --dry-run`): the command and its arguments, the input file by its name; no global
 * options, no other options. At 80 columns the whole line left `prospects c…` (a trial).
 */
import { describe, expect, it } from 'vitest';
import { commandWords } from '../../../../src/commands/runs/command-words.js';

describe('commandWords', () => {
  it('keeps the command, its arguments and the input file by its name', () => {
    expect(commandWords("svc --sandbox prospects create --input '/home/ann/Q3 imports/leads.csv' --match email")).toBe(
      'prospects create leads.csv',
    );
    expect(commandWords('svc --profile acme -o json prospects update 12 --attr title=CEO')).toBe('prospects update 12');
    expect(commandWords('svc runs undo 20261130-113613-18fb28 --yes --rows 1-5')).toBe('runs undo 20261130-113613-18fb28');
    expect(commandWords('svc --budget 20% enroll --sequence 3 --mailbox 1 --input=people.ndjson --by email')).toBe('enroll people.ndjson');
    expect(commandWords('svc dedupe apply /tmp/plans/plan.json --yes')).toBe('dedupe apply plan.json');
  });

  it('quotes a file name as the command line does, spaces and all', () => {
    expect(commandWords("svc prospects upsert --input '/tmp/リード 一覧.csv' --match email")).toBe("prospects upsert 'リード 一覧.csv'");
    expect(commandWords("svc prospects delete --input 'C:\\data\\ids.csv' --yes")).toBe('prospects delete ids.csv');
  });

  it('a line it cannot read as a command stays as it is', () => {
    expect(commandWords('svc --sandbox')).toBe('svc --sandbox');
  });
});
