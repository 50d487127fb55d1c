/** Reading the README's sections in tests (its recipes and SQL questions run as written). */

/** The fenced blocks of a Markdown section: info string and body. */
export function sectionBlocks(markdown: string, heading: string): { info: string; body: string }[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const rest = markdown.slice(start + 1);
  const next = rest.indexOf('\n## ');
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ info: m[1]!.trim(), body: m[2]! }));
}
