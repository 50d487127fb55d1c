import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { flatten, indexIncluded, type FlatRecord } from '../../src/listing/record-text.js';
import { compileQuery, errorColumn } from '../../src/output/query.js';
import { formatResult, shapedRecordWriter } from '../../src/output/shape.js';

const records = [
  { id: '1', type: 'prospect', firstName: 'Ada', title: 'CEO', emails: ['ada@example.com'] },
  { id: '2', type: 'prospect', firstName: 'Bob', title: 'CTO', emails: [] },
];

describe('compileQuery', () => {
  it('applies JMESPath to a value', () => {
    expect(compileQuery('[].firstName').search(records)).toEqual(['Ada', 'Bob']);
    expect(compileQuery("[?title=='CEO'].{id: id, email: emails[0]}").search(records)).toEqual([{ id: '1', email: 'ada@example.com' }]);
    expect(compileQuery('length(@)').search(records)).toBe(2);
  });

  it('names the column of a syntax error, with a caret under it', () => {
    const cases: [string, number][] = [
      ['[?title==', 10], // ends too soon: the column after the end
      ['a.b ^ c', 5], // unknown character
      ['a[}', 3], // a token that cannot follow
      ['[].{id: id', 11],
    ];
    for (const [expr, column] of cases) {
      expect(errorColumn(expr), expr).toBe(column);
      let err: unknown;
      try {
        compileQuery(expr);
      } catch (e) {
        err = e;
      }
      expect(err, expr).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toContain(`syntax error at column ${column}`);
      expect((err as UsageError).hints[0]).toBe(expr);
      expect((err as UsageError).hints[1]).toMatch(new RegExp(`^ {${column - 1}}\\^`));
    }
  });

  it('an empty expression and a failure on the data are usage errors', () => {
    expect(() => compileQuery('  ')).toThrow(UsageError);
    const q = compileQuery('nosuchfn(@)');
    expect(() => q.search(records)).toThrow(/--query: .*nosuchfn/i);
  });
});

/** Records of the odd shapes a listing holds: missing fields, nulls, nested values, CJK and newlines in text. */
function sampleRecords(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    id: String(i + 1),
    type: 'prospect',
    firstName: i % 3 === 0 ? null : `名前 ${i}`,
    title: ['CEO', 'CTO', 'VP\nSales'][i % 3],
    emails: i % 4 === 0 ? [] : [`p${i}@example.com`, `alt${i}@example.com`],
    ...(i % 5 === 0 ? {} : { score: i * 1.5 }),
    account: i % 2 === 0 ? { id: String(100 + i), name: `Acme ${i}` } : null,
  }));
}

describe('a projection over the list, answered record by record', () => {
  const streamed = [
    '[].firstName',
    '[*].firstName',
    "[?title=='CEO'].{id: id, email: emails[0]}",
    "[?title=='CEO']",
    '[].emails[]',
    '[*].emails[*]',
    '[].account.name',
    '[?score > `10`].score',
    '[*]',
    '[].[id, title]',
    '[]',
    '[].emails[].length(@)',
  ];
  for (const expr of streamed) {
    it(`${expr}: the concatenated answers equal the whole list's answer`, () => {
      const q = compileQuery(expr);
      expect(q.perElement, expr).toBeDefined();
      for (const n of [0, 1, 17]) {
        const list = sampleRecords(n);
        expect(list.flatMap((r) => q.perElement!(r))).toEqual(q.search(list));
      }
    });
  }

  it('expressions about the whole list are not answered record by record', () => {
    for (const expr of ['length(@)', '[].id | [0]', 'sort_by(@, &id)', '[0]', '[].{all: length($)}', 'max_by(@, &score).id', '@']) {
      expect(compileQuery(expr).perElement, expr).toBeUndefined();
    }
  });
});

describe('the shaped writer with a projection', () => {
  async function written(format: 'json' | 'raw', expr: string, pages: Record<string, unknown>[][]): Promise<string> {
    const stdout = new PassThrough();
    let text = '';
    stdout.setEncoding('utf8').on('data', (d: string) => {
      text += d;
    });
    const io = {
      stdout,
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: false,
      color: false,
      columns: 80,
    };
    const w = shapedRecordWriter({ format, io }, { query: compileQuery(expr) });
    for (const p of pages) await w.page({ data: [] }, p as FlatRecord[]);
    await w.end();
    return text;
  }

  for (const format of ['json', 'raw'] as const) {
    for (const expr of ['[].firstName', "[?title=='CEO'].{id: id, email: emails[0], account: account}", '[*]', "[?title=='none']"]) {
      it(`-o ${format} --query ${expr}: the same bytes as the answer for the whole list, written page by page`, async () => {
        const list = sampleRecords(23);
        const pages = [list.slice(0, 10), [], list.slice(10)];
        expect(await written(format, expr, pages)).toBe(formatResult(compileQuery(expr).search(list), format === 'raw'));
      });
    }
  }
});

describe('members a projection reads of each record', () => {
  it('names them when the expression reads its element only through top-level members', () => {
    const cases: [string, string[] | undefined][] = [
      ['[].firstName', ['firstName']],
      ["[?title=='CEO'].{id: id, email: emails[0], n: length(emails), a: account.name}", ['id', 'emails', 'account', 'title']],
      ['[*].[id, emails[*].x, sort_by(tags, &name)]', ['id', 'emails', 'tags']],
      ['[].id | [0]', undefined], // a pipe at the top is about the whole list: not per element
      ["[?title=='CEO']", undefined], // the element itself
      ['[].*', undefined],
      ['[].keys(@)', undefined],
      ['[].{a: "first.name"}', undefined],
      ['[].emails[]', undefined], // a chain of projections: read whole
    ];
    for (const [expr, fields] of cases) {
      const got = compileQuery(expr).elementFields;
      expect(got ? [...got].sort() : got, expr).toEqual(fields ? [...fields].sort() : fields);
    }
  });

  it('the listing path (resource objects) gives the same bytes as the whole list, for narrow and whole reads', async () => {
    const records = sampleRecords(23);
    // The resource objects those flat records come from: attributes, and the account as an included record.
    const resources = records.map((r) => {
      const { id, type, account, ...attributes } = r as { id: string; type: string; account: { id: string; name: string } | null };
      return {
        id,
        type,
        attributes,
        relationships: { account: { data: account ? { type: 'account', id: account.id } : null } },
      };
    });
    const included = records.flatMap((r) => {
      const a = r.account as { id: string; name: string } | null;
      return a ? [{ type: 'account', id: a.id, attributes: { name: a.name } }] : [];
    });
    const doc = { data: resources, included } as unknown as Parameters<typeof indexIncluded>[0];
    const index = indexIncluded(doc);
    const flat = resources.map((r) => flatten(r as never, index));
    for (const expr of ["[?title=='CEO'].{id: id, email: emails[0], account: account.name}", '[].firstName', '[*]', '[].score']) {
      for (const format of ['json', 'raw'] as const) {
        const stdout = new PassThrough();
        let text = '';
        stdout.setEncoding('utf8').on('data', (d: string) => {
          text += d;
        });
        const io = {
          stdout,
          stderr: new PassThrough(),
          stdin: new PassThrough(),
          stdoutIsTTY: false,
          stderrIsTTY: false,
          stdinIsTTY: false,
          color: false,
          columns: 80,
        };
        const w = shapedRecordWriter({ format, io }, { query: compileQuery(expr) });
        await w.resources({ doc, resources: resources.slice(0, 10) as never, included: index });
        await w.resources({ doc, resources: resources.slice(10) as never, included: index });
        await w.end();
        expect(text, `${format} ${expr}`).toBe(formatResult(compileQuery(expr).search(flat), format === 'raw'));
      }
    }
  });
});
