import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitLines, fitText, terminalSafe, terminalSafeJson, terminalSafeLines, textWidth } from '../../src/output/terminal-text.js';
import { binaryUnit } from '../helpers/fuzz.js';
import { propertyRuns } from '../helpers/property-runs.js';

const OSC52 = 'Eve\x1b]52;c;aGVsbG8=\x07';
/** Anything a terminal would act on: ESC, BEL, CR, other C0, DEL, C1, bidi controls. */
const RAW = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('terminalSafe', () => {
  it('shows controls, C1 and bidi overrides as visible escapes', () => {
    expect(terminalSafe(OSC52)).toBe('Eve\\e]52;c;aGVsbG8=\\a');
    expect(terminalSafe('a\u202eb\u0085c\x7fd\re\n\t\0')).toBe('a\\u202eb\\x85c\\x7fd\\re\\n\\t\\0');
    expect(terminalSafe('\u2066x\u2069\u200f')).toBe('\\u2066x\\u2069\\u200f');
    expect(terminalSafeLines('one\ntwo\tx\x1b[2J\r')).toBe('one\ntwo\tx\\e[2J\\r');
  });

  it('leaves ordinary text alone (backslashes too)', () => {
    for (const s of ['Ada Lovelace', 'Zoë Ωmega 日本 👩‍💻', 'C:\\path\\x', '']) {
      expect(terminalSafe(s)).toBe(s);
    }
  });

  it('never lets a raw control through, for any string; JSON keeps its value', () => {
    fc.assert(
      fc.property(fc.string({ unit: binaryUnit }), (s) => {
        const json = terminalSafeJson(JSON.stringify({ s }));
        expect(json).not.toMatch(RAW);
        expect(JSON.parse(json)).toEqual({ s });
        expect(terminalSafe(s)).not.toMatch(RAW);
        expect(terminalSafeLines(s)).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe('fitText', () => {
  it('cuts before an escape, never inside it', () => {
    const s = `ab${'\x1b'}cd`; // shows as ab\ecd
    expect(fitText(s, 6)).toBe('ab\\ecd');
    expect(fitText(s, 5)).toBe('ab\\e…');
    expect(fitText(s, 4)).toBe('ab…'); // not "ab\…"
    expect(fitText(OSC52, 8)).toBe('Eve\\e]5…');
    expect(fitText('x\u202eyz', 4)).toBe('x…');
  });

  it('cuts between graphemes, counting each by its display width', () => {
    const family = '👨‍👩‍👧‍👦'; // one grapheme, two columns (as string-width counts it)
    expect(textWidth(family)).toBe(2);
    expect(fitText(`${family}${family}abc`, 6)).toBe(`${family}${family}a…`);
    expect(fitText(`${family}abc`, 2)).toBe('…');
    expect(fitText(`${family}abc`, 3)).toBe(`${family}…`);
    expect(fitText('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301…');
    expect(fitText('日本語テキスト', 5)).toBe('日本…');
    expect(fitText('🇫🇷🇩🇪🇮🇹', 5)).toBe('🇫🇷🇩🇪…');
    expect(fitText('🇫🇷🇩🇪', 4)).toBe('🇫🇷🇩🇪');
    expect(fitText('ok ✅ done', 6)).toBe('ok ✅…');
    // A cut never ends on a space before its `…`, a full-width one included (`株式会社テスト　…`, a trial).
    expect(fitText('ok ✅ done', 5)).toBe('ok…');
    expect(fitText('株式会社テスト　大阪支店', 16)).toBe('株式会社テスト…');
    expect(fitText('Acme Corp International', 11)).toBe('Acme Corp…');
    expect(textWidth('日本')).toBe(4);
    expect(textWidth('e\u0301')).toBe(1);
    expect(textWidth('👍🏽 ok')).toBe(5);
  });

  it('leaves "営業部長 🚀" whole while there is room (display width 11)', () => {
    expect(textWidth('営業部長 🚀')).toBe(11);
    expect(fitText('営業部長 🚀', 11)).toBe('営業部長 🚀');
    expect(fitText('営業部長 🚀', 10)).toBe('営業部長…');
  });

  it('fits any text in its width, keeps whole graphemes and lets no control through', () => {
    const seg = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const unit = fc.oneof(
      fc.string({ unit: binaryUnit }),
      fc.constantFrom('👍🏽', '👨‍👩‍👧', 'e\u0301', '日', '\x1b', '\u202e', '\r\n', '\x9b'),
    );
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 8 }).map((a) => a.join('')),
        fc.integer({ min: 0, max: 30 }),
        (s, width) => {
          const out = fitText(s, width);
          expect(out).not.toMatch(RAW);
          expect(textWidth(out)).toBeLessThanOrEqual(width);
          if (out.endsWith('…') && out !== terminalSafe(s)) {
            // What is kept is whole graphemes of the input, each shown safe.
            const kept = out.slice(0, -1);
            let rebuilt = '';
            for (const { segment } of seg.segment(s)) {
              if (rebuilt === kept) break;
              rebuilt += terminalSafe(segment);
            }
            expect(rebuilt).toBe(kept);
          }
        },
      ),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe('fitLines', () => {
  const ID = '20261130-104944-915f99';
  const recorded = `recorded as run ${ID}: svc runs show ${ID} · svc runs undo ${ID} takes it back`;

  it('leaves text whole off a terminal, and lines that fit', () => {
    expect(fitLines(recorded, undefined)).toBe(recorded);
    expect(fitLines('short\n  and short', 80)).toBe('short\n  and short');
    expect(fitLines('営業部長 🚀', 11)).toBe('営業部長 🚀');
  });

  it('breaks after a part (`: `, `; `, ` · `) that the next cannot share a line with, continuations indented', () => {
    expect(fitLines(recorded, 80).split('\n')).toEqual([
      `recorded as run ${ID}: svc runs show ${ID} ·`,
      `  svc runs undo ${ID} takes it back`,
    ]);
    const sandbox = recorded.replaceAll('svc runs', 'svc --sandbox runs');
    expect(fitLines(sandbox, 80).split('\n')).toEqual([
      `recorded as run ${ID}:`,
      `  svc --sandbox runs show ${ID} ·`,
      `  svc --sandbox runs undo ${ID} takes it back`,
    ]);
  });

  it('puts a command that ends the line on a line of its own, whole even when wider than the terminal (a trial: the cursor broken off)', () => {
    const cursor = 'c1.eyJ0IjoxNzk2MDQ3Nzg2MDAwLCJpZCI6IjMwIiwicyI6W1siMzAiLDBdXX0';
    const hint = `25 events; continue with: svc --profile emea events tail --since-cursor ${cursor}`;
    expect(fitLines(hint, 80).split('\n')).toEqual([
      '25 events; continue with:',
      `  svc --profile emea events tail --since-cursor ${cursor}`,
    ]);
    expect(fitLines(hint, 40).split('\n')).toEqual([
      '25 events; continue with:',
      `  svc --profile emea events tail --since-cursor ${cursor}`,
    ]);
    // One that fits where it is stays there; an option keeps its value elsewhere.
    expect(fitLines('list them with: svc sequences list --fields name', 80)).toBe('list them with: svc sequences list --fields name');
    expect(
      fitLines('delivery refused 6 times; resume with --since 2026-11-30T13:00:00.000Z (the receiver may see a few again)', 48).split('\n'),
    ).toContain('  --since 2026-11-30T13:00:00.000Z (the receiver');
  });

  it("fills a label's line rather than leaving the label alone; a count stays with its word", () => {
    const bill =
      "bill: 2 creates, 1 update, 0 unchanged (not sent), 0 ambiguous, 0 failed, 0 done earlier; 6 requests (3 lookups + 3 writes); within the window's remaining budget (9,998 of 10,000 left): no wait";
    const lines = fitLines(bill, 80).split('\n');
    expect(lines[0]).toMatch(/^bill: 2 creates, 1 update, .*0 failed, 0 done$/);
    expect(lines.slice(1).every((l) => l.startsWith('  ') && !l.startsWith('   '))).toBe(true);
    for (const l of lines) expect(textWidth(l), l).toBeLessThanOrEqual(80);
    // Nothing lost but the spaces at the breaks.
    expect(lines.map((l) => l.trim()).join(' ')).toBe(bill);
    expect(fitLines('a b c 12 rows', 10)).toBe('a b c\n  12 rows');
  });

  it("indents continuations two past the line's own indent; each line of a message apart", () => {
    expect(fitLines('first line\n  title: "a b c d e f"', 16)).toBe('first line\n  title: "a b c\n    d e f"');
  });

  it('never breaks inside a word: a path or URL wider than the line stays whole on a line of its own', () => {
    const file = `/data/${'x'.repeat(90)}/run.journal.ndjson`;
    expect(fitLines(`journal ${file} · report r.ndjson`, 80).split('\n')).toEqual(['journal', `  ${file} ·`, '  report r.ndjson']);
  });

  it('keeps an unquoted path whole, spaces and CJK and all, up to its last word with a dot or slash', () => {
    // A bulk run's summary line, as a path with a space broke it (a journal named half on each line).
    const file = '/tmp/temp 一時/a rather long file name for leads 2026.csv.sandbox.journal.ndjson';
    expect(fitLines(`journal ${file} · report r.ndjson`, 80).split('\n')).toEqual(['journal', `  ${file} ·`, '  report r.ndjson']);
    expect(fitLines(`error: --journal ${file}: cannot write the journal (EACCES)`, 80).split('\n')).toEqual([
      'error: --journal',
      `  ${file}:`,
      '  cannot write the journal (EACCES)',
    ]);
    // Words after a path's last dotted word are words again; a path of one word is left as it was.
    expect(fitLines('wrote ./out/my leads.csv with 3 rows and 2 columns', 24).split('\n')).toEqual([
      'wrote ./out/my leads.csv',
      '  with 3 rows and',
      '  2 columns',
    ]);
    expect(fitLines(`~/${'一時'.repeat(30)}/x.csv`, 40)).toBe(`~/${'一時'.repeat(30)}/x.csv`);
  });

  it('keeps a shell-quoted word of a command line whole, spaces and all; an apostrophe is no quote', () => {
    const line = "run 1: svc prospects upsert --input '/home/ada/My Files/2026 leads.csv' --match email (2026-11-30T10:49:44Z)";
    // The command whole on a line of its own, though wider than 60 columns: it is to be copied.
    expect(fitLines(line, 60).split('\n')).toEqual([
      'run 1:',
      "  svc prospects upsert --input '/home/ada/My Files/2026 leads.csv' --match email",
      '  (2026-11-30T10:49:44Z)',
    ]);
    expect(fitLines("the words of 'a quoted name' stay whole, no command here", 20).split('\n')).toContain("  'a quoted name'");
    expect(fitLines("the window's remaining budget: no wait", 20)).toBe("the window's\n  remaining budget:\n  no wait");
  });

  it('counts wide characters as two columns, and breaks a run of them wider than a line between two', () => {
    const name = '営業部長'.repeat(12);
    const lines = fitLines(`  title: "${name}" → "山田"`, 40).split('\n');
    for (const l of lines) expect(textWidth(l), l).toBeLessThanOrEqual(40);
    expect(lines.join('').replace(/ {4}/g, '')).toBe(`  title: "${name}" →"山田"`);
    // A name that fits on a line goes there whole, as a word does.
    expect(fitLines(`${'a '.repeat(17)}山田太郎`, 40)).toBe(`${'a '.repeat(17).trimEnd()}\n  山田太郎`);
  });

  it('fits any words in the width unless one is wider alone, and keeps every word', () => {
    const word = fc.oneof(
      fc.constantFrom('·', '→', '3', '9,998', 'run:', 'rows;', '営業部長', '山', '👍🏽', 'e\u0301', 'x'.repeat(30)),
      fc.string({ unit: fc.constantFrom('a', 'b', '日'), minLength: 1, maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 30 }), fc.integer({ min: 4, max: 60 }), (words, width) => {
        const line = words.join(' ');
        const out = fitLines(line, width).split('\n');
        for (const l of out) {
          if (textWidth(l) <= width) continue;
          // Wider only as one word (with a count before it or a mark after it, which stay with it).
          const words = l
            .trim()
            .split(' ')
            .filter((w) => !/^[^\p{L}\p{N}]$/u.test(w) && !/^\(?[-+]?\d[\d,.]*%?$/.test(w));
          expect(words.length, l).toBeLessThanOrEqual(1);
        }
        expect(
          out
            .join(' ')
            .replace(/ +/g, ' ')
            .replace(/([\u3000-\u9fff]) (?=[\u3000-\u9fff])/g, '$1')
            .trim(),
        ).toBe(line.replace(/([\u3000-\u9fff]) (?=[\u3000-\u9fff])/g, '$1'));
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});
