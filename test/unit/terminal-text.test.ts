import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitText, terminalSafe, terminalSafeJson, terminalSafeLines, textWidth } from '../../src/output/terminal-text.js';
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
    expect(fitText('ok ✅ done', 5)).toBe('ok …');
    expect(textWidth('日本')).toBe(4);
    expect(textWidth('e\u0301')).toBe(1);
    expect(textWidth('👍🏽 ok')).toBe(5);
  });

  it('leaves "営業部長 🚀" whole while there is room (display width 11)', () => {
    expect(textWidth('営業部長 🚀')).toBe(11);
    expect(fitText('営業部長 🚀', 11)).toBe('営業部長 🚀');
    expect(fitText('営業部長 🚀', 10)).toBe('営業部長 …');
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
