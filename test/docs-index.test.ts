// The docs are reference a newcomer can find: README.md's "Docs" section lists every entry of docs/
// (a page added without a line there is linked from nowhere), each page on one line of its own that
// says what it holds, docs/settings/ holding only the settings screenshots; and docs/BENCHMARKS.md
// stays a page one reads, not a log (its history is in git).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../services/kit/paths.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

/** The README's "## Docs" section. */
function docsSection(): string {
  const start = readme.indexOf('\n## Docs\n');
  if (start < 0) throw new Error('README.md has no "## Docs" section');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe('the docs index', () => {
  it('links every entry of docs/ from the README', () => {
    const section = docsSection();
    const missing = readdirSync(join(repoRoot, 'docs')).filter((name) => !section.includes(`](docs/${name}`));
    expect(missing, 'docs/ entries without a line in README.md "Docs"').toEqual([]);
  });

  it('gives every page of docs/ one line of its own, saying what it holds; docs/settings/ holds screenshots only', () => {
    const lines = docsSection().split('\n');
    const pages = readdirSync(join(repoRoot, 'docs')).filter((name) => statSync(join(repoRoot, 'docs', name)).isFile());
    const lineOf = (name: string) => `- [docs/${name}](docs/${name}) — `;
    const lineless = pages.filter((name) => lines.filter((line) => line.startsWith(lineOf(name)) && line.length > lineOf(name).length).length !== 1);
    expect(lineless, 'docs/ pages without exactly one line "- [docs/X](docs/X) — what it holds"').toEqual([]);
    expect(readdirSync(join(repoRoot, 'docs', 'settings')).filter((name) => !name.endsWith('.png'))).toEqual([]);
  });

  it('keeps docs/BENCHMARKS.md to at most 250 lines', () => {
    const lines = readFileSync(join(repoRoot, 'docs', 'BENCHMARKS.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(250);
  });
});
