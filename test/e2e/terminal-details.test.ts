/**
 * Terminal details against a real sandbox: `get` in a terminal hides null and empty fields
 * unless `--all-fields`; `create`/`update` in a terminal confirm with the id and the fields set
 * (the whole record with -o json); relative dates in filters reach the server as the UTC instants
 * their local days begin and end at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireProgram, without } from '../helpers/programs.js';
import { svcInProcess } from '../helpers/in-process-cli.js';
import { BIN, json, tempDir } from '../helpers/run-svc.js';
import { received, sandboxWithEnv, type TestSandbox } from '../helpers/sandbox.js';
import { sh, TmuxSession } from '../helpers/tmux.js';

let sb: TestSandbox;
let env: Record<string, string>;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  const s = await sandboxWithEnv({ seed: 12 });
  sb = s.sb;
  env = { ...s.env(), SVC_CONFIG_DIR: tempDir(), TERM: 'xterm-256color' };
});
afterAll(async () => {
  for (const s of sessions) s.kill();
  await sb?.close();
});

function term(args: string, width = 100, height = 150): TmuxSession {
  const s = new TmuxSession(`${sh(process.execPath)} ${sh(BIN)} ${args}; echo "[exit $?]"; sleep 30`, { width, height, env });
  sessions.push(s);
  return s;
}

/** Field names of a vertical record view (the first word of each line). */
function shownFields(screen: string): string[] {
  return screen
    .split('\n')
    .map((l) => /^([A-Za-z][\w.]*)(?:\s{2,}|$)/.exec(l)?.[1])
    .filter((f): f is string => !!f);
}

/** Attributes of a prospect that are null or empty in the sandbox, as `get -o json` shows them. */
async function emptyFields(id: number): Promise<string[]> {
  const r = json<Record<string, unknown>>(await svcInProcess(['prospects', 'get', String(id), '-o', 'json'], { env }));
  return Object.entries(r)
    .filter(([k, v]) => !/^custom\d+$/.test(k) && (v === null || v === '' || (Array.isArray(v) && v.length === 0)))
    .map(([k]) => k);
}

describe.skipIf(without('tmux', 'the terminal tests'))('in a terminal', () => {
  beforeAll(() => requireProgram('tmux'));

  it('get hides null and empty fields and says how many; --all-fields shows them', async () => {
    const empty = await emptyFields(1);
    expect(empty.length).toBeGreaterThan(5);
    const s = term('prospects get 1');
    const screen = await s.waitFor(/\[exit 0\]/);
    expect(screen).toContain(`(${empty.length} empty fields hidden; --all-fields shows them)`);
    const shown = shownFields(screen);
    expect(shown).toContain('id');
    for (const f of empty) expect(shown).not.toContain(f);

    const all = term('prospects get 1 --all-fields');
    const allScreen = await all.waitFor(/\[exit 0\]/);
    expect(allScreen).not.toContain('hidden');
    const allShown = shownFields(allScreen);
    for (const f of empty) expect(allShown).toContain(f);
  });

  it('update confirms with the id and the fields it set; -o json prints the whole record', async () => {
    const s = term('prospects update 3 --attr title=Chief\\ Tester --rel account=2');
    const screen = await s.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/\[exit 0\]/);
    expect(screen).toMatch(/^Updated prospect 3\s*$/m);
    expect(shownFields(screen)).toEqual(['title', 'account']);
    expect(screen).toMatch(/^title\s+Chief Tester\s*$/m);
    expect(screen).toMatch(/^account\s+2\s*$/m);
    expect(sb.store.get('prospect', 3)?.attributes.title).toBe('Chief Tester');

    const whole = term('prospects update 3 --attr title=CEO -o json');
    const wholeScreen = await whole.waitFor(/\[exit 0\]/);
    expect(wholeScreen).not.toContain('Updated prospect');
    expect(wholeScreen).toMatch(/^ {2}"custom\d+": null,?\s*$/m); // every field, empty ones too
    expect(wholeScreen).toMatch(/^}\s*$/m);
  });

  it('create confirms with the new id', async () => {
    const s = term('accounts create --attr name=Confirmed\\ Co');
    const screen = await s.waitFor(/\[exit \d+\]/);
    const id = /^Created account (\d+)\s*$/m.exec(screen)?.[1];
    expect(id, screen).toBeDefined();
    expect(sb.store.get('account', Number(id))?.attributes.name).toBe('Confirmed Co');
    expect(shownFields(screen)).toEqual(['name']);
  });
});

describe('relative dates in filters', () => {
  // Local days read with Date's own local-time getters: this process's TZ (America/Los_Angeles
  // unless set), which svc's environment carries.
  const iso = (t: number) => `${new Date(t).toISOString().slice(0, 19)}Z`;
  const midnight = (back: number) => {
    const now = new Date();
    return new Date(now.getFullYear(), now.getMonth(), now.getDate() - back).getTime();
  };
  const start = (back: number) => iso(midnight(back));
  const end = (back: number) => iso(midnight(back - 1) - 1000);

  it.each([
    ['updatedAt=7d..', () => `filter[updatedAt]=${start(7)}..inf`],
    ['updatedAt=yesterday', () => `filter[updatedAt]=${start(1)}..${end(1)}`],
    ['createdAt=2w..today', () => `filter[createdAt]=${start(14)}..${end(0)}`],
  ])('%s is sent as the instants of local days', async (expr, sent) => {
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--filter', expr, '-o', 'json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(decodeURIComponent(received(sb, mark, 'prospects')[0]!.query.raw)).toContain(sent());
  });

  it('a value that is neither a date nor relative says what is accepted; nothing is sent', async () => {
    const mark = sb.requests.length;
    const r = await svcInProcess(['prospects', 'list', '--filter', 'updatedAt=lastweek..'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/hint: .*today, yesterday, 7d/);
    expect(sb.requests.length).toBe(mark);
  });
});
