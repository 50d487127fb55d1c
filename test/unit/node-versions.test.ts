// The Node versions the project supports are said in three places: `engines` in package.json, the
// two versions `.ci/run` runs the suite on, and the README's quick start. They must agree: CI's
// oldest is exactly the floor of `engines`, its LTS is an even major, and the README names both.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

function ciVersion(name: string): string {
  const found = read('.ci/run').match(new RegExp(`^${name}=(\\d+\\.\\d+\\.\\d+)$`, 'm'));
  if (!found?.[1]) throw new Error(`.ci/run sets no ${name}`);
  return found[1];
}

describe('supported Node versions', () => {
  const oldest = ciVersion('OLDEST_NODE');
  const lts = ciVersion('LTS_NODE');

  it('CI runs the oldest version engines admits and an LTS line', () => {
    const engines = JSON.parse(read('package.json')).engines.node as string;
    const floor = engines.match(/^>=(\d+)\.(\d+)$/);
    expect(floor, `engines.node is ${engines}`).not.toBeNull();
    expect(oldest).toBe(`${floor?.[1]}.${floor?.[2]}.0`);
    expect(Number(lts.split('.')[0]) % 2, 'LTS lines are even majors').toBe(0);
    expect(Number(lts.split('.')[0])).toBeGreaterThan(Number(oldest.split('.')[0]));
  });

  it('CI runs the whole test command once per version', () => {
    const script = read('.ci/run');
    expect(script).toMatch(/for bin in "\$oldest" "\$lts"; do[\s\S]*?PATH="\$bin:\$PATH" npm test/);
  });

  it('the README names both versions', () => {
    const readme = read('README.md');
    expect(readme).toContain(`Node ${oldest}`);
    expect(readme).toContain(`Node ${lts}, the current LTS`);
  });
});
